// Measuring the roofline's ceilings: what oneDNN's GEMM (a matmul or a 1x1 convolution) reaches
// on a large square problem per precision (the peak a tuned kernel gets here, which is what "as
// fast as the machine allows" can mean) next to what register-only loops reach (the vector
// units' own limit), and how fast all threads read and triad data in their L2s, the last-level
// cache and memory. Each is the best of 6 runs with their spread; a refresh continues each
// ceiling's history.
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
#include "src/machine/ceiling_kernels.h"

namespace ntpb {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

constexpr int kReps = 6;  // best of 6 per ceiling, with their spread

Ceiling FromRuns(const std::vector<double>& values, const std::string& unit,
                 const std::string& what) {
  Ceiling c;
  c.unit = unit;
  c.what = what;
  c.runs = static_cast<int>(values.size());
  if (values.empty()) return c;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  c.best = *hi;
  c.spread = *hi > 0 ? (*hi - *lo) / *hi : 0;
  c.history = {c.best};
  return c;
}

std::string SizeName(int64_t bytes) {
  return bytes >= (int64_t{1} << 20) ? std::to_string(bytes >> 20) + "MiB"
                                     : std::to_string(bytes >> 10) + "KiB";
}

// Register-only peaks per precision, for the ISA this CPU has.
void MeasureRegisterPeaks(int threads, MachinePeaks* p) {
  for (const RegisterKernel& k : RegisterKernelsFor(ThisMachine().cpu_flags)) {
    std::fprintf(stderr, "ntpbench machine: %s %s, registers only, %d threads\n",
                 k.precision.c_str(), k.instruction.c_str(), threads);
    std::vector<double> gflops;
    for (double s : TimeRegisterKernel(k, threads, kReps)) {
      gflops.push_back(k.flops_per_call * threads / s / 1e9);
    }
    p->ceilings["register." + k.precision] =
        FromRuns(gflops, "GFLOP/s", k.instruction + ", registers");
  }
}

// Reads at the sizes topologies stream (every power of two from 1 MiB to 256 MiB), where the
// step from cache to memory shows; then read and triad plateaus: in the threads' L2s (half of
// each), in the last-level cache (half of it, more than the L2s hold: its size from
// CacheSeenByReads) and in memory (256 MiB).
void MeasureBandwidth(int threads, MachinePeaks* p) {
  const MachineFacts& m = ThisMachine();
  int64_t l2 = 0;
  for (const CacheLevel& c : m.caches) {
    if (c.level == 2) l2 = c.bytes;
  }
  std::vector<std::pair<int64_t, double>> reads;
  for (int64_t bytes = int64_t{1} << 20; bytes <= (int64_t{256} << 20); bytes *= 2) {
    std::fprintf(stderr, "ntpbench machine: read %s, %d threads\n", SizeName(bytes).c_str(),
                 threads);
    const Ceiling c = FromRuns(StreamBandwidth(StreamKind::kRead, threads, bytes, kReps), "GB/s",
                               "read " + SizeName(bytes));
    reads.emplace_back(bytes, c.best);
    p->ceilings["read." + SizeName(bytes)] = c;
  }
  const int64_t reported = m.last_level_cache_bytes();
  const int64_t llc = CacheSeenByReads(reported, reads, reads.back().second);
  p->reported_cache_bytes = reported;
  struct Plateau {
    const char* name;
    int64_t bytes;
  };
  std::vector<Plateau> plateaus;
  if (l2 > 0) plateaus.push_back({"l2", l2 / 2 * threads});
  if (llc > l2 * threads && llc > 0) plateaus.push_back({"l3", llc / 2});
  plateaus.push_back({"dram", int64_t{256} << 20});
  for (const Plateau& pl : plateaus) {
    for (const auto& [kind, name] :
         {std::pair{StreamKind::kRead, "read"}, std::pair{StreamKind::kTriad, "triad"}}) {
      std::fprintf(stderr, "ntpbench machine: %s %s (%s), %d threads\n", name,
                   SizeName(pl.bytes).c_str(), pl.name, threads);
      p->ceilings[std::string(name) + "." + pl.name] =
          FromRuns(StreamBandwidth(kind, threads, pl.bytes, kReps), "GB/s",
                   std::string(name) + " " + SizeName(pl.bytes));
    }
  }
  p->l2_bytes = l2;
  p->cache_bytes = llc;
}

}  // namespace

void UseKeptCeilings(MachinePeaks* p) {
  for (const auto& [name, c] : p->ceilings) {
    if (name.rfind("gemm.", 0) == 0) p->peak_gflops[name.substr(5)] = c.Kept();
  }
  p->AddWeightOnlyPeaks();
  auto kept = [&](const char* name) {
    auto it = p->ceilings.find(name);
    return it == p->ceilings.end() ? 0.0 : it->second.Kept();
  };
  p->bandwidth_gbs = kept("read.dram");
  p->cache_bandwidth_gbs = kept("read.l3");
  p->l2_bandwidth_gbs = kept("read.l2");
}

