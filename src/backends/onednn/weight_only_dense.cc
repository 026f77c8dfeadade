#include "src/backends/onednn/weight_only_dense.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "ntpbench/error.h"
#include "src/backends/onednn/native_vectors.h"

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define NTPB_WEIGHT_ONLY_INTEGER_DOT 1
#endif

namespace ntpb::onednn {
namespace {

constexpr int64_t kPanel = WeightOnlyDense::kPanel;
constexpr int kVectors = static_cast<int>(kPanel / kLanes);

// Vectors of a panel row one pass takes for R rows: their accumulators, the widened weight and
// the rows' inputs in registers; the group's scales are read from the L1 as each weight is
// scaled. One row takes whole panel rows (64 outputs) in one pass: a pass over half rows read a
// panel twice, and a panel of 8192 inputs (512 KiB in w8) does not stay in a 512 KiB L2 between
// passes (decode of an 8192 x 8192 w8 layer read 9.7 GB/s on a Zen 3 VM).
template <int R>
constexpr int VectorsPerPass() {
  int v = kVectors;
  while (v > 1 && v * R + R + 2 > kRegisters) v /= 2;
  return v;
}

// Whether R rows of `vectors` accumulators each fit the registers twice over (plus a weight
// vector and the rows' inputs): then a group's products are summed unscaled and scaled once at
// the group's end, one multiply per weight vector fewer (w8 on AVX-512: 4 instructions per 16
// weights to 3).
template <int R, int kVectorsHeld>
constexpr bool ScaleAfterGroup() {
  return 2 * kVectorsHeld * R + R + 2 <= kRegisters;
}

// kLanes bytes widened to 32-bit integers, sign-extended (w8) or not (w4), in one instruction
// (GCC's __builtin_convertvector of a byte vector loaded the bytes one by one).
template <bool kSigned>
inline Ints WidenBytes(const uint8_t* p) {
#if defined(__AVX512F__)
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return (Ints)(kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b));
#elif defined(__AVX2__)
  const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return (Ints)(kSigned ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b));
#else
  Ints v;
  for (int i = 0; i < kLanes; ++i) {
    v[i] = kSigned ? static_cast<int32_t>(static_cast<int8_t>(p[i])) : static_cast<int32_t>(p[i]);
  }
  return v;
#endif
}

// A w4 weight vector from the nibble in bits 3..0 of each lane, less kNibbleOffset: with
// AVX-512 a permute from a 16-entry table of n - 8 (it reads those bits alone, so no mask, no
// conversion and no offset: 7 instructions per 32 weights instead of 8); elsewhere n, masked and
// converted, the offset taken off once per group.
#if defined(__AVX512F__)
constexpr float kNibbleOffset = 0;
inline Floats NibbleWeights(const Ints& lanes) {
  const __m512 table = _mm512_setr_ps(-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7);
  return (Floats)_mm512_permutexvar_ps((__m512i)lanes, table);
}
#else
constexpr float kNibbleOffset = 8;
inline Floats NibbleWeights(const Ints& lanes) {
  return __builtin_convertvector(lanes & 15, Floats);
}
#endif

// Asks for the scales of the group `ahead` bytes of weights past this one.
inline void PrefetchScalesAhead(const float* scales, int64_t group_bytes, int64_t ahead) {
  if (ahead <= 0) return;
  const char* s = reinterpret_cast<const char*>(scales + ahead / group_bytes * kPanel);
  for (int64_t b = 0; b < kPanel * 4; b += 64) PrefetchIntoL2(s + b);
}

// Asks for the cache line `ahead` bytes past `line` (a panel's 64 bytes being widened) into the
// L2, one line per line widened. Widening takes 3 instructions per 8 (w4) or 16 (w8) bytes, and
// the out-of-order window then reaches fewer lines ahead than a plain read does: on a 2-core Intel
// Xeon guest (Sapphire Rapids class) a one-core loop widening and multiplying a 256 MiB stream
// read 5.7 GB/s without, 13.2 with a prefetch 8 KiB ahead into the L2 (a plain read: 16 GB/s).
// w4 read 20 GB/s on two cores with a group's 16 lines asked for at once, 23 with one a line.
// kAhead: the loops are compiled with and without it rather than testing `ahead` in them.
template <bool kAhead>
inline void PrefetchLineAhead(const uint8_t* line, int64_t ahead) {
  if constexpr (kAhead) PrefetchIntoL2(line + ahead);
}

// Stores `columns` (at most kLanes, none if not positive) of a row's accumulator.
inline void StoreColumns(Floats acc, float* y, int64_t columns) {
  if (columns <= 0) return;
  float sums[kLanes];
  std::memcpy(sums, &acc, sizeof sums);
  std::memcpy(y, sums, sizeof(float) * std::min<int64_t>(columns, kLanes));
}

