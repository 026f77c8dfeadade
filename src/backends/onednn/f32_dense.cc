#include "src/backends/onednn/f32_dense.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "src/backends/onednn/native_vectors.h"

namespace ntpb::onednn {
namespace {

constexpr int64_t kPanel = F32Dense::kPanel;

// As many accumulators as fit beside the weights and the broadcast state: half the registers
// (native_vectors.h). Plain float arrays stayed on the stack at f32 batch 4 on AVX-512.
constexpr int kAccumulators = kRegisters / 2;
constexpr int kVectors = static_cast<int>(kPanel / kLanes);

// Vectors of a panel row one pass over the panel takes for R rows: all of them where R x that
// many accumulators fit in registers, else a power-of-two share (the panel is then read in
// column passes, each reading whole cache lines of every row).
template <int R>
constexpr int VectorsPerPass() {
  int v = kVectors;
  while (v > 1 && v * R > kAccumulators) v /= 2;
  return v;
}

// out[r][0..width) = sum_k x[r][k] * panel[k][0..width) for R rows: R x (vectors per pass)
// accumulators, each weight vector loaded once for all rows (the file is compiled with FMA
// contraction).
template <int R, bool kPrefetch>
inline __attribute__((always_inline)) void PanelRows(const float* x, int64_t x_stride,
                                                     int64_t k_len, const float* panel, float* out,
                                                     int64_t out_stride, int64_t width,
                                                     int64_t ahead) {
  constexpr int kPass = VectorsPerPass<R>();
  for (int v0 = 0; v0 < kVectors && v0 * kLanes < width; v0 += kPass) {
    Floats acc[R][kPass];
    for (int r = 0; r < R; ++r) {
      for (int q = 0; q < kPass; ++q) acc[r][q] = Floats{};
    }
    for (int64_t k = 0; k < k_len; ++k) {
      const float* row = panel + k * kPanel + v0 * kLanes;
      if (kPrefetch) {
        for (size_t b = 0; b < kPass * kLanes * sizeof(float); b += 64) {
          _mm_prefetch(reinterpret_cast<const char*>(row) + ahead + b, _MM_HINT_T0);
        }
      }
      Floats w[kPass];
      for (int q = 0; q < kPass; ++q) w[q] = LoadFloats(row + kLanes * q);
      for (int r = 0; r < R; ++r) {
        const float xr = x[r * x_stride + k];
        for (int q = 0; q < kPass; ++q) acc[r][q] += xr * w[q];
      }
    }
    const int64_t columns = std::min<int64_t>(kPass * kLanes, width - v0 * kLanes);
    for (int r = 0; r < R; ++r) {
      float sums[kPass * kLanes];
      std::memcpy(sums, acc[r], sizeof sums);
      std::memcpy(out + r * out_stride + v0 * kLanes, sums, sizeof(float) * columns);
    }
  }
}

template <bool kPrefetch>
void Panel(const float* x, int64_t rows, int64_t k_len, const float* panel, float* out,
           int64_t out_stride, int64_t width, int64_t ahead) {
  for (int64_t r0 = 0; r0 < rows; r0 += 4) {
    const float* xr = x + r0 * k_len;
    float* o = out + r0 * out_stride;
    switch (std::min<int64_t>(4, rows - r0)) {
      case 1:
        PanelRows<1, kPrefetch>(xr, k_len, k_len, panel, o, out_stride, width, ahead);
        break;
      case 2:
        PanelRows<2, kPrefetch>(xr, k_len, k_len, panel, o, out_stride, width, ahead);
        break;
      case 3:
        PanelRows<3, kPrefetch>(xr, k_len, k_len, panel, o, out_stride, width, ahead);
        break;
      default:
        PanelRows<4, kPrefetch>(xr, k_len, k_len, panel, o, out_stride, width, ahead);
        break;
    }
  }
}

}  // namespace

void MultiplyF32Panel(const float* x, int64_t rows, int64_t k_len, const float* panel, float* out,
                      int64_t out_stride, int64_t width, int64_t prefetch_ahead) {
  if (prefetch_ahead > 0) {
    Panel<true>(x, rows, k_len, panel, out, out_stride, width, prefetch_ahead);
  } else {
    Panel<false>(x, rows, k_len, panel, out, out_stride, width, 0);
  }
}

F32Dense::F32Dense(const std::vector<float>& weights, int64_t k, int64_t units)
    : inputs(k), outputs(units) {
  packed.assign(static_cast<size_t>(panels() * k * kPanel), 0.0f);
  for (int64_t p = 0; p < panels(); ++p) {
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = 0; j < kPanel && p * kPanel + j < units; ++j) {
        packed[static_cast<size_t>((p * k + i) * kPanel + j)] =
            weights[static_cast<size_t>(i * units + p * kPanel + j)];
      }
    }
  }
}

void F32Dense::Run(const float* x, int64_t rows, float* y, int threads, const float* addend) const {
  const int64_t p_count = panels();
#pragma omp parallel num_threads(threads)
  {
    // Each thread a contiguous run of panels: one stream through the weights per core.
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    const int64_t begin = p_count * t / n, end = p_count * (t + 1) / n;
    float sums[kStreamedRows * kPanel];
    for (int64_t p = begin; p < end; ++p) {
      const int64_t width = std::min(kPanel, outputs - p * kPanel);
      for (int64_t r0 = 0; r0 < rows; r0 += kStreamedRows) {
        const int64_t r_count = std::min(kStreamedRows, rows - r0);
        MultiplyF32Panel(x + r0 * inputs, r_count, inputs, packed.data() + p * inputs * kPanel,
                         sums, kPanel, width, 0);
        for (int64_t r = 0; r < r_count; ++r) {
          float* out = y + (r0 + r) * outputs + p * kPanel;
          const float* s = sums + r * kPanel;
          const float* b = bias.empty() ? nullptr : bias.data() + p * kPanel;
          const float* a = addend ? addend + (r0 + r) * outputs + p * kPanel : nullptr;
          for (int64_t j = 0; j < width; ++j) {
            out[j] = s[j] + (b ? b[j] : 0.0f) + (a ? a[j] : 0.0f);
          }
        }
      }
    }
  }
}

}  // namespace ntpb::onednn
