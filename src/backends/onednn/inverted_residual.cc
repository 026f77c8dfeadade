#include "src/backends/onednn/inverted_residual.h"

#include <omp.h>

#include <algorithm>

#include "src/backends/onednn/native_vectors.h"

namespace ntpb::onednn {
namespace {

// Three quarters of the vector registers accumulate; the rest hold weights and a broadcast.
constexpr int kAccumulators = kRegisters * 3 / 4;

int64_t WholeVectors(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

// max(low, min(v, high)): a relu or relu6, or nothing (infinite bounds).
inline Floats Clamp(Floats v, Floats low, Floats high) {
#if defined(__AVX512F__)
  return (Floats)_mm512_max_ps(_mm512_min_ps((__m512)v, (__m512)high), (__m512)low);
#elif defined(__AVX__)
  return (Floats)_mm256_max_ps(_mm256_min_ps((__m256)v, (__m256)high), (__m256)low);
#else
  return (Floats)_mm_max_ps(_mm_min_ps((__m128)v, (__m128)high), (__m128)low);
#endif
}

// Where a 1x1 convolution reads and writes: `pixels` pixels of x (one every x_stride floats,
// `inputs` channels each), weights [inputs][w_stride] (w_stride floats: `outputs` rounded up to
// whole vectors, zero past them), y (one pixel every y_stride floats, `outputs` of them
// written, one vector of them every y_vector_stride floats: kLanes where y is NHWC) and, when
// set, `residual` laid out as y, added last.
struct OneByOne {
  const float* x;
  int64_t x_stride, inputs;
  const float* w;
  int64_t w_stride, outputs;
  const float* bias;
  Floats low, high;
  const float* residual;
  float* y;
  int64_t y_stride, y_vector_stride;
};

#if defined(__AVX512F__) && defined(__AVX512VL__)
// A last vector of output channels at most half used (24 outputs: 16 + 8) accumulates in a
// 256-bit register: where a 512-bit FMA takes a 256-bit unit twice (Zen 4) the 8 lanes cost half
// a padded 16; where it has a 512-bit unit of its own (Intel's server cores) one instruction,
// as the padded vector did. Measured on MobileNet v2's 24-output projections (2-core Zen 4 VM,
// tools/inverted_residual_tiles.cc ROUTE=own): the projection -27% to -30%, features.3 -11%.
constexpr bool kHalfVectors = true;
typedef float HalfFloats __attribute__((vector_size(32), aligned(4)));
inline HalfFloats LowerHalf(Floats v) { return (HalfFloats)_mm512_castps512_ps256((__m512)v); }
inline HalfFloats LoadHalf(const float* p) { return (HalfFloats)_mm256_loadu_ps(p); }
inline HalfFloats MulAddHalf(HalfFloats a, HalfFloats b, HalfFloats c) {
  return (HalfFloats)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
}
inline HalfFloats ClampHalf(HalfFloats v, Floats low, Floats high) {
  return (HalfFloats)_mm256_max_ps(_mm256_min_ps((__m256)v, (__m256)LowerHalf(high)),
                                   (__m256)LowerHalf(low));
}
inline HalfFloats LoadFirstHalf(const float* p, int count) {
  return (HalfFloats)_mm256_maskz_loadu_ps(static_cast<__mmask8>((1u << count) - 1), p);
}
inline void StoreFirstHalf(float* p, HalfFloats v, int count) {
  _mm256_mask_storeu_ps(p, static_cast<__mmask8>((1u << count) - 1), (__m256)v);
}
#else
constexpr bool kHalfVectors = false;  // no narrower vector with the same FMA rate per lane
typedef Floats HalfFloats;
inline HalfFloats LowerHalf(Floats v) { return v; }
inline HalfFloats LoadHalf(const float* p) { return LoadFloats(p); }
inline HalfFloats MulAddHalf(HalfFloats a, HalfFloats b, HalfFloats c) { return MulAdd(a, b, c); }
inline HalfFloats ClampHalf(HalfFloats v, Floats low, Floats high) { return Clamp(v, low, high); }
inline HalfFloats LoadFirstHalf(const float* p, int count) { return LoadFirstFloats(p, count); }
inline void StoreFirstHalf(float* p, HalfFloats v, int count) { StoreFirstFloats(p, v, count); }
#endif
constexpr int kHalfLanes = static_cast<int>(sizeof(HalfFloats) / sizeof(float));

// kPixels pixels x kVectors vectors of output channels from `first` on, in registers; with
// kHalfLast the last of them a half vector (its lanes past the outputs are never computed).
template <int kPixels, int kVectors, bool kHalfLast>
inline void Tile(const OneByOne& c, int64_t pixel, int64_t first) {
  constexpr int kFull = kHalfLast ? kVectors - 1 : kVectors;
  Floats acc[kPixels][kVectors];
  HalfFloats half[kPixels];
  const float* const half_at = c.w + first + kFull * kLanes;  // the half vector's weights
#pragma GCC unroll 16
  for (int p = 0; p < kPixels; ++p) {
#pragma GCC unroll 16
    for (int v = 0; v < kFull; ++v) acc[p][v] = LoadFloats(c.bias + first + v * kLanes);
    if constexpr (kHalfLast) half[p] = LoadHalf(c.bias + first + kFull * kLanes);
  }
  const float* x = c.x + pixel * c.x_stride;
  for (int64_t k = 0; k < c.inputs; ++k) {
    Floats w[kVectors];
    HalfFloats w_half;
#pragma GCC unroll 16
    for (int v = 0; v < kFull; ++v) w[v] = LoadFloats(c.w + k * c.w_stride + first + v * kLanes);
    if constexpr (kHalfLast) w_half = LoadHalf(half_at + k * c.w_stride);
#pragma GCC unroll 16
    for (int p = 0; p < kPixels; ++p) {
      const Floats xv = BroadcastFloat(x + p * c.x_stride + k);
#pragma GCC unroll 16
      for (int v = 0; v < kFull; ++v) acc[p][v] = MulAdd(xv, w[v], acc[p][v]);
      if constexpr (kHalfLast) half[p] = MulAddHalf(LowerHalf(xv), w_half, half[p]);
    }
  }
  const Floats low = c.low, high = c.high;  // not read again after each store
#pragma GCC unroll 16
  for (int p = 0; p < kPixels; ++p) {
    const int64_t at = (pixel + p) * c.y_stride + first / kLanes * c.y_vector_stride;
#pragma GCC unroll 16
    for (int v = 0; v < kFull; ++v) {
      const int64_t lanes = c.outputs - first - v * kLanes;
      Floats r = Clamp(acc[p][v], low, high);
      if (lanes >= kLanes) {
        if (c.residual) r += LoadFloats(c.residual + at + v * c.y_vector_stride);
        StoreFloats(c.y + at + v * c.y_vector_stride, r);
      } else if (lanes > 0) {
        const int count = static_cast<int>(lanes);
        if (c.residual) r += LoadFirstFloats(c.residual + at + v * c.y_vector_stride, count);
        StoreFirstFloats(c.y + at + v * c.y_vector_stride, r, count);
      }
    }
    if constexpr (kHalfLast) {
      const int64_t offset = at + kFull * c.y_vector_stride;
      const int count = static_cast<int>(c.outputs - first - kFull * kLanes);  // 1..kHalfLanes
      HalfFloats r = ClampHalf(half[p], low, high);
      if (c.residual) r += LoadFirstHalf(c.residual + offset, count);
      StoreFirstHalf(c.y + offset, r, count);
    }
  }
}

// Every pixel, the outputs (w_stride of them, whole vectors) in blocks of kVectors vectors,
// kAccumulators / kVectors pixels at a time, the row's last ones in tiles of a half, a quarter,
// then one. The last block's last vector is a half one where the outputs leave it at most half
// used.
template <int kVectors>
void Blocks(const OneByOne& c, int64_t pixels) {
  constexpr int kPixels = kAccumulators / kVectors;
  const int64_t last = c.w_stride - kVectors * kLanes;
  const bool half_last = kHalfVectors && c.outputs - (c.w_stride - kLanes) <= kHalfLanes;
  auto block = [&](int64_t first, auto half) {
    constexpr bool kHalf = decltype(half)::value;
    int64_t p = 0;
    auto tiles = [&](auto size) {
      constexpr int kSize = decltype(size)::value;
      for (; p + kSize <= pixels; p += kSize) Tile<kSize, kVectors, kHalf>(c, p, first);
    };
    tiles(std::integral_constant<int, kPixels>());
    tiles(std::integral_constant<int, std::max(1, kPixels / 2)>());
    tiles(std::integral_constant<int, std::max(1, kPixels / 4)>());
    tiles(std::integral_constant<int, 1>());
  };
  for (int64_t first = 0; first < last; first += kVectors * kLanes) {
    block(first, std::false_type());
  }
  if (half_last) {
    block(last, std::true_type());
  } else {
    block(last, std::false_type());
  }
}

// The blocks of the most vectors, up to 4, that divide the outputs evenly.
void OneByOneRow(const OneByOne& c, int64_t pixels) {
  const int64_t vectors = c.w_stride / kLanes;
  if (vectors % 4 == 0) return Blocks<4>(c, pixels);
  if (vectors % 3 == 0) return Blocks<3>(c, pixels);
  if (vectors % 2 == 0) return Blocks<2>(c, pixels);
  Blocks<1>(c, pixels);
}

// kPixels output pixels of a 3x3 depthwise row from `o` on, one vector of channels: `rows` that
// vector's three input rows, one pixel every kLanes floats (blocked: the taps are constant
// offsets from three pointers, where ep floats apart they took a register each and GCC moved
// them through vector registers), each input column they share loaded once (stride 1: 6 loads a
// row for 4 pixels, not 12); y NHWC, ep floats a pixel.
template <int kStride, int kPixels>
inline void DepthwisePixels(const float* const rows[3], const Floats w[9], Floats bias, int64_t ep,
                            int64_t o, Floats low, Floats high, float* y) {
  Floats acc[kPixels];
#pragma GCC unroll 8
  for (int q = 0; q < kPixels; ++q) acc[q] = bias;
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) {
    const float* r = rows[i] + kStride * o * kLanes;  // the first pixel's left tap
#pragma GCC unroll 16
    for (int column = 0; column < kStride * (kPixels - 1) + 3; ++column) {
      const Floats v = LoadFloats(r + column * kLanes);
#pragma GCC unroll 8
      for (int q = 0; q < kPixels; ++q) {
        const int tap = column - kStride * q;
        if (tap >= 0 && tap < 3) acc[q] = MulAdd(v, w[3 * i + tap], acc[q]);
      }
    }
  }
#pragma GCC unroll 8
  for (int q = 0; q < kPixels; ++q) StoreFloats(y + (o + q) * ep, Clamp(acc[q], low, high));
}

// One output row of the 3x3 depthwise convolution: `rows` the three input rows, blocked
// ([ep / kLanes][width + 2][kLanes], a zero pixel either side of each block), weights [9][ep],
// clamped into y (NHWC); 4 pixels at a time, then one.
template <int kStride>
void DepthwiseRow(const float* const rows[3], int64_t padded_width, const float* weights,
                  const float* bias, int64_t ep, int64_t out_w, Floats low, Floats high, float* y) {
  for (int64_t c = 0; c < ep; c += kLanes) {
    Floats w[9];
    for (int t = 0; t < 9; ++t) w[t] = LoadFloats(weights + t * ep + c);
    const Floats b = LoadFloats(bias + c);
    const int64_t block = c / kLanes * padded_width * kLanes;
    const float* const at[3] = {rows[0] + block, rows[1] + block, rows[2] + block};
    int64_t o = 0;
    for (; o + 4 <= out_w; o += 4) DepthwisePixels<kStride, 4>(at, w, b, ep, o, low, high, y + c);
    for (; o < out_w; ++o) DepthwisePixels<kStride, 1>(at, w, b, ep, o, low, high, y + c);
  }
}

}  // namespace

bool InvertedResidualBuiltForAvx512() { return kLanes == 16; }

InvertedResidual::InvertedResidual(const InvertedResidualShape& shape,
                                   const FoldedConvolution& expand,
                                   const FoldedConvolution& depthwise,
                                   const FoldedConvolution& project, int threads)
    : shape_(shape),
      threads_(std::max(1, threads)),
      expanded_padded_(WholeVectors(shape.expanded)),
      outputs_padded_(WholeVectors(shape.outputs)) {
  const int64_t c = shape.channels, e = shape.expanded, o = shape.outputs;
  const int64_t ep = expanded_padded_, op = outputs_padded_;
  expand_.assign(static_cast<size_t>(c * ep), 0.0f);
  depthwise_.assign(static_cast<size_t>(9 * ep), 0.0f);
  project_.assign(static_cast<size_t>(e * op), 0.0f);
  expand_bias_.assign(static_cast<size_t>(ep), 0.0f);
  depthwise_bias_.assign(static_cast<size_t>(ep), 0.0f);
  project_bias_.assign(static_cast<size_t>(op), 0.0f);
  for (int64_t f = 0; f < e; ++f) {
    for (int64_t i = 0; i < c; ++i) expand_[i * ep + f] = expand.weights[f * c + i];
    for (int64_t t = 0; t < 9; ++t) depthwise_[t * ep + f] = depthwise.weights[f * 9 + t];
    for (int64_t g = 0; g < o; ++g) project_[f * op + g] = project.weights[g * e + f];
  }
  std::copy(expand.bias.begin(), expand.bias.end(), expand_bias_.begin());
  std::copy(depthwise.bias.begin(), depthwise.bias.end(), depthwise_bias_.begin());
  std::copy(project.bias.begin(), project.bias.end(), project_bias_.begin());
  const FoldedConvolution* convolutions[3] = {&expand, &depthwise, &project};
  for (int i = 0; i < 3; ++i) {
    clamps_[i][0] = convolutions[i]->low;
    clamps_[i][1] = convolutions[i]->high;
  }
  rows_.assign(static_cast<size_t>(threads_ * thread_floats() + ring_floats() / 3), 0.0f);
}

int64_t InvertedResidual::ring_floats() const { return 3 * (shape_.width + 2) * expanded_padded_; }

int64_t InvertedResidual::thread_floats() const {
  return ring_floats() + shape_.out_width() * expanded_padded_;
}

int64_t InvertedResidual::workspace_bytes() const {
  return static_cast<int64_t>(rows_.size() * sizeof(float));
}

// Output rows [first, end) of the batch's out_height() each, with one thread's rows at `own`.
void InvertedResidual::Band(int64_t first, int64_t end, float* own, const float* x,
                            float* y) const {
  const InvertedResidualShape& s = shape_;
  const int64_t ep = expanded_padded_, op = outputs_padded_, padded_row = (s.width + 2) * ep;
  const int64_t out_h = s.out_height(), out_w = s.out_width();
  float* const ring = own;
  float* const depthwise_row = own + ring_floats();
  const float* const zero_row = rows_.data() + threads_ * thread_floats();
  auto clamp = [&](int i, Floats* low, Floats* high) {
    *low = Floats{} + clamps_[i][0];
    *high = Floats{} + clamps_[i][1];
  };
  // The expansion writes its rows blocked, [ep / kLanes][width + 2][kLanes] (DepthwisePixels);
  // the projection reads the depthwise row and writes y NHWC.
  OneByOne expand{};
  expand.x_stride = expand.inputs = s.channels;
  expand.w = expand_.data();
  expand.w_stride = expand.outputs = ep;
  expand.bias = expand_bias_.data();
  expand.y_stride = kLanes;
  expand.y_vector_stride = (s.width + 2) * kLanes;
  clamp(0, &expand.low, &expand.high);
  Floats dw_low, dw_high;
  clamp(1, &dw_low, &dw_high);
  OneByOne project{};
  project.x = depthwise_row;
  project.x_stride = ep;
  project.inputs = s.expanded;
  project.w = project_.data();
  project.w_stride = op;
  project.outputs = project.y_stride = s.outputs;
  project.bias = project_bias_.data();
  project.y_vector_stride = kLanes;
  clamp(2, &project.low, &project.high);
  int64_t held[3] = {-1, -1, -1};  // the input row (of the whole batch) each ring slot holds
  auto expanded = [&](int64_t image, int64_t r) -> const float* {
    if (r < 0 || r >= s.height) return zero_row;
    const int64_t row = image * s.height + r, slot = r % 3;
    float* const at = ring + slot * padded_row;
    if (held[slot] != row) {
      expand.x = x + row * s.width * s.channels;
      expand.y = at + kLanes;  // after each block's zero pixel on the left
      OneByOneRow(expand, s.width);
      held[slot] = row;
    }
    return at;
  };
  for (int64_t g = first; g < end; ++g) {
    const int64_t image = g / out_h, out_row = g % out_h;
    const float* rows[3];
    for (int i = 0; i < 3; ++i) rows[i] = expanded(image, s.stride * out_row - 1 + i);
    if (s.stride == 1) {
      DepthwiseRow<1>(rows, s.width + 2, depthwise_.data(), depthwise_bias_.data(), ep, out_w,
                      dw_low, dw_high, depthwise_row);
    } else {
      DepthwiseRow<2>(rows, s.width + 2, depthwise_.data(), depthwise_bias_.data(), ep, out_w,
                      dw_low, dw_high, depthwise_row);
    }
    const int64_t y_at = g * out_w * s.outputs;
    const float* const residual = s.residual ? x + y_at : nullptr;  // same shape as y
    project.y = y + y_at;
    project.residual = residual;
    OneByOneRow(project, out_w);
  }
}

void InvertedResidual::Run(const float* x, float* y) {
  const int64_t items = shape_.batch * shape_.out_height();
#pragma omp parallel num_threads(threads_)
  {
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    Band(items * t / n, items * (t + 1) / n, rows_.data() + t * thread_floats(), x, y);
  }
}

}  // namespace ntpb::onednn