// y[r][0..width) = sum_k x[r][k] * W[k][panel's outputs] for R rows of a w8 panel, in column
// passes.
template <int R, bool kAhead>
inline __attribute__((always_inline)) void PanelRows8(const float* x, int64_t k_len, int64_t groups,
                                                      const uint8_t* panel, const float* scales,
                                                      float* y, int64_t y_stride, int64_t width,
                                                      int64_t ahead) {
  constexpr int kPass = VectorsPerPass<R>();
  for (int v0 = 0; v0 < kVectors && v0 * kLanes < width; v0 += kPass) {
    Floats acc[R][kPass];
    for (int r = 0; r < R; ++r) {
      for (int q = 0; q < kPass; ++q) acc[r][q] = Floats{};
    }
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t k_end = std::min(k_len, (g + 1) * kWeightGroup);
      const int64_t pass_ahead = v0 == 0 ? ahead : 0;  // the first pass brings the panel in
      PrefetchScalesAhead(scales + g * kPanel, kWeightGroup * kPanel, pass_ahead);
      if constexpr (ScaleAfterGroup<R, kPass>()) {
        Floats part[R][kPass];
        for (int r = 0; r < R; ++r) {
          for (int q = 0; q < kPass; ++q) part[r][q] = Floats{};
        }
        for (int64_t k = g * kWeightGroup; k < k_end; ++k) {
          const uint8_t* row = panel + k * kPanel + v0 * kLanes;
          PrefetchLineAhead<kAhead>(row, pass_ahead);
          float xr[R];
          for (int r = 0; r < R; ++r) xr[r] = x[r * k_len + k];
          for (int q = 0; q < kPass; ++q) {
            const Floats w = __builtin_convertvector(WidenBytes<true>(row + q * kLanes), Floats);
            for (int r = 0; r < R; ++r) part[r][q] += xr[r] * w;
          }
        }
        for (int q = 0; q < kPass; ++q) {
          const Floats s = LoadFloats(scales + g * kPanel + (v0 + q) * kLanes);
          for (int r = 0; r < R; ++r) acc[r][q] += part[r][q] * s;
        }
      } else {
        Floats s[kPass];
        for (int q = 0; q < kPass; ++q) s[q] = LoadFloats(scales + g * kPanel + (v0 + q) * kLanes);
        for (int64_t k = g * kWeightGroup; k < k_end; ++k) {
          const uint8_t* row = panel + k * kPanel + v0 * kLanes;
          PrefetchLineAhead<kAhead>(row, pass_ahead);
          float xr[R];
          for (int r = 0; r < R; ++r) xr[r] = x[r * k_len + k];
          for (int q = 0; q < kPass; ++q) {
            const Floats w =
                __builtin_convertvector(WidenBytes<true>(row + q * kLanes), Floats) * s[q];
            for (int r = 0; r < R; ++r) acc[r][q] += xr[r] * w;
          }
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int q = 0; q < kPass; ++q) {
        const int64_t column = (v0 + q) * kLanes;
        StoreColumns(acc[r][q], y + r * y_stride + column, width - column);
      }
    }
  }
}

