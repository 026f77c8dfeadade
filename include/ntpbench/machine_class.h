// The machine class: the hardware, what about a machine changes benchmark numbers for good.
// Baselines are stored and compared per class (baselines/<id>/<suite>.json). Library versions and
// ntpbench's build are the environment: recorded with every baseline and named in a verdict when
// they changed, but not part of the class — an upgrade that slows a layer is a regression to
// catch against the class's baseline, not a new class without one. Detected by the bench layer
// (src/bench/machine_class_detect.h); here only the value and its JSON form.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ntpb {

struct MachineClass {
  std::string cpu;                 // the CPU model (machine.h)
  int cores = 0;                   // logical CPUs this process may use (its affinity mask)
  std::string isa;                 // the vector ISA extensions present that backends use
  bool hardware_counters = false;  // a hardware PMU can be opened
  // The environment (not in the id):
  std::string libraries;  // backend library versions ("eigen=Eigen 3.4.0")
  // A library's version where asking would start a driver no run used ("opencl=" this): not a
  // change of environment (EnvironmentChange skips it).
  static constexpr const char* kNotStarted = "(not started: no run used it)";
  std::string build;  // build type and flags of ntpbench itself

  // Directory-safe identifier: readable slug plus a short hash of the hardware fields.
  std::string id() const;
  // "libraries; build": what may change on the same hardware.
  std::string environment() const { return libraries + "; " + build; }
  // One line for people: "Intel Xeon 2.80GHz, 2 cores, avx512f avx512_vnni, no PMU, ...".
  std::string human() const;
  nlohmann::json ToJson() const;
  // Throws ntpb::Error naming `file` on missing or mistyped fields.
  static MachineClass FromJson(const nlohmann::json& json, const std::string& file);
  bool operator==(const MachineClass& o) const { return id() == o.id(); }  // the hardware
};

}  // namespace ntpb
