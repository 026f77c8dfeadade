#include "src/backends/onednn/bf16_depthwise.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "src/backends/onednn/bf16_dense.h"
#include "src/backends/onednn/native_vectors.h"

namespace ntpb::onednn {
namespace {

constexpr int64_t kBlock = 2 * kLanes;
// Output pixels a pass keeps in registers: two accumulators each, two weight vectors and a
// loaded block besides.
constexpr int kPixels = kRegisters >= 32 ? 8 : 4;
typedef uint32_t UInts __attribute__((vector_size(kLanes * 4)));

// A block's channels as 32-bit words (channel 2i in word i's low half, 2i + 1 in its high one);
// NHWC rows of an odd channel count are only 2-byte aligned. Intrinsics, not a may_alias vector
// type: through one GCC kept every accumulator on the stack.
template <bool kTail>
inline Ints LoadBlock(const uint16_t* p, int64_t count) {
  if constexpr (!kTail) {
#if defined(__AVX512F__)
    return (Ints)_mm512_loadu_si512(p);
#elif defined(__AVX__)
    return (Ints)_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
#else
    return (Ints)_mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
#endif
  }
#if defined(__AVX512BW__)
  return (Ints)_mm512_maskz_loadu_epi16(static_cast<__mmask32>((uint64_t{1} << count) - 1), p);
#else
  uint16_t buffer[kBlock] = {};
  std::memcpy(buffer, p, static_cast<size_t>(count) * sizeof(uint16_t));
  Ints words;
  std::memcpy(&words, buffer, sizeof words);
  return words;
#endif
}

template <bool kTail>
inline void StoreBlock(uint16_t* p, Ints words, int64_t count) {
  if constexpr (!kTail) {
    std::memcpy(p, &words, sizeof words);
    return;
  }
#if defined(__AVX512BW__)
  _mm512_mask_storeu_epi16(p, static_cast<__mmask32>((uint64_t{1} << count) - 1), (__m512i)words);
#else
  uint16_t buffer[kBlock];
  std::memcpy(buffer, &words, sizeof words);
  std::memcpy(p, buffer, static_cast<size_t>(count) * sizeof(uint16_t));
#endif
}

// f32 bits plus what rounds their upper half to nearest even (RoundToBf16's rounding).
inline UInts Rounded(Floats f) {
  const UInts bits = (UInts)f;
  return bits + 0x7FFFu + ((bits >> 16) & 1u);
}

// Even channels' sums and odd channels' sums rounded to bf16 and interleaved back.
inline Ints PackBf16(Floats even, Floats odd) {
  return (Ints)((Rounded(even) >> 16) | (Rounded(odd) & 0xFFFF0000u));
}

inline Floats Clamp(Floats v, Floats low, Floats high) {
  v = v < low ? low : v;
  return v > high ? high : v;
}

// One channel block of an output row: where its input, weights, bias and output start.
struct BlockRow {
  const uint16_t* x_image;  // the image's first pixel, at the block's first channel
  uint16_t* y_row;          // the output row's first pixel, at the block's first channel
  const float* weights;     // tap 0 of the block; tap t at t * tap_stride
  const float* bias;
  int64_t oh, count;
};

// The sums of P output pixels of a block, its even channels and its odd ones, from the bias on.
template <int P>
struct PixelSums {
  Floats even[P], odd[P];

  explicit PixelSums(const float* bias) {
    const Floats bias_even = LoadFloats(bias), bias_odd = LoadFloats(bias + kLanes);
#pragma GCC unroll 16
    for (int p = 0; p < P; ++p) {
      even[p] = bias_even;
      odd[p] = bias_odd;
    }
  }