#if defined(__AVX512F__)
// One row of a w4 panel (batch 1: a decode step) with AVX-512. A 64-byte load is two panel rows,
// k and k + 1, of 8 dwords each, each dword 8 nibbles: shifted by 4u, one permute from the
// nibble table gives the weights of outputs 4l + u/2 + 32(u % 2) in lane l of each half. 128
// weights take a load, 7 shifts, 8 permutes and 8 FMAs, 3 instructions per 16 (3.5 widening 16
// bytes at a time, PanelRows4). An accumulator's halves sum the even and the odd rows; they are
// folded, and the outputs put back in order, once per panel.
template <bool kAhead>
inline void PanelRow4Pairs(const float* x, int64_t k_len, int64_t groups, const uint8_t* panel,
                           const float* scales, float* y, int64_t width, int64_t ahead) {
  // Lane l's output, less u/2 and 32 (u % 2): 4 (l % 8), to pick each lane's scale.
  const __m512i lane_column =
      _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
  __m512 acc[8];
  for (int u = 0; u < 8; ++u) acc[u] = _mm512_setzero_ps();
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t k_end = std::min(k_len, (g + 1) * kWeightGroup);
    __m512 part[8];
    for (int u = 0; u < 8; ++u) part[u] = _mm512_setzero_ps();
    auto accumulate = [&part](__m512i w, __m512 xr) {
      for (int u = 0; u < 8; ++u) {
        const Ints lanes = (Ints)(u == 0 ? w : _mm512_srli_epi32(w, 4 * u));
        part[u] = _mm512_fmadd_ps(xr, (__m512)NibbleWeights(lanes), part[u]);
      }
    };
    int64_t k = g * kWeightGroup;
    PrefetchScalesAhead(scales + g * kPanel, kWeightGroup * kPanel / 2, ahead);
    for (; k + 2 <= k_end; k += 2) {
      PrefetchLineAhead<kAhead>(panel + k * kPanel / 2, ahead);
      accumulate(_mm512_loadu_si512(panel + k * kPanel / 2),
                 _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(x[k]), _mm512_set1_ps(x[k + 1])));
    }
    if (k < k_end) {  // an odd last row: its 32 bytes in the low half, x 0 in the high one
      accumulate(_mm512_maskz_loadu_epi32(0x00FF, panel + k * kPanel / 2),
                 _mm512_maskz_mov_ps(0x00FF, _mm512_set1_ps(x[k])));
    }
    const float* s = scales + g * kPanel;
    const __m512 s0 = _mm512_loadu_ps(s), s1 = _mm512_loadu_ps(s + 16);
    const __m512 s2 = _mm512_loadu_ps(s + 32), s3 = _mm512_loadu_ps(s + 48);
    for (int u = 0; u < 8; ++u) {
      const __m512i at = _mm512_add_epi32(lane_column, _mm512_set1_epi32(u / 2));
      const __m512 scale =
          u % 2 == 0 ? _mm512_permutex2var_ps(s0, at, s1) : _mm512_permutex2var_ps(s2, at, s3);
      acc[u] = _mm512_fmadd_ps(part[u], scale, acc[u]);
    }
  }
  float out[kPanel];
  for (int u = 0; u < 8; ++u) {
    float v[16];
    _mm512_storeu_ps(v, acc[u]);
    for (int l = 0; l < 8; ++l) out[4 * l + u / 2 + 32 * (u % 2)] = v[l] + v[l + 8];
  }
  std::memcpy(y, out, sizeof(float) * static_cast<size_t>(width));
}
#endif

// The same for a w4 panel: each byte vector loaded gives two weight vectors, outputs j (low
// nibbles) and j + 32 (high nibbles), so a pass holds both halves' accumulators.
template <int R, bool kAhead>
inline __attribute__((always_inline)) void PanelRows4(const float* x, int64_t k_len, int64_t groups,
                                                      const uint8_t* panel, const float* scales,
                                                      float* y, int64_t y_stride, int64_t width,
                                                      int64_t ahead) {
#if defined(__AVX512F__)
  if constexpr (R == 1) {
    PanelRow4Pairs<kAhead>(x, k_len, groups, panel, scales, y, width, ahead);
    return;
  }
#endif
  constexpr int kHalf = kVectors / 2;  // byte vectors in a row
  constexpr int kPass = std::max(1, std::min(kHalf, VectorsPerPass<R>() / 2));
  for (int v0 = 0; v0 < kHalf && v0 * kLanes < width; v0 += kPass) {
    Floats low[R][kPass], high[R][kPass];
    for (int r = 0; r < R; ++r) {
      for (int q = 0; q < kPass; ++q) low[r][q] = high[r][q] = Floats{};
    }
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t k_end = std::min(k_len, (g + 1) * kWeightGroup);
      const int64_t pass_ahead = v0 == 0 ? ahead : 0;  // the first pass brings the panel in
      PrefetchScalesAhead(scales + g * kPanel, kWeightGroup * kPanel / 2, pass_ahead);
      if constexpr (ScaleAfterGroup<R, 2 * kPass>()) {
        // sum_k x_k (n_k - 8) s = s (sum_k x_k n_k - 8 sum_k x_k): the offset (where
        // NibbleWeights leaves it) and the scale once per group.
        Floats part_low[R][kPass], part_high[R][kPass];
        float x_sum[R] = {};
        for (int r = 0; r < R; ++r) {
          for (int q = 0; q < kPass; ++q) part_low[r][q] = part_high[r][q] = Floats{};
        }
        for (int64_t k = g * kWeightGroup; k < k_end; ++k) {
          const uint8_t* row = panel + k * kPanel / 2 + v0 * kLanes;
          if (k % 2 == 0) PrefetchLineAhead<kAhead>(row, pass_ahead);
          float xr[R];
          for (int r = 0; r < R; ++r) {
            xr[r] = x[r * k_len + k];
            if constexpr (kNibbleOffset != 0) x_sum[r] += xr[r];
          }
          for (int q = 0; q < kPass; ++q) {
            const Ints i = WidenBytes<false>(row + q * kLanes);
            const Floats n_low = NibbleWeights(i);
            const Floats n_high = NibbleWeights(i >> 4);
            for (int r = 0; r < R; ++r) {
              part_low[r][q] += xr[r] * n_low;
              part_high[r][q] += xr[r] * n_high;
            }
          }
        }
        for (int q = 0; q < kPass; ++q) {
          const Floats s_low = LoadFloats(scales + g * kPanel + (v0 + q) * kLanes);
          const Floats s_high = LoadFloats(scales + g * kPanel + kPanel / 2 + (v0 + q) * kLanes);
          for (int r = 0; r < R; ++r) {
            const float offset = kNibbleOffset * x_sum[r];
            low[r][q] += (part_low[r][q] - offset) * s_low;
            high[r][q] += (part_high[r][q] - offset) * s_high;
          }
        }
        continue;
      }
      Floats s_low[kPass], s_high[kPass];
      for (int q = 0; q < kPass; ++q) {
        s_low[q] = LoadFloats(scales + g * kPanel + (v0 + q) * kLanes);
        s_high[q] = LoadFloats(scales + g * kPanel + kPanel / 2 + (v0 + q) * kLanes);
      }
      for (int64_t k = g * kWeightGroup; k < k_end; ++k) {
        const uint8_t* row = panel + k * kPanel / 2 + v0 * kLanes;
        if (k % 2 == 0) PrefetchLineAhead<kAhead>(row, pass_ahead);
        float xr[R];
        for (int r = 0; r < R; ++r) xr[r] = x[r * k_len + k];
        for (int q = 0; q < kPass; ++q) {
          const Ints i = WidenBytes<false>(row + q * kLanes);
          const Floats w_low = (NibbleWeights(i) - kNibbleOffset) * s_low[q];
          const Floats w_high = (NibbleWeights(i >> 4) - kNibbleOffset) * s_high[q];
          for (int r = 0; r < R; ++r) {
            low[r][q] += xr[r] * w_low;
            high[r][q] += xr[r] * w_high;
          }
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int q = 0; q < kPass; ++q) {
        const int64_t column = (v0 + q) * kLanes;
        StoreColumns(low[r][q], y + r * y_stride + column, width - column);
        StoreColumns(high[r][q], y + r * y_stride + kPanel / 2 + column,
                     width - kPanel / 2 - column);
      }
    }
  }
}

