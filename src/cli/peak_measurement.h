// Measures the machine's ceilings with a backend's kernels, for `ntpbench machine`.
#pragma once

#include "ntpbench/machine_peaks.h"

namespace ntpb {

// Measures every ceiling with `threads` threads: oneDNN's faster GEMM route (matmul or 1x1
// convolution) at 2048^3 per precision (f32, bf16, f16, i8 as u8 x s8), register-only peaks per
// precision this CPU has, read and triad plateaus (L2, L3, DRAM) and reads from 1 to 256 MiB;
// progress on stderr. About half a minute. `previous` (the cached measurement, or null): each
// ceiling's history continues from it.
MachinePeaks MeasureMachinePeaks(const MachineClass& machine, int threads,
                                 const MachinePeaks* previous);

// Sets the roofline's figures (peak_gflops, bandwidth_gbs, cache_bandwidth_gbs, l2_bandwidth_gbs)
// to the kept figures of the ceilings.
void UseKeptCeilings(MachinePeaks* peaks);

}  // namespace ntpb