  // Clamped, rounded to bf16 and stored at output pixels ow0 .. ow0 + P - 1.
  template <bool kTail>
  void Store(const Bf16Depthwise& d, const BlockRow& r, int64_t ow0) const {
    const Floats low = Floats{} + d.low, high = Floats{} + d.high;
#pragma GCC unroll 16
    for (int p = 0; p < P; ++p) {
      StoreBlock<kTail>(r.y_row + (ow0 + p) * d.shape.channels,
                        PackBf16(Clamp(even[p], low, high), Clamp(odd[p], low, high)), r.count);
    }
  }
};

// P output pixels of the row from column ow0; kBorder: some taps fall in the padding and are
// tested; kTail: the block has fewer channels than a vector pair.
template <int P, bool kBorder, bool kTail>
void Pixels(const Bf16Depthwise& d, const BlockRow& r, int64_t ow0) {
  const Bf16DepthwiseShape& s = d.shape;
  const int64_t c = s.channels, in_h = s.in_h, in_w = s.in_w, kernel_h = s.kernel_h,
                kernel_w = s.kernel_w, step = s.stride_w * c, count = r.count;
  const int64_t tap_stride = d.blocks() * kBlock;
  PixelSums<P> sums(r.bias);
  const Ints high_halves = Ints{} + static_cast<int32_t>(0xFFFF0000u);
  for (int64_t kh = 0; kh < kernel_h; ++kh) {
    const int64_t ih = r.oh * s.stride_h - s.pad_top + kh * s.dilation_h;
    if (ih < 0 || ih >= in_h) continue;
    const float* w = r.weights + kh * kernel_w * tap_stride;
    const int64_t iw0 = ow0 * s.stride_w - s.pad_left;
    const uint16_t* x = r.x_image + (ih * in_w + iw0) * c;
    for (int64_t kw = 0; kw < kernel_w; ++kw, w += tap_stride) {
      const Floats w_even = LoadFloats(w), w_odd = LoadFloats(w + kLanes);
      const int64_t shift = kw * s.dilation_w;
      const uint16_t* xk = x + shift * c;
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) {
        if constexpr (kBorder) {
          const int64_t iw = iw0 + shift + p * s.stride_w;
          if (iw < 0 || iw >= in_w) continue;
        }
        const Ints words = LoadBlock<kTail>(xk + p * step, count);
        sums.even[p] = MulAdd((Floats)(words << 16), w_even, sums.even[p]);
        sums.odd[p] = MulAdd((Floats)(words & high_halves), w_odd, sums.odd[p]);
      }
    }
  }
  sums.template Store<kTail>(d, r, ow0);
}

// The same for a kernel KW wide at stride S, dilation 1, inside the row: each input pixel is
// widened once and multiplied by the taps of the output pixels it is under (widening it once per
// tap, as Pixels does, took two thirds of a 3x3 layer's instructions: 2.5x the time at 32
// channels, 112x112, on a 2-core Intel Xeon guest).
template <int P, int KW, int S, bool kTail>
void PixelsWidenedOnce(const Bf16Depthwise& d, const BlockRow& r, int64_t ow0) {
  const Bf16DepthwiseShape& s = d.shape;
  const int64_t c = s.channels, count = r.count, tap_stride = d.blocks() * kBlock;
  PixelSums<P> sums(r.bias);
  const Ints high_halves = Ints{} + static_cast<int32_t>(0xFFFF0000u);
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    const int64_t ih = r.oh * s.stride_h - s.pad_top + kh * s.dilation_h;
    if (ih < 0 || ih >= s.in_h) continue;
    const float* w = r.weights + kh * KW * tap_stride;
    const uint16_t* x = r.x_image + (ih * s.in_w + ow0 * S - s.pad_left) * c;
#pragma GCC unroll 32
    for (int i = 0; i < (P - 1) * S + KW; ++i) {  // input column ow0 * S - pad_left + i
      const Ints words = LoadBlock<kTail>(x + i * c, count);
      const Floats low_half = (Floats)(words << 16), high_half = (Floats)(words & high_halves);
#pragma GCC unroll 16
      for (int kw = 0; kw < KW; ++kw) {
        // The output pixel whose tap kw this column is, if any.
        if ((i - kw) % S != 0 || i < kw || (i - kw) / S >= P) continue;
        const int p = (i - kw) / S;
        sums.even[p] = MulAdd(low_half, LoadFloats(w + kw * tap_stride), sums.even[p]);
        sums.odd[p] = MulAdd(high_half, LoadFloats(w + kw * tap_stride + kLanes), sums.odd[p]);
      }
    }
  }
  sums.template Store<kTail>(d, r, ow0);
}

template <int KW, int S, bool kTail>
int64_t InteriorWidenedOnce(const Bf16Depthwise& d, const BlockRow& r, int64_t ow, int64_t end) {
  for (; ow + kPixels <= end; ow += kPixels) PixelsWidenedOnce<kPixels, KW, S, kTail>(d, r, ow);
  constexpr int kHalf = kPixels / 2;
  for (; ow + kHalf <= end; ow += kHalf) PixelsWidenedOnce<kHalf, KW, S, kTail>(d, r, ow);
  return ow;
}