template <int R, int kBits>
inline __attribute__((always_inline)) void PanelRows(const float* x, int64_t k_len, int64_t groups,
                                                     const uint8_t* panel, const float* scales,
                                                     float* y, int64_t y_stride, int64_t width,
                                                     int64_t ahead) {
  if constexpr (kBits == 8) {
    if (ahead > 0) {
      PanelRows8<R, true>(x, k_len, groups, panel, scales, y, y_stride, width, ahead);
    } else {
      PanelRows8<R, false>(x, k_len, groups, panel, scales, y, y_stride, width, 0);
    }
  } else {
    if (ahead > 0) {
      PanelRows4<R, true>(x, k_len, groups, panel, scales, y, y_stride, width, ahead);
    } else {
      PanelRows4<R, false>(x, k_len, groups, panel, scales, y, y_stride, width, 0);
    }
  }
}

// Calls block(R, r0, ahead) for each block of R <= 4 rows from row r0, R a std::integral_constant:
// only the first block asks for the panel ahead (it brings the panel into the L2).
template <typename Block>
inline void ForEachRowBlock(int64_t rows, int64_t ahead, Block&& block) {
  for (int64_t r0 = 0; r0 < rows; r0 += 4) {
    if (r0 > 0) ahead = 0;
    switch (std::min<int64_t>(4, rows - r0)) {
      case 1:
        block(std::integral_constant<int, 1>{}, r0, ahead);
        break;
      case 2:
        block(std::integral_constant<int, 2>{}, r0, ahead);
        break;
      case 3:
        block(std::integral_constant<int, 3>{}, r0, ahead);
        break;
      default:
        block(std::integral_constant<int, 4>{}, r0, ahead);
        break;
    }
  }
}

template <int kBits>
void Panel(const float* x, int64_t rows, int64_t k_len, int64_t groups, const uint8_t* panel,
           const float* scales, float* y, int64_t y_stride, int64_t width, int64_t ahead) {
  ForEachRowBlock(rows, ahead, [&](auto r, int64_t r0, int64_t block_ahead) {
    PanelRows<decltype(r)::value, kBits>(x + r0 * k_len, k_len, groups, panel, scales,
                                         y + r0 * y_stride, y_stride, width, block_ahead);
  });
}

#if defined(NTPB_WEIGHT_ONLY_INTEGER_DOT)
// The integer dot kernel (kIntegerDot, weight_only_dense.h).

