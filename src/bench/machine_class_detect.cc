#include "src/bench/machine_class_detect.h"

#include "ntpbench/backend.h"
#include "ntpbench/machine.h"
#include "src/instrument/pmu_probe.h"

namespace ntpb {

bool DriverNotInUse(const std::string& name, const std::set<std::string>* in_use) {
  const Backend* backend = FindBackend(name);
  return backend && backend->StartsADriver() && in_use && !in_use->count(name) &&
         !in_use->count("hetero");  // hetero may place layers on it
}

MachineClass DetectMachineClass(const std::set<std::string>* in_use) {
  MachineClass m;
  const MachineFacts& facts = ThisMachine();
  m.cpu = facts.cpu;
  m.isa = facts.isa();
  m.cores = facts.cores;
  m.hardware_counters = instrument::HardwarePmuProblem().empty();
  for (const std::string& name : BackendNames()) {
    m.libraries +=
        (m.libraries.empty() ? "" : ", ") + name + "=" +
        (DriverNotInUse(name, in_use) ? MachineClass::kNotStarted : FindBackend(name)->version());
  }
  m.build = std::string(NTPBENCH_BUILD_TYPE) + (NTPBENCH_NATIVE_BUILD ? " -march=native" : "");
  return m;
}

}  // namespace ntpb
