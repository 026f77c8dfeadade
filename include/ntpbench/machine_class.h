// The machine class: what about a machine changes benchmark numbers. Baselines are stored and
// compared per class (baselines/<id>/<suite>.json). Detected by the bench layer
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
  std::string libraries;           // backend library versions ("eigen=Eigen 3.4.0")
  std::string build;               // build type and flags of ntpbench itself

  // Directory-safe identifier: readable slug plus a short hash of every field.
  std::string id() const;
  // One line for people: "Intel Xeon 2.80GHz, 2 cores, avx512f avx512_vnni, no PMU, ...".
  std::string human() const;
  nlohmann::json ToJson() const;
  // Throws ntpb::Error naming `file` on missing or mistyped fields.
  static MachineClass FromJson(const nlohmann::json& json, const std::string& file);
  bool operator==(const MachineClass& o) const { return id() == o.id(); }
};

}  // namespace ntpb
