// Measuring the roofline's two numbers: what oneDNN's matmul reaches on a large square problem
// per precision (the peak a tuned kernel gets here, which is what "as fast as the machine
// allows" can mean), and how fast all threads can read memory.
#include "src/cli/peak_measurement.h"

#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#if NTPBENCH_WITH_ONEDNN
#include <dnnl.hpp>
#endif

#include "ntpbench/machine.h"
#include "src/common/utc_time.h"

namespace ntpb {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// GB/s of the best of `reps` parallel reads of `bytes`: far larger than the caches for memory,
// a fraction of the last-level cache for it (the first read brings it in).
double ReadBandwidth(int threads, int reps, size_t bytes) {
  const size_t n = bytes / sizeof(float);
  std::unique_ptr<float[]> buffer(new float[n]);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < n; ++i) buffer[i] = 1.0f;  // first touch by the threads that read it
  double best = 1e30, sink = 0;
  for (int r = 0; r < reps; ++r) {
    double sum = 0;
    const auto start = Clock::now();
    // Eigen's sum: vectorised, several accumulators, so the loads are the limit, not the adds.
#pragma omp parallel num_threads(threads) reduction(+ : sum)
    {
      const size_t chunk = n / omp_get_num_threads(), begin = chunk * omp_get_thread_num();
      sum += Eigen::Map<const Eigen::ArrayXf>(buffer.get() + begin, chunk).sum();
    }
    best = std::min(best, Seconds(start, Clock::now()));
    sink += sum;
  }
  if (sink <= 0) std::fprintf(stderr, "ntpbench machine: bad sum\n");
  return static_cast<double>(n * sizeof(float)) / best / 1e9;
}

#if NTPBENCH_WITH_ONEDNN
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// GFLOP/s of the best of `reps` runs of an m x k x n matmul; throws dnnl::error where oneDNN has
// no implementation for the types.
double MatmulGflops(const dnnl::engine& engine, dt a_type, dt b_type, dt c_type, int64_t size,
                    int reps, std::string* kernel) {
  const dnnl::memory::desc a({size, size}, a_type, tag::ab), b_any({size, size}, b_type, tag::any),
      c({size, size}, c_type, tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b_any, c), engine);
  *kernel = pd.impl_info_str();
  dnnl::memory A(a, engine), B(pd.weights_desc(), engine), C(c, engine);
  // Zeros: the FMA units run as fast on them, and no value can be a slow denormal.
  std::memset(A.get_data_handle(), 0, a.get_size());
  std::memset(B.get_data_handle(), 0, pd.weights_desc().get_size());
  const dnnl::matmul mm(pd);
  dnnl::stream stream(engine);
  const std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, B}, {DNNL_ARG_DST, C}};
  mm.execute(stream, args);  // warm-up: page faults, kernel generation
  stream.wait();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    mm.execute(stream, args);
    stream.wait();
    best = std::min(best, Seconds(start, Clock::now()));
  }
  return 2.0 * static_cast<double>(size) * size * size / best / 1e9;
}

// The peak per precision: oneDNN's matmul, the tuned kernel the backends run on.
void MeasureMatmulPeaks(int threads, MachinePeaks* out) {
  MachinePeaks& p = *out;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  struct Kind {
    const char* precision;
    dt a, b, c;
  };
  // i8 as the backends run it: u8 activations x s8 weights, s32 accumulation.
  const Kind kinds[] = {{"f32", dt::f32, dt::f32, dt::f32},
                        {"bf16", dt::bf16, dt::bf16, dt::f32},
                        {"f16", dt::f16, dt::f16, dt::f32},
                        {"i8", dt::u8, dt::s8, dt::s32}};
  for (const Kind& k : kinds) {
    std::fprintf(stderr, "ntpbench machine: %s matmul 2048^3, %d threads\n", k.precision, threads);
    try {
      std::string kernel;
      const double gflops = MatmulGflops(engine, k.a, k.b, k.c, 2048, 5, &kernel);
      // oneDNN's reference kernels are correct, not fast: not a peak of this machine.
      if (kernel.find("ref") != std::string::npos) {
        p.unmeasured[k.precision] = "oneDNN has only a reference kernel here (" + kernel + ")";
      } else {
        p.peak_gflops[k.precision] = gflops;
        p.kernels[k.precision] = kernel;
      }
    } catch (const dnnl::error& e) {
      p.unmeasured[k.precision] = std::string("oneDNN has no matmul for it here: ") + e.what();
    }
  }
}
#else
// Without oneDNN: the f32 peak is Eigen's GEMM (the eigen backend's), best of 5; the other
// precisions have no tuned kernel in this build.
void MeasureMatmulPeaks(int threads, MachinePeaks* p) {
  constexpr int kSize = 2048;
  std::fprintf(stderr, "ntpbench machine: f32 matmul %d^3 (Eigen), %d threads\n", kSize, threads);
  Eigen::setNbThreads(threads);
  const Eigen::MatrixXf a = Eigen::MatrixXf::Zero(kSize, kSize), b = a;
  Eigen::MatrixXf c(kSize, kSize);
  c.noalias() = a * b;  // warm-up
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    const auto start = Clock::now();
    c.noalias() = a * b;
    best = std::min(best, Seconds(start, Clock::now()));
  }
  p->peak_gflops["f32"] = 2.0 * kSize * kSize * static_cast<double>(kSize) / best / 1e9;
  p->kernels["f32"] = "Eigen GEMM";
  for (const char* precision : {"bf16", "f16", "i8"}) {
    p->unmeasured[precision] = "this ntpbench was built without oneDNN (NTPBENCH_WITH_ONEDNN=OFF)";
  }
}
#endif

}  // namespace

MachinePeaks MeasureMachinePeaks(const MachineClass& machine, int threads) {
  MachinePeaks p;
  p.machine_class = machine.id();
  p.machine = machine.human();
  p.threads = threads;
  p.measured = UtcTimestamp();
  omp_set_num_threads(threads);
  MeasureMatmulPeaks(threads, &p);
  std::fprintf(stderr, "ntpbench machine: reading 256 MiB, %d threads\n", threads);
  p.bandwidth_gbs = ReadBandwidth(threads, 5, size_t{256} << 20);
  const int64_t llc = ThisMachine().last_level_cache_bytes();
  if (llc > 0) {
    p.cache_bytes = llc;
    std::fprintf(stderr, "ntpbench machine: reading %lld KiB (a quarter of the last-level cache)\n",
                 static_cast<long long>(llc / 4 / 1024));
    p.cache_bandwidth_gbs = ReadBandwidth(threads, 50, static_cast<size_t>(llc / 4));
  }
  return p;
}

}  // namespace ntpb
