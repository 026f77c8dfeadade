// Whether this machine's hardware counters can be opened, asked of the kernel directly
// (perf_event_open of the cycle counter), with or without PAPI.
#pragma once

#include <string>

namespace ntpb::instrument {

// Why hardware events cannot be counted here, or "" when a hardware cycle counter opens.
std::string HardwarePmuProblem();

}  // namespace ntpb::instrument