// Rows' inputs as the kernel takes them: for each row and group, the two s8 halves of each q
// (hi, lo; kWeightGroup bytes each, zero past the inputs), the input scale s and sum(q) (the
// weights' offset times it is taken off at once).
struct QuantizedInputs {
  int64_t groups = 0;
  std::vector<int8_t, CacheLineAllocator<int8_t>> hi, lo;  // [rows, groups * kWeightGroup]
  std::vector<float> scale;                                // [rows, groups]
  std::vector<int32_t> sum;                                // [rows, groups]
  std::vector<float> unit;  // [rows]: 1, or 2^-64 where the row was quantized as 2^64 times it
};

constexpr int kDotLanes = 16;                    // outputs of one vector: 16 lanes of 4 inputs
constexpr int kDotVectors = kPanel / kDotLanes;  // 4 a panel
constexpr int64_t kQuadsPerGroup = kWeightGroup / 4;

inline float MaxLanes(__m512 v) {
  const __m256 y = _mm256_max_ps(_mm512_castps512_ps256(v),
                                 _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  __m128 x = _mm_max_ps(_mm256_castps256_ps128(y), _mm256_extractf128_ps(y, 1));
  x = _mm_max_ps(x, _mm_movehl_ps(x, x));
  x = _mm_max_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}

inline int32_t SumLanes(__m512i v) {
  const __m256i y = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  __m128i x = _mm_add_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
  return _mm_cvtsi128_si32(x);
}

inline __mmask16 FirstLanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// One row's groups: s = max |x| / kInputLevels, q = round(x / s) (to nearest even), hi and lo.
// A NaN in a group makes its scale NaN, and an infinity its scale infinite, so the outputs it
// reaches are not finite (as f32's would be) rather than quietly wrong. A row whose largest is
// below 2^-60 is quantized as 2^64 times itself (exact; its outputs multiplied by `unit` = 2^-64
// as they are stored), so that kInputLevels / max stays finite (at 1e-36 it would be infinite and
// every q the integer indefinite) and the scales normal; a group below about 1e-34 of its row's
// largest then counts as 0, which is under f32's rounding of that row's sums.
void QuantizeRow(const float* x, int64_t k_len, int64_t groups, int8_t* hi, int8_t* lo,
                 float* scale, int32_t* q_sum, float* unit) {
  constexpr float kLevels = WeightOnlyDense::kInputLevels;
  __m512 row_max = _mm512_setzero_ps();
  for (int64_t k = 0; k < k_len; k += 16) {
    row_max =
        _mm512_max_ps(row_max, _mm512_abs_ps(_mm512_maskz_loadu_ps(FirstLanes(k_len - k), x + k)));
  }
  const float max_of_row = MaxLanes(row_max);
  const float row_unit = max_of_row > 0 && max_of_row < 0x1p-60f ? 0x1p64f : 1.0f;
  *unit = 1.0f / row_unit;
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t k0 = g * kWeightGroup;
    const __mmask16 m0 = FirstLanes(k_len - k0), m1 = FirstLanes(k_len - k0 - 16);
    const __m512 v0 = _mm512_mul_ps(_mm512_maskz_loadu_ps(m0, x + k0), _mm512_set1_ps(row_unit));
    const __m512 v1 =
        _mm512_mul_ps(_mm512_maskz_loadu_ps(m1, x + k0 + 16), _mm512_set1_ps(row_unit));
    const bool nan =
        (_mm512_cmp_ps_mask(v0, v0, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v1, v1, _CMP_UNORD_Q)) != 0;
    const float max = MaxLanes(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
    const bool finite = max > 0 && !std::isinf(kLevels / max);
    scale[g] = nan ? std::nanf("") : finite || std::isinf(max) ? max / kLevels : 0.0f;
    const __m512 inverse = _mm512_set1_ps(finite ? kLevels / max : 0.0f);
    __m512i sum = _mm512_setzero_si512();
    for (int half = 0; half < 2; ++half) {
      const __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(half == 0 ? v0 : v1, inverse));
      const __m512i h = _mm512_srai_epi32(_mm512_add_epi32(q, _mm512_set1_epi32(128)), 8);
      const __m512i l = _mm512_sub_epi32(q, _mm512_slli_epi32(h, 8));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(hi + k0 + 16 * half), _mm512_cvtepi32_epi8(h));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(lo + k0 + 16 * half), _mm512_cvtepi32_epi8(l));
      sum = _mm512_add_epi32(sum, q);
    }
    q_sum[g] = SumLanes(sum);
  }
}

