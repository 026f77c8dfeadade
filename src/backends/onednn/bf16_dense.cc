#include "src/backends/onednn/bf16_dense.h"

#include <immintrin.h>
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstring>

#include "src/backends/onednn/native_vectors.h"

namespace ntpb::onednn {
namespace {

constexpr int64_t kPanel = Bf16Dense::kPanel;
constexpr int kVectors = static_cast<int>(kPanel / kLanes);

// Row r's source pair kp: x[2 kp] in the low half, x[2 kp + 1] (0 past the last input) in the
// high one.
inline uint32_t SourcePair(const uint16_t* row, int64_t inputs, int64_t kp) {
  if (2 * kp + 1 < inputs) {
    uint32_t pair;
    std::memcpy(&pair, row + 2 * kp, sizeof pair);
    return pair;
  }
  return row[2 * kp];
}

inline float Low(uint32_t pair) {
  const uint32_t bits = pair << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline float High(uint32_t pair) {
  const uint32_t bits = pair & 0xFFFF0000u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Asks for the 4 lines of a pair row (64 outputs x 2 bf16) `ahead` bytes on.
template <bool kAhead>
inline void PrefetchPairRow(const uint16_t* row, int64_t ahead) {
  if constexpr (kAhead) {
    const char* p = reinterpret_cast<const char*>(row) + ahead;
    for (int b = 0; b < 2 * kPanel * 2; b += 64) PrefetchIntoL2(p + b);
  }
}

// What is added to a block's sums before they are stored: the bias at the panel's first output,
// and the addend (a fused residual add) at the block's first row and the panel's first output.
struct Epilogue {
  const float* bias = nullptr;
  const uint16_t* add_bf16 = nullptr;
  const float* add_f32 = nullptr;
  int64_t add_stride = 0;  // between rows, in elements

  // The same from row r and output `column` of the block on.
  Epilogue At(int64_t r, int64_t column) const {
    const int64_t offset = r * add_stride + column;
    return {bias ? bias + column : nullptr, add_bf16 ? add_bf16 + offset : nullptr,
            add_f32 ? add_f32 + offset : nullptr, add_stride};
  }
  float Finish(float sum, int64_t j) const {
    if (bias) sum += bias[j];
    if (add_bf16) sum += Low(add_bf16[j]);  // a bf16 value is the high half of its f32
    if (add_f32) sum += add_f32[j];
    return sum;
  }
};

// Stores the first `width` of a row's sums with what the epilogue adds: f32, or rounded to bf16.
inline void StoreRow(const float* sums, const Epilogue& e, float* y, int64_t width) {
  for (int64_t j = 0; j < width; ++j) y[j] = e.Finish(sums[j], j);
}
inline void StoreRow(const float* sums, const Epilogue& e, uint16_t* y, int64_t width) {
  for (int64_t j = 0; j < width; ++j) y[j] = RoundToBf16(e.Finish(sums[j], j));
}

// Vectors of a pair row one pass takes for R rows: R of accumulators each, two widened halves
// and the rows' two broadcast inputs in registers.
template <int R>
constexpr int VectorsPerPass() {
  int v = kVectors;
  while (v > 1 && v * R + 2 + 2 * R > kRegisters) v /= 2;
  return v;
}

// Each lane's pair widened to f32 (the low half shifted up, the high half masked) and multiplied
// by the rows' inputs, in column passes where the registers do not hold a whole pair row.
template <int R, bool kAhead, typename Out>
void WidenPanelRows(const uint16_t* x, int64_t inputs, const uint16_t* panel, Out* y,
                    int64_t y_stride, int64_t width, int64_t ahead, const Epilogue& e) {
  typedef int32_t LoadedInts __attribute__((vector_size(kLanes * 4), aligned(4), may_alias));
  constexpr int kPass = VectorsPerPass<R>();
  const int64_t pairs = (inputs + 1) / 2;
  for (int v0 = 0; v0 < kVectors && v0 * kLanes < width; v0 += kPass) {
    Floats acc[R][kPass];
    for (int r = 0; r < R; ++r) {
      for (int q = 0; q < kPass; ++q) acc[r][q] = Floats{};
    }
    const int64_t pass_ahead = v0 == 0 ? ahead : 0;  // the first pass brings the panel in
    for (int64_t kp = 0; kp < pairs; ++kp) {
      const uint16_t* row = panel + kp * 2 * kPanel;
      PrefetchPairRow<kAhead>(row, pass_ahead);
      float low[R], high[R];
      for (int r = 0; r < R; ++r) {
        const uint32_t pair = SourcePair(x + r * inputs, inputs, kp);
        low[r] = Low(pair);
        high[r] = High(pair);
      }
      for (int q = 0; q < kPass; ++q) {
        const Ints lanes = *reinterpret_cast<const LoadedInts*>(row + 2 * kLanes * (v0 + q));
        const Floats even = (Floats)(lanes << 16);
        const Floats odd = (Floats)(lanes & static_cast<int32_t>(0xFFFF0000u));
        for (int r = 0; r < R; ++r) acc[r][q] += low[r] * even + high[r] * odd;
      }
    }
    for (int r = 0; r < R; ++r) {
      float sums[kPass * kLanes];
      std::memcpy(sums, acc[r], sizeof sums);
      const int64_t column = v0 * kLanes;
      StoreRow(sums, e.At(r, column), y + r * y_stride + column,
               std::min<int64_t>(kPass * kLanes, width - column));
    }
  }
}

#if defined(__AVX512BF16__)
// vdpbf16ps: a lane's weight pair times the row's source pair, both products added to the f32
// accumulator; R x 4 accumulators hold the panel's 64 outputs.
template <int R, bool kAhead, typename Out>
void DotPanelRows(const uint16_t* x, int64_t inputs, const uint16_t* panel, Out* y,
                  int64_t y_stride, int64_t width, int64_t ahead, const Epilogue& e) {
  constexpr int kZmm = static_cast<int>(kPanel / 16);
  const int64_t pairs = (inputs + 1) / 2;
  __m512 acc[R][kZmm];
  for (int r = 0; r < R; ++r) {
    for (int q = 0; q < kZmm; ++q) acc[r][q] = _mm512_setzero_ps();
  }
  for (int64_t kp = 0; kp < pairs; ++kp) {
    const uint16_t* row = panel + kp * 2 * kPanel;
    PrefetchPairRow<kAhead>(row, ahead);
    __m512bh w[kZmm];
    for (int q = 0; q < kZmm; ++q) w[q] = (__m512bh)_mm512_loadu_si512(row + 32 * q);
    for (int r = 0; r < R; ++r) {
      const uint32_t pair = SourcePair(x + r * inputs, inputs, kp);
      const __m512bh xr = (__m512bh)_mm512_set1_epi32(static_cast<int>(pair));
      for (int q = 0; q < kZmm; ++q) acc[r][q] = _mm512_dpbf16_ps(acc[r][q], xr, w[q]);
    }
  }
  for (int r = 0; r < R; ++r) {
    float sums[kPanel];
    for (int q = 0; q < kZmm; ++q) _mm512_storeu_ps(sums + 16 * q, acc[r][q]);
    StoreRow(sums, e.At(r, 0), y + r * y_stride, width);
  }
}
#endif

template <int R, bool kAhead, typename Out>
void PanelRows(bool dot, const uint16_t* x, int64_t inputs, const uint16_t* panel, Out* y,
               int64_t y_stride, int64_t width, int64_t ahead, const Epilogue& e) {
#if defined(__AVX512BF16__)
  if (dot) return DotPanelRows<R, kAhead>(x, inputs, panel, y, y_stride, width, ahead, e);
#endif
  (void)dot;
  WidenPanelRows<R, kAhead>(x, inputs, panel, y, y_stride, width, ahead, e);
}

template <int R, typename Out>
void PanelRows(bool dot, const uint16_t* x, int64_t inputs, const uint16_t* panel, Out* y,
               int64_t y_stride, int64_t width, int64_t ahead, const Epilogue& e) {
  if (ahead > 0) {
    PanelRows<R, true>(dot, x, inputs, panel, y, y_stride, width, ahead, e);
  } else {
    PanelRows<R, false>(dot, x, inputs, panel, y, y_stride, width, 0, e);
  }
}

}  // namespace

uint16_t RoundToBf16(float f) { return Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(f)); }

bool Bf16DenseHasDotProducts() {
#if defined(__AVX512BF16__)
  return true;
#else
  return false;
#endif
}

Bf16Dense::Bf16Dense(const std::vector<float>& weights, int64_t in, int64_t out)
    : inputs(in), outputs(out) {
  const int64_t kp_count = pairs();
  packed.assign(static_cast<size_t>(panels() * kp_count * kPanel * 2), 0);
  for (int64_t p = 0; p < panels(); ++p) {
    for (int64_t k = 0; k < inputs; ++k) {
      for (int64_t j = 0; j < kPanel && p * kPanel + j < outputs; ++j) {
        packed[static_cast<size_t>(((p * kp_count + k / 2) * kPanel + j) * 2 + k % 2)] =
            RoundToBf16(weights[static_cast<size_t>(k * outputs + p * kPanel + j)]);
      }
    }
  }
}

template <typename Out>
void Bf16Dense::PanelTo(int64_t p, const uint16_t* x, int64_t rows, Out* y, int64_t y_stride,
                        Bf16Addend addend) const {
  const uint16_t* panel = packed.data() + p * pairs() * kPanel * 2;
  const int64_t width = std::min(kPanel, outputs - p * kPanel);
  const Epilogue panel_epilogue{bias.empty() ? nullptr : bias.data() + p * kPanel,
                                addend.bf16 ? addend.bf16 + p * kPanel : nullptr,
                                addend.f32 ? addend.f32 + p * kPanel : nullptr, y_stride};
  const bool dot = use_dot_products;
  for (int64_t r0 = 0; r0 < rows; r0 += 4) {
    const uint16_t* xr = x + r0 * inputs;
    Out* yr = y + r0 * y_stride + p * kPanel;
    const Epilogue e = panel_epilogue.At(r0, 0);
    const int64_t ahead = r0 == 0 ? prefetch_ahead : 0;  // then the panel is in the L2
    switch (std::min<int64_t>(4, rows - r0)) {
      case 1:
        PanelRows<1>(dot, xr, inputs, panel, yr, y_stride, width, ahead, e);
        break;
      case 2:
        PanelRows<2>(dot, xr, inputs, panel, yr, y_stride, width, ahead, e);
        break;
      case 3:
        PanelRows<3>(dot, xr, inputs, panel, yr, y_stride, width, ahead, e);
        break;
      default:
        PanelRows<4>(dot, xr, inputs, panel, yr, y_stride, width, ahead, e);
        break;
    }
  }
}

template <typename Out>
void Bf16Dense::RunTo(const uint16_t* x, int64_t rows, Out* y, int threads,
                      Bf16Addend addend) const {
  const int64_t p_count = panels();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t p = 0; p < p_count; ++p) PanelTo(p, x, rows, y, outputs, addend);
}

void Bf16Dense::RunPanel(int64_t p, const uint16_t* x, int64_t rows, float* y,
                         int64_t y_stride) const {
  PanelTo(p, x, rows, y, y_stride, {});
}

void Bf16Dense::Run(const uint16_t* x, int64_t rows, float* y, int threads) const {
  RunTo(x, rows, y, threads, {});
}
void Bf16Dense::Run(const uint16_t* x, int64_t rows, uint16_t* y, int threads,
                    Bf16Addend addend) const {
  RunTo(x, rows, y, threads, addend);
}

}  // namespace ntpb::onednn