namespace {

#if NTPBENCH_WITH_ONEDNN
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// GFLOP/s of each of `reps` runs of a size^3 product computed by `primitive` (its arguments
// filled with zeros: the FMA units run as fast on them, and no value can be a slow denormal).
std::vector<double> PrimitiveGflops(const dnnl::engine& engine, const dnnl::primitive& primitive,
                                    const dnnl::memory::desc& src, const dnnl::memory::desc& wei,
                                    const dnnl::memory::desc& dst, int64_t size, int reps) {
  dnnl::memory A(src, engine), B(wei, engine), C(dst, engine);
  std::memset(A.get_data_handle(), 0, src.get_size());
  std::memset(B.get_data_handle(), 0, wei.get_size());
  dnnl::stream stream(engine);
  const std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, B}, {DNNL_ARG_DST, C}};
  primitive.execute(stream, args);  // warm-up: page faults, kernel generation
  stream.wait();
  std::vector<double> gflops;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    primitive.execute(stream, args);
    stream.wait();
    gflops.push_back(2.0 * static_cast<double>(size) * size * size / Seconds(start, Clock::now()) /
                     1e9);
  }
  return gflops;
}

// One route of a size^3 GEMM: its runs and oneDNN's kernel.
struct GemmRoute {
  std::vector<double> gflops;
  std::string kernel;
  double Best() const {
    return gflops.empty() ? 0 : *std::max_element(gflops.begin(), gflops.end());
  }
};

// The size^3 GEMM as oneDNN's matmul, and as a 1x1 convolution over a [1, size, size, 1] NHWC
// image (the route the onednn backend's dense layers take where the matmul has only gemm:jit,
// dense_conv.cc); the faster one. Throws dnnl::error where oneDNN has neither for the types.
GemmRoute FastestGemm(const dnnl::engine& engine, dt a_type, dt b_type, dt c_type, int64_t size,
                      int reps) {
  const dnnl::memory::desc a({size, size}, a_type, tag::ab), b_any({size, size}, b_type, tag::any),
      c({size, size}, c_type, tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b_any, c), engine);
  GemmRoute best{PrimitiveGflops(engine, dnnl::matmul(pd), a, pd.weights_desc(), c, size, reps),
                 pd.impl_info_str()};
  try {
    const dnnl::memory::desc src({1, size, size, 1}, a_type, tag::nhwc),
        wei({size, size, 1, 1}, b_type, tag::any), dst({1, size, size, 1}, c_type, tag::nhwc);
    const dnnl::convolution_forward::primitive_desc conv(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                        dnnl::algorithm::convolution_direct, src, wei, dst, {1, 1},
                                        {0, 0}, {0, 0}),
        engine);
    const std::string kernel = conv.impl_info_str();
    if (kernel.find("ref") == std::string::npos) {
      GemmRoute as_conv{PrimitiveGflops(engine, dnnl::convolution_forward(conv), src,
                                        conv.weights_desc(), dst, size, reps),
                        kernel + " conv"};
      if (as_conv.Best() > best.Best()) best = std::move(as_conv);
    }
  } catch (const dnnl::error&) {  // no convolution for these types: the matmul stands
  }
  return best;
}

// The peak per precision: the faster of oneDNN's GEMM routes, the tuned kernels the backends
// run on.
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
    std::fprintf(stderr, "ntpbench machine: %s GEMM 2048^3, %d threads\n", k.precision, threads);
    try {
      const GemmRoute route = FastestGemm(engine, k.a, k.b, k.c, 2048, kReps);
      // oneDNN's reference kernels are correct, not fast: not a peak of this machine.
      if (route.kernel.find("ref") != std::string::npos) {
        p.unmeasured[k.precision] =
            "oneDNN has only a reference kernel here (" + route.kernel + ")";
      } else {
        p.ceilings[std::string("gemm.") + k.precision] =
            FromRuns(route.gflops, "GFLOP/s", "oneDNN 2048^3 " + route.kernel);
        p.kernels[k.precision] = route.kernel;
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
  std::vector<double> gflops;
  for (int r = 0; r < kReps; ++r) {
    const auto start = Clock::now();
    c.noalias() = a * b;
    gflops.push_back(2.0 * kSize * kSize * static_cast<double>(kSize) /
                     Seconds(start, Clock::now()) / 1e9);
  }
  p->ceilings["gemm.f32"] = FromRuns(gflops, "GFLOP/s", "Eigen GEMM 2048^3");
  p->kernels["f32"] = "Eigen GEMM";
  for (const char* precision : {"bf16", "f16", "i8"}) {
    p->unmeasured[precision] = "this ntpbench was built without oneDNN (NTPBENCH_WITH_ONEDNN=OFF)";
  }
}
#endif

}  // namespace

MachinePeaks MeasureMachinePeaks(const MachineClass& machine, int threads,
                                 const MachinePeaks* previous) {
  MachinePeaks p;
  p.machine_class = machine.id();
  p.machine = machine.human();
  p.threads = threads;
  p.measured = UtcTimestamp();
  omp_set_num_threads(threads);
  MeasureMatmulPeaks(threads, &p);
  MeasureRegisterPeaks(threads, &p);
  MeasureBandwidth(threads, &p);
  if (previous) {
    for (auto& [name, ceiling] : p.ceilings) {
      auto it = previous->ceilings.find(name);
      if (it != previous->ceilings.end()) ceiling = ContinueHistory(it->second, ceiling);
    }
  }
  UseKeptCeilings(&p);
  return p;
}

}  // namespace ntpb
