// This machine's class, as a suite records it in its JSON context and the gate looks its
// baseline up: the machine facts plus what only the layers above know (the backends' library
// versions, whether a hardware PMU opens, how ntpbench was built).
#pragma once

#include <set>
#include <string>

#include "ntpbench/machine_class.h"

namespace ntpb {

// `in_use`: the backends the runs use; a backend whose version would start a driver
// (Backend::StartsADriver) is asked only when it is in it, or hetero is (which may place layers
// on it). Null: every backend is asked (`ntpbench machine`).
MachineClass DetectMachineClass(const std::set<std::string>* in_use = nullptr);

// Whether backend `name` would start a driver that no backend in `in_use` needs (null: all are
// in use), so its version is not asked for.
bool DriverNotInUse(const std::string& name, const std::set<std::string>* in_use);

}  // namespace ntpb
