// Register-only loops: independent accumulators (12: enough to cover the FMA latency of two
// pipes, 4 cycles x 2 on current x86) updated from registers, so the loop is bound by the
// vector units alone. Each accumulator starts at a value of its own: from equal starts GCC 12
// proved the 12 chains equal and computed one (bf16, f16 and i8 until machine file version 7),
// a dependent chain whose rate was counted 12 times: bf16 566 GFLOP/s on a 2-core Intel Xeon
// guest (Sapphire Rapids class) where 12 real chains of vdpbf16ps run 173, as fast as oneDNN's
// bf16 GEMM. Each ISA's loop is compiled for it (target attributes) and chosen at run
// time by the kernel's CPU flags.
#include "src/machine/ceiling_kernels.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "src/common/huge_pages.h"

namespace ntpb {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kIterations = 20'000'000;  // ~0.1 s per call at a few GHz

// 12 chains per iteration: one per accumulator.
#define NTPB_TWELVE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512f"))) void FmaAvx512(int64_t n, float* sink) {
  __m512 a = _mm512_set1_ps(1.0f), b = _mm512_set1_ps(0.999999f);
#define DECL(i) __m512 c##i = _mm512_set1_ps(static_cast<float>(i));
  NTPB_TWELVE(DECL)
#undef DECL
  for (int64_t i = 0; i < n; ++i) {
#define STEP(i) c##i = _mm512_fmadd_ps(a, b, c##i);
    NTPB_TWELVE(STEP)
#undef STEP
  }
  __m512 s = _mm512_setzero_ps();
#define SUM(i) s = _mm512_add_ps(s, c##i);
  NTPB_TWELVE(SUM)
#undef SUM
  *sink += _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) void FmaAvx2(int64_t n, float* sink) {
  __m256 a = _mm256_set1_ps(1.0f), b = _mm256_set1_ps(0.999999f);
#define DECL(i) __m256 c##i = _mm256_set1_ps(static_cast<float>(i));
  NTPB_TWELVE(DECL)
#undef DECL
  for (int64_t i = 0; i < n; ++i) {
#define STEP(i) c##i = _mm256_fmadd_ps(a, b, c##i);
    NTPB_TWELVE(STEP)
#undef STEP
  }
  __m256 s = _mm256_setzero_ps();
#define SUM(i) s = _mm256_add_ps(s, c##i);
  NTPB_TWELVE(SUM)
#undef SUM
  float out[8];
  _mm256_storeu_ps(out, s);
  for (float v : out) *sink += v;
}

__attribute__((target("avx512f,avx512bf16"))) void DotBf16Avx512(int64_t n, float* sink) {
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80), b = a;  // bf16 1.0
#define DECL(i) __m512 c##i = _mm512_set1_ps(static_cast<float>(i));
  NTPB_TWELVE(DECL)
#undef DECL
  for (int64_t i = 0; i < n; ++i) {
#define STEP(i) c##i = _mm512_dpbf16_ps(c##i, a, b);
    NTPB_TWELVE(STEP)
#undef STEP
  }
  __m512 s = _mm512_setzero_ps();
#define SUM(i) s = _mm512_add_ps(s, c##i);
  NTPB_TWELVE(SUM)
#undef SUM
  *sink += _mm512_reduce_add_ps(s);
}

__attribute__((target("avx512f,avx512vnni"))) void DotI8Avx512(int64_t n, float* sink) {
  const __m512i a = _mm512_set1_epi8(1), b = _mm512_set1_epi8(1);
#define DECL(i) __m512i c##i = _mm512_set1_epi32(i);
  NTPB_TWELVE(DECL)
#undef DECL
  for (int64_t i = 0; i < n; ++i) {
#define STEP(i) c##i = _mm512_dpbusd_epi32(c##i, a, b);
    NTPB_TWELVE(STEP)
#undef STEP
  }
  __m512i s = _mm512_setzero_si512();
#define SUM(i) s = _mm512_add_epi32(s, c##i);
  NTPB_TWELVE(SUM)
#undef SUM
  *sink += static_cast<float>(_mm512_reduce_add_epi32(s));
}