// Vectors of 16 outputs a pass takes for R rows: two integer accumulators per row and vector, the
// vectors' weights and the rows' two broadcast input words in registers.
template <int R>
constexpr int DotVectorsPerPass() {
  int v = kDotVectors;
  while (v > 1 && 2 * R * v + v + 2 * R > kRegisters) v /= 2;
  return v;
}

// y[r][0..width) for R rows of a panel. The panel holds, for each 4 inputs (a quad), the 64
// outputs' 4 weights: w8 one byte each, w + 128 (256 bytes a quad); w4 128 bytes a quad, two
// 64-byte lines of 32 outputs, byte 4 j + i holding input i of output j in its low nibble and of
// output j + 16 in its high one, each w + 8. The high nibbles are multiplied where they are, as
// 16 (w + 8) (a mask, no shift: 2 instructions a line, not 3), their outputs' scales / 16.
template <int R, int kBits, bool kAhead>
inline __attribute__((always_inline)) void IntegerDotRows(const QuantizedInputs& in, int64_t row0,
                                                          int64_t quads, const uint8_t* panel,
                                                          const float* scales, float* y,
                                                          int64_t y_stride, int64_t width,
                                                          int64_t ahead) {
  constexpr int kPass = DotVectorsPerPass<R>();
  constexpr int64_t kQuadBytes = kPanel * kBits / 2;
  const int64_t groups = in.groups, row_bytes = groups * kWeightGroup;
  const __m512i low_nibble = _mm512_set1_epi8(0x0F), high_nibble = _mm512_set1_epi8(-16);
  // The weights' offset in the units each vector multiplies them in (see above).
  auto offset = [](int vector) { return kBits == 8 ? 128 : vector % 2 == 0 ? 8 : 128; };
  for (int v0 = 0; v0 < kDotVectors && v0 * kDotLanes < width; v0 += kPass) {
    __m512 acc[R][kPass];
    for (int r = 0; r < R; ++r) {
      for (int v = 0; v < kPass; ++v) acc[r][v] = _mm512_setzero_ps();
    }
    const int64_t pass_ahead = v0 == 0 ? ahead : 0;  // the first pass brings the panel in
    for (int64_t g = 0; g < groups; ++g) {
      PrefetchScalesAhead(scales + g * kPanel, kWeightGroup * kPanel * kBits / 8, pass_ahead);
      __m512i hi[R][kPass], lo[R][kPass];
      for (int r = 0; r < R; ++r) {
        const int32_t q_sum = in.sum[(row0 + r) * groups + g];
        for (int v = 0; v < kPass; ++v) {
          hi[r][v] = _mm512_setzero_si512();
          lo[r][v] = _mm512_set1_epi32(-offset(v0 + v) * q_sum);
        }
      }
      const int64_t c_end = std::min(quads, (g + 1) * kQuadsPerGroup);
      for (int64_t c = g * kQuadsPerGroup; c < c_end; ++c) {
        const uint8_t* quad = panel + c * kQuadBytes;
        __m512i w[kPass];
#pragma GCC unroll 4
        for (int v = 0; v < kPass; ++v) {
          const int vector = v0 + v;
          if constexpr (kBits == 8) {
            const uint8_t* line = quad + vector * 64;
            PrefetchLineAhead<kAhead>(line, pass_ahead);
            w[v] = _mm512_load_si512(line);
          } else if (v == 0 || vector % 2 == 0) {
            const uint8_t* line = quad + vector / 2 * 64;
            PrefetchLineAhead<kAhead>(line, pass_ahead);
            const __m512i bytes = _mm512_load_si512(line);
            w[v] = _mm512_and_si512(bytes, vector % 2 == 0 ? low_nibble : high_nibble);
            if (v + 1 < kPass) w[v + 1] = _mm512_and_si512(bytes, high_nibble);
          }
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          int32_t h, l;
          std::memcpy(&h, in.hi.data() + (row0 + r) * row_bytes + 4 * c, 4);
          std::memcpy(&l, in.lo.data() + (row0 + r) * row_bytes + 4 * c, 4);
          const __m512i bh = _mm512_set1_epi32(h), bl = _mm512_set1_epi32(l);
#pragma GCC unroll 4
          for (int v = 0; v < kPass; ++v) {
            hi[r][v] = _mm512_dpbusd_epi32(hi[r][v], w[v], bh);
            lo[r][v] = _mm512_dpbusd_epi32(lo[r][v], w[v], bl);
          }
        }
      }
      // sum(w q) = 256 sum(u hi) + sum(u lo) - offset sum(q), exact; then one scale.
#pragma GCC unroll 4
      for (int v = 0; v < kPass; ++v) {
        const __m512 weight_scale = _mm512_loadu_ps(scales + g * kPanel + (v0 + v) * kDotLanes);
        for (int r = 0; r < R; ++r) {
          const __m512i sum = _mm512_add_epi32(_mm512_slli_epi32(hi[r][v], 8), lo[r][v]);
          const __m512 s =
              _mm512_mul_ps(weight_scale, _mm512_set1_ps(in.scale[(row0 + r) * groups + g]));
          acc[r][v] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), s, acc[r][v]);
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int v = 0; v < kPass; ++v) {
        const int64_t column = (v0 + v) * kDotLanes;
        const __m512 out = _mm512_mul_ps(acc[r][v], _mm512_set1_ps(in.unit[row0 + r]));
        StoreColumns((Floats)out, y + r * y_stride + column, width - column);
      }
    }
  }
}

