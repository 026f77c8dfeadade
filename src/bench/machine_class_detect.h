// This machine's class, as a suite records it in its JSON context and the gate looks its
// baseline up: the machine facts plus what only the layers above know (the backends' library
// versions, whether a hardware PMU opens, how ntpbench was built).
#pragma once

#include "ntpbench/machine_class.h"

namespace ntpb {

MachineClass DetectMachineClass();

}  // namespace ntpb
