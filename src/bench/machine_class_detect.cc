#include "src/bench/machine_class_detect.h"

#include "ntpbench/backend.h"
#include "ntpbench/machine.h"
#include "src/instrument/pmu_probe.h"

namespace ntpb {

MachineClass DetectMachineClass() {
  MachineClass m;
  const MachineFacts& facts = ThisMachine();
  m.cpu = facts.cpu;
  m.isa = facts.isa();
  m.cores = facts.cores;
  m.hardware_counters = instrument::HardwarePmuProblem().empty();
  for (const std::string& name : BackendNames()) {
    m.libraries += (m.libraries.empty() ? "" : ", ") + name + "=" + FindBackend(name)->version();
  }
  m.build = std::string(NTPBENCH_BUILD_TYPE) + (NTPBENCH_NATIVE_BUILD ? " -march=native" : "");
  return m;
}

}  // namespace ntpb
