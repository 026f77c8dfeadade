#include "src/bench/machine_class_detect.h"

#include "ntpbench/backend.h"
#include "ntpbench/machine.h"
#include "src/instrument/pmu_probe.h"

namespace ntpb {

MachineClass DetectMachineClass(const std::set<std::string>* in_use) {
  MachineClass m;
  const MachineFacts& facts = ThisMachine();
  m.cpu = facts.cpu;
  m.isa = facts.isa();
  m.cores = facts.cores;
  m.hardware_counters = instrument::HardwarePmuProblem().empty();
  for (const std::string& name : BackendNames()) {
    const Backend* backend = FindBackend(name);
    const bool ask =
        !backend->StartsADriver() || !in_use || in_use->count(name) || in_use->count("hetero");
    m.libraries += (m.libraries.empty() ? "" : ", ") + name + "=" +
                   (ask ? backend->version() : MachineClass::kNotStarted);
  }
  m.build = std::string(NTPBENCH_BUILD_TYPE) + (NTPBENCH_NATIVE_BUILD ? " -march=native" : "");
  return m;
}

}  // namespace ntpb
