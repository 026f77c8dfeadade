// The kernels `ntpbench machine` measures ceilings with, independent of any backend: peak
// arithmetic from register-only loops per ISA (no memory traffic at all), and read and triad
// bandwidth over a buffer of a chosen size (an L2, L3 or DRAM plateau).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ntpb {

// One register-only kernel: what it computes, which instruction, the CPU flags it needs.
struct RegisterKernel {
  std::string precision;    // "f32", "bf16", "f16", "i8"
  std::string instruction;  // "vfmadd231ps zmm", "vdpbf16ps zmm", ...
  std::vector<std::string> flags;
  double flops_per_call = 0;  // per thread, per call of run
  void (*run)(int64_t iterations, float* sink) = nullptr;
};

// The kernels for this machine's flags, best ISA first per precision (one per precision).
std::vector<RegisterKernel> RegisterKernelsFor(const std::vector<std::string>& cpu_flags);

// GFLOP/s of `kernel` on the calling thread from a short run: the best of `reps` runs of
// `iterations` loop iterations (~0.1 ms each at a few GHz). For a choice a backend makes at
// compile time from what this CPU's vector units do (a 2x difference), not for a ceiling.
double QuickRegisterGflops(const RegisterKernel& kernel, int64_t iterations = 20'000, int reps = 1);

// Timings in seconds of `reps` runs of `threads` threads each running `kernel` once.
std::vector<double> TimeRegisterKernel(const RegisterKernel& kernel, int threads, int reps);

enum class StreamKind { kRead, kTriad };
// GB/s of each of `reps` timings of `threads` threads streaming over `bytes` in all (each its
// own contiguous part, first touched by it). Read: a vectorised sum; triad: a = b + s * c over
// three arrays of bytes / 3 (STREAM's count: 3 arrays' bytes per pass, no write-allocate).
// Small buffers are passed over several times per timing so that a timing is ~1 ms or more.
std::vector<double> StreamBandwidth(StreamKind kind, int threads, int64_t bytes, int reps);

}  // namespace ntpb