__attribute__((target("avx512f,avx512fp16"))) void FmaF16Avx512(int64_t n, float* sink) {
  const __m512h a = _mm512_set1_ph(static_cast<_Float16>(1.0f)),
                b = _mm512_set1_ph(static_cast<_Float16>(0.5f));
#define DECL(i) __m512h c##i = _mm512_set1_ph(static_cast<_Float16>(i));
  NTPB_TWELVE(DECL)
#undef DECL
  for (int64_t i = 0; i < n; ++i) {
#define STEP(i) c##i = _mm512_fmadd_ph(a, b, c##i);
    NTPB_TWELVE(STEP)
#undef STEP
  }
  __m512h s = _mm512_setzero_ph();
#define SUM(i) s = _mm512_add_ph(s, c##i);
  NTPB_TWELVE(SUM)
#undef SUM
  *sink += static_cast<float>(_mm512_reduce_add_ph(s));
}

#undef NTPB_TWELVE

// Streaming reads: four independent vector sums, one add per load and no chain between them,
// so the loads are what limits it; one loop per ISA, written with its own register type and
// chosen at run time. A loop over an array of 128 scalar sums left the compiler to find that and
// it did not everywhere: on a Zen 5 VM it read 27 GB/s from the L3 and 29 GB/s from memory, where
// this reads about 180 and 67 and oneDNN's matrix-vector products stream 43 GB/s (a roof below
// the layers that reach it). One loop over 64-byte GCC vector types, cloned per ISA, was no better
// on AVX2: there GCC kept the sums on the stack, and a Zen 3 VM "read" 17 GB/s from its L2.
#define NTPB_READ_SUM(V, FLOATS, LOAD, ADD)          \
  V s0 = {}, s1 = {}, s2 = {}, s3 = {};              \
  int64_t i = 0;                                     \
  for (; i + 4 * (FLOATS) <= n; i += 4 * (FLOATS)) { \
    s0 = ADD(s0, LOAD(a + i));                       \
    s1 = ADD(s1, LOAD(a + i + (FLOATS)));            \
    s2 = ADD(s2, LOAD(a + i + 2 * (FLOATS)));        \
    s3 = ADD(s3, LOAD(a + i + 3 * (FLOATS)));        \
  }                                                  \
  s0 = ADD(ADD(s0, s1), ADD(s2, s3));                \
  float lanes[FLOATS];                               \
  std::memcpy(lanes, &s0, sizeof lanes);             \
  float sum = 0;                                     \
  for (float f : lanes) sum += f;                    \
  for (; i < n; ++i) sum += a[i];                    \
  return sum;

__attribute__((target("avx512f"))) float ReadSumAvx512(const float* a, int64_t n) {
  NTPB_READ_SUM(__m512, 16, _mm512_loadu_ps, _mm512_add_ps)
}
__attribute__((target("avx"))) float ReadSumAvx(const float* a, int64_t n) {
  NTPB_READ_SUM(__m256, 8, _mm256_loadu_ps, _mm256_add_ps)
}
float ReadSumSse(const float* a, int64_t n) { NTPB_READ_SUM(__m128, 4, _mm_loadu_ps, _mm_add_ps) }
#undef NTPB_READ_SUM