template <int R, int kBits>
inline void IntegerDotRowsAhead(const QuantizedInputs& in, int64_t row0, int64_t quads,
                                const uint8_t* panel, const float* scales, float* y,
                                int64_t y_stride, int64_t width, int64_t ahead) {
  if (ahead > 0) {
    IntegerDotRows<R, kBits, true>(in, row0, quads, panel, scales, y, y_stride, width, ahead);
  } else {
    IntegerDotRows<R, kBits, false>(in, row0, quads, panel, scales, y, y_stride, width, 0);
  }
}

template <int kBits>
void IntegerDotPanel(const QuantizedInputs& in, int64_t rows, int64_t quads, const uint8_t* panel,
                     const float* scales, float* y, int64_t y_stride, int64_t width,
                     int64_t ahead) {
  ForEachRowBlock(rows, ahead, [&](auto r, int64_t r0, int64_t block_ahead) {
    IntegerDotRowsAhead<decltype(r)::value, kBits>(in, r0, quads, panel, scales, y + r0 * y_stride,
                                                   y_stride, width, block_ahead);
  });
}
#endif  // NTPB_WEIGHT_ONLY_INTEGER_DOT

// Adds the bias and the addend (either may be null) to a panel's `width` outputs of each row.
void AddToPanel(float* y, int64_t rows, int64_t stride, int64_t width, const float* bias,
                const float* addend) {
  if (bias == nullptr && addend == nullptr) return;
  for (int64_t r = 0; r < rows; ++r) {
    float* yr = y + r * stride;
    if (bias != nullptr) {
      for (int64_t j = 0; j < width; ++j) yr[j] += bias[j];
    }
    if (addend != nullptr) {
      const float* ar = addend + r * stride;
      for (int64_t j = 0; j < width; ++j) yr[j] += ar[j];
    }
  }
}

}  // namespace

bool HasIntegerDotKernel() {
#if defined(NTPB_WEIGHT_ONLY_INTEGER_DOT)
  return true;
#else
  return false;
#endif
}

WeightOnlyKernel WeightOnlyKernelFor(const std::string& mode) {
  if (mode == "widened") return WeightOnlyKernel::kWidened;
  if (mode == "int-dot" && !HasIntegerDotKernel()) {
    throw Error("", "", "onednn.weight_only",
                "int-dot needs a build for a CPU with AVX512-VNNI and AVX512-BW (-march=native "
                "there); this one has widened only");
  }
  return HasIntegerDotKernel() ? WeightOnlyKernel::kIntegerDot : WeightOnlyKernel::kWidened;
}

WeightOnlyDense::WeightOnlyDense(const GroupQuantizedWeights& q, WeightOnlyKernel kernel_kind)
    : inputs(q.inputs),
      outputs(q.outputs),
      groups(q.groups),
      bits(q.levels > 7 ? 8 : 4),
      kernel(HasIntegerDotKernel() ? kernel_kind : WeightOnlyKernel::kWidened),
      prefetch_ahead(bits == 8 ? kPrefetchAheadW8 : kPrefetchAheadW4) {
  const bool dot = kernel == WeightOnlyKernel::kIntegerDot;
  // Padding decodes to 0: w4's 8 - 8, w8's 0 (widened) or 128 - 128 (integer dot).
  packed.assign(static_cast<size_t>(panels() * panel_bytes()), bits == 4 ? 0x88 : dot ? 0x80 : 0);
  scales.assign(static_cast<size_t>(panels() * groups * kPanel), 0.0f);
  for (int64_t p = 0; p < panels(); ++p) {
    uint8_t* panel = packed.data() + p * panel_bytes();
    for (int64_t j = 0; j < kPanel && p * kPanel + j < outputs; ++j) {
      const int64_t n = p * kPanel + j;
      for (int64_t k = 0; k < inputs; ++k) {
        const int8_t v = q.values[k * outputs + n];
        if (bits == 8) {
          if (dot) {
            panel[(k / 4) * kPanel * 4 + j * 4 + k % 4] = static_cast<uint8_t>(v + 128);
          } else {
            panel[k * kPanel + j] = static_cast<uint8_t>(v);
          }
          continue;
        }
        const uint8_t nibble = static_cast<uint8_t>(v + 8) & 15;
        // The byte and whether the high nibble: see IntegerDotRows and PanelRows4.
        const int64_t half = j % (kPanel / 2);
        uint8_t& byte = dot ? panel[(k / 4) * kPanel * 2 + j / 32 * 64 + (half % 16) * 4 + k % 4]
                            : panel[k * kPanel / 2 + half];
        const bool high = dot ? half >= 16 : j >= kPanel / 2;
        byte = high ? static_cast<uint8_t>((byte & 0x0F) | nibble << 4)
                    : static_cast<uint8_t>((byte & 0xF0) | nibble);
      }
      // The integer dot kernel's high w4 nibbles count 16 times their value (IntegerDotRows).
      const float unit = dot && bits == 4 && j % 32 >= 16 ? 1.0f / 16 : 1.0f;
      for (int64_t g = 0; g < groups; ++g) {
        scales[(p * groups + g) * kPanel + j] = q.scales[g * outputs + n] * unit;
      }
    }
  }
}

