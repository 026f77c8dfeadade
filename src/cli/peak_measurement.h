// Measures the machine's ceilings with a backend's kernels, for `ntpbench machine`.
#pragma once

#include "ntpbench/machine_peaks.h"

namespace ntpb {

// Measures peaks (oneDNN matmul 2048^3 per precision: f32, bf16, i8 as u8 x s8), the memory
// read bandwidth (256 MiB) and that of the last-level cache (a quarter of it) with `threads`
// threads; progress on stderr. Takes some seconds.
MachinePeaks MeasureMachinePeaks(const MachineClass& machine, int threads);

}  // namespace ntpb
