// Runs an executable once, timing each step where it happens (one clock read per step).
#pragma once

#include <cstdint>
#include <vector>

#include "ntpbench/backend.h"

namespace ntpb::bench {

int64_t NowNanoseconds();

// Adds each step's wall time to step_ns[i]; returns the total. Each step ends with Wait() so
// asynchronous backends are charged to the step that did the work. `row` (when not null): each
// step's time is also written to row[i] (StepSamples). `stamps` (--trace): each step's begin and
// end are appended.
int64_t RunTimedSteps(Executable& executable, std::vector<int64_t>& step_ns, int64_t* row,
                      std::vector<int64_t>* stamps = nullptr);

// Each step's device time per inference (Executable::DeviceStepNanoseconds), averaged over up
// to `runs` further inferences run end to end (one wait at the end, none between steps); empty
// when the backend does not measure it. Called after the timed loop, never inside it.
std::vector<int64_t> DeviceStepTimes(Executable& executable, int64_t runs);

}  // namespace ntpb::bench