std::string WeightOnlyDense::Name() const {
  const std::string panels = "ntpbench int" + std::to_string(bits) + "-weight panels";
  return kernel == WeightOnlyKernel::kIntegerDot
             ? panels + " (VNNI dot products, inputs as 16-bit integers)"
             : panels + " (widened to f32)";
}

void WeightOnlyDense::Run(const float* x, int64_t rows, float* y, int threads,
                          const float* addend) const {
  const int64_t p_count = panels(), bytes = panel_bytes();
  // This panel's part of the bias and the addend, or null.
  auto bias_at = [this](int64_t p) { return bias.empty() ? nullptr : bias.data() + p * kPanel; };
  auto addend_at = [addend](int64_t p) { return addend ? addend + p * kPanel : nullptr; };
#if defined(NTPB_WEIGHT_ONLY_INTEGER_DOT)
  if (kernel == WeightOnlyKernel::kIntegerDot) {
    // The caller's buffer, named before the parallel region (each thread has its own).
    thread_local QuantizedInputs buffer;
    QuantizedInputs& in = buffer;
    const int64_t row_bytes = groups * kWeightGroup;
    in.groups = groups;
    // Grown, never shrunk: layers of other widths (a decode step's 2048 and 5632 inputs) and
    // row counts (prefill, decode) take turns, and a resize up zero-fills what it adds each time.
    auto grow = [](auto& v, int64_t n) {
      if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
    };
    grow(in.hi, rows * row_bytes);
    grow(in.lo, rows * row_bytes);
    grow(in.scale, rows * groups);
    grow(in.sum, rows * groups);
    grow(in.unit, rows);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r) {
        QuantizeRow(x + r * inputs, inputs, groups, in.hi.data() + r * row_bytes,
                    in.lo.data() + r * row_bytes, in.scale.data() + r * groups,
                    in.sum.data() + r * groups, in.unit.data() + r);
      }
#pragma omp for schedule(static)
      for (int64_t p = 0; p < p_count; ++p) {
        const uint8_t* panel = packed.data() + p * bytes;
        const float* panel_scales = scales.data() + p * groups * kPanel;
        const int64_t width = std::min(kPanel, outputs - p * kPanel);
        const int64_t quads = panel_inputs() / 4;
        if (bits == 8) {
          IntegerDotPanel<8>(in, rows, quads, panel, panel_scales, y + p * kPanel, outputs, width,
                             prefetch_ahead);
        } else {
          IntegerDotPanel<4>(in, rows, quads, panel, panel_scales, y + p * kPanel, outputs, width,
                             prefetch_ahead);
        }
        AddToPanel(y + p * kPanel, rows, outputs, width, bias_at(p), addend_at(p));
      }
    }
    return;
  }
#endif
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t p = 0; p < p_count; ++p) {
    const uint8_t* panel = packed.data() + p * bytes;
    const float* panel_scales = scales.data() + p * groups * kPanel;
    const int64_t width = std::min(kPanel, outputs - p * kPanel);
    float* y_panel = y + p * kPanel;
    if (bits == 8) {
      Panel<8>(x, rows, inputs, groups, panel, panel_scales, y_panel, outputs, width,
               prefetch_ahead);
    } else {
      Panel<4>(x, rows, inputs, groups, panel, panel_scales, y_panel, outputs, width,
               prefetch_ahead);
    }
    AddToPanel(y_panel, rows, outputs, width, bias_at(p), addend_at(p));
  }
}

}  // namespace ntpb::onednn