// The interior P pixels at a time from `ow`, up to `end`; returns where it stopped.
template <bool kTail>
int64_t Interior(const Bf16Depthwise& d, const BlockRow& r, int64_t ow, int64_t end) {
  const Bf16DepthwiseShape& s = d.shape;
  if (s.dilation_w == 1 && s.kernel_w == 3 && s.stride_w == 1) {
    return InteriorWidenedOnce<3, 1, kTail>(d, r, ow, end);
  }
  if (s.dilation_w == 1 && s.kernel_w == 3 && s.stride_w == 2) {
    return InteriorWidenedOnce<3, 2, kTail>(d, r, ow, end);
  }
  if (s.dilation_w == 1 && s.kernel_w == 5 && s.stride_w == 1) {
    return InteriorWidenedOnce<5, 1, kTail>(d, r, ow, end);
  }
  if (s.dilation_w == 1 && s.kernel_w == 5 && s.stride_w == 2) {
    return InteriorWidenedOnce<5, 2, kTail>(d, r, ow, end);
  }
  for (; ow + kPixels <= end; ow += kPixels) Pixels<kPixels, false, kTail>(d, r, ow);
  return ow;
}

// One output row of one channel block: the border columns tap by tap, the interior several
// pixels at a time.
template <bool kTail>
void Row(const Bf16Depthwise& d, const BlockRow& r) {
  const Bf16DepthwiseShape& s = d.shape;
  // Columns whose taps all fall inside the row: [interior_begin, interior_end).
  const int64_t interior_begin = std::min(s.out_w, (s.pad_left + s.stride_w - 1) / s.stride_w);
  const int64_t last = s.in_w - 1 + s.pad_left - (s.kernel_w - 1) * s.dilation_w;
  const int64_t interior_end =
      std::clamp<int64_t>(last < 0 ? 0 : last / s.stride_w + 1, interior_begin, s.out_w);
  int64_t ow = 0;
  for (; ow < interior_begin; ++ow) Pixels<1, true, kTail>(d, r, ow);
  ow = Interior<kTail>(d, r, ow, interior_end);
  for (; ow < interior_end; ++ow) Pixels<1, false, kTail>(d, r, ow);
  for (; ow < s.out_w; ++ow) Pixels<1, true, kTail>(d, r, ow);
}

// Where channel c sits in its block: even channels first, then odd ones.
int64_t BlockPosition(int64_t c) {
  const int64_t j = c % kBlock;
  return c / kBlock * kBlock + (j % 2) * kLanes + j / 2;
}

}  // namespace

Bf16Depthwise::Bf16Depthwise(const Bf16DepthwiseShape& s, const std::vector<float>& w,
                             const std::vector<float>& b)
    : shape(s), block(kBlock) {
  const int64_t taps = s.kernel_h * s.kernel_w, padded = blocks() * kBlock;
  weights.assign(static_cast<size_t>(taps * padded), 0.0f);
  bias.assign(static_cast<size_t>(padded), 0.0f);
  for (int64_t c = 0; c < s.channels; ++c) {
    const int64_t at = BlockPosition(c);
    for (int64_t t = 0; t < taps; ++t) {
      // Rounded as a bf16 convolution's weights are, then kept widened (exactly).
      const uint32_t bits = uint32_t{RoundToBf16(w[static_cast<size_t>(c * taps + t)])} << 16;
      std::memcpy(&weights[static_cast<size_t>(t * padded + at)], &bits, sizeof bits);
    }
    if (!b.empty()) bias[static_cast<size_t>(at)] = b[static_cast<size_t>(c)];
  }
}

void Bf16Depthwise::Run(const uint16_t* x, uint16_t* y, int threads) const {
  const int64_t block_count = blocks(), items = shape.batch * shape.out_h * block_count;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < items; ++i) {
    const int64_t row = i / block_count, n = row / shape.out_h, cb = i % block_count;
    const int64_t c = shape.channels;
    const BlockRow r{x + n * shape.in_h * shape.in_w * c + cb * kBlock,
                     y + row * shape.out_w * c + cb * kBlock,
                     weights.data() + cb * kBlock,
                     bias.data() + cb * kBlock,
                     row % shape.out_h,
                     std::min(kBlock, c - cb * kBlock)};
    if (r.count == kBlock) {
      Row<false>(*this, r);
    } else {
      Row<true>(*this, r);
    }
  }
}

}  // namespace ntpb::onednn