float ReadSum(const float* a, int64_t n) {
  static const auto read = __builtin_cpu_supports("avx512f") ? ReadSumAvx512
                           : __builtin_cpu_supports("avx")   ? ReadSumAvx
                                                             : ReadSumSse;
  return read(a, n);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void Triad(float* __restrict a,
                                                                        const float* __restrict b,
                                                                        const float* __restrict c,
                                                                        float s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

bool HasAll(const std::vector<std::string>& have, const std::vector<std::string>& need) {
  return std::all_of(need.begin(), need.end(), [&](const std::string& f) {
    return std::find(have.begin(), have.end(), f) != have.end();
  });
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::vector<RegisterKernel> RegisterKernelsFor(const std::vector<std::string>& cpu_flags) {
  const double n = static_cast<double>(kIterations), chains = 12;
  // Per instruction: lanes x (values per lane) x 2 (multiply and add).
  const std::vector<RegisterKernel> all = {
      {"f32", "vfmadd231ps zmm", {"avx512f"}, n * chains * 16 * 2, FmaAvx512},
      {"f32", "vfmadd231ps ymm", {"avx2", "fma"}, n * chains * 8 * 2, FmaAvx2},
      {"bf16", "vdpbf16ps zmm", {"avx512f", "avx512_bf16"}, n * chains * 16 * 2 * 2, DotBf16Avx512},
      {"f16", "vfmadd231ph zmm", {"avx512f", "avx512_fp16"}, n * chains * 32 * 2, FmaF16Avx512},
      {"i8", "vpdpbusd zmm", {"avx512f", "avx512_vnni"}, n * chains * 16 * 4 * 2, DotI8Avx512},
  };
  std::vector<RegisterKernel> out;
  for (const RegisterKernel& k : all) {
    const bool have_precision = std::any_of(out.begin(), out.end(), [&](const RegisterKernel& o) {
      return o.precision == k.precision;
    });
    if (!have_precision && HasAll(cpu_flags, k.flags)) out.push_back(k);
  }
  return out;
}

double QuickRegisterGflops(const RegisterKernel& kernel, int64_t iterations, int reps) {
  float sink = 0;
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    kernel.run(iterations, &sink);
    const double s = Seconds(start, Clock::now());
    if (s > 0) {
      best = std::max(best, kernel.flops_per_call * static_cast<double>(iterations) /
                                static_cast<double>(kIterations) / s / 1e9);
    }
  }
  if (sink == 12345.678f) best += 1e-9;  // keeps the sums alive
  return best;
}

std::vector<double> TimeRegisterKernel(const RegisterKernel& kernel, int threads, int reps) {
  std::vector<double> seconds;
  float sink = 0;
  for (int r = 0; r <= reps; ++r) {  // the first run warms the cores up (clocks, pages)
    const auto start = Clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    kernel.run(kIterations, &sink);
    if (r > 0) seconds.push_back(Seconds(start, Clock::now()));
  }
  if (sink == 12345.678f) seconds.push_back(1);  // keeps the sums alive
  return seconds;
}

std::vector<double> StreamBandwidth(StreamKind kind, int threads, int64_t bytes, int reps) {
  const int arrays = kind == StreamKind::kRead ? 1 : 3;
  const int64_t n = std::max<int64_t>(bytes / arrays / static_cast<int64_t>(sizeof(float)), 1024);
  // A read touches one array; a triad three (b and c only exist for it). On huge pages, as the
  // buffers a topology streams are (huge_pages.h): the plateau is what memory can deliver.
  const auto a = NewHugePageArray<float>(n);
  const auto b = NewHugePageArray<float>(arrays == 3 ? n : 0),
             c = NewHugePageArray<float>(arrays == 3 ? n : 0);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) {  // first touch by the threads that stream it
    a[i] = 1.0f;
    if (arrays == 3) b[i] = c[i] = 1.0f;
  }
  const double pass_bytes = static_cast<double>(n) * sizeof(float) * arrays;
  // Passes per timing: about 4 ms of traffic at 100 GB/s, at least one.
  const int passes = static_cast<int>(std::max(1.0, 4e8 / pass_bytes));
  std::vector<double> gbs;
  double sink = 0;
  std::vector<double> thread_gbs(static_cast<size_t>(std::max(threads, 1)), 0.0);
  for (int r = 0; r <= reps; ++r) {  // the first one brings the buffer into the cache
    // One parallel region per timing; each thread passes over its own part (the part it
    // touched first), so a small buffer stays in that core's cache. Each thread times its own
    // passes, started together by a barrier outside the timing and with none between passes:
    // a thread another process preempts delays its own rate only, not every pass of the others
    // (with a barrier per pass, a busy machine measured a 2-core L2 read at 4 GB/s).
    double sum = 0;
    std::fill(thread_gbs.begin(), thread_gbs.end(), 0.0);
#pragma omp parallel num_threads(threads) reduction(+ : sum)
    {
      const int t = omp_get_thread_num();
      const int64_t chunk = n / omp_get_num_threads(), begin = chunk * t;
#pragma omp barrier
      const auto start = Clock::now();
      for (int p = 0; p < passes; ++p) {
        if (kind == StreamKind::kRead) {
          sum += ReadSum(a.get() + begin, chunk);
        } else {
          Triad(a.get() + begin, b.get() + begin, c.get() + begin, 1.0001f, chunk);
        }
      }
      const double seconds = Seconds(start, Clock::now());
      const double bytes = static_cast<double>(chunk) * sizeof(float) * arrays * passes;
      if (t < static_cast<int>(thread_gbs.size()) && seconds > 0) {
        thread_gbs[static_cast<size_t>(t)] = bytes / seconds / 1e9;
      }
    }
    sink += sum;
    double total = 0;
    for (double g : thread_gbs) total += g;  // the threads' rates while all of them streamed
    if (r > 0) gbs.push_back(total);
  }
  if (sink == -1 || a[n / 2] == -1) gbs.push_back(0);  // keeps the work alive
  return gbs;
}

}  // namespace ntpb
