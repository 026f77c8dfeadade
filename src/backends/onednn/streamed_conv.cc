#include "src/backends/onednn/streamed_conv.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "src/backends/onednn/native_vectors.h"

namespace ntpb::onednn {
namespace {

// Four vectors of filters a panel; as many pixels a tile as leave registers for their sums beside
// the four weight vectors and a broadcast (6 with 32 registers, 2 with 16). Fewer vectors and
// more pixels (2 x 14) ran at ~0.6 of this rate on a Zen 5 VM: a broadcast for every two
// multiply-adds instead of every four.
constexpr int kVectors = 4;
constexpr int64_t kWidth = kVectors * kLanes;
constexpr int kTileRows = (kRegisters - kVectors - 1) / kVectors;

// Tiles of pixels: as few as hold kTileRows each, their sizes a pixel apart at most (49 pixels:
// 4 of 6 and 5 of 5, every tile with as many broadcasts per multiply-add).
int64_t Tiles(int64_t pixels) { return (pixels + kTileRows - 1) / kTileRows; }

// Taps a tile multiplies with its sums in registers (a 3x3 in one chunk; a 7x7 in four, its sums
// stored and loaded between them).
constexpr int64_t kTapChunk = 16;

struct Epilogue {
  const float* bias;      // the panel's, kWidth
  const float* residual;  // the tile's first pixel's, rows `stride` apart; null: none
  float low, high, residual_low, residual_high;
};

// acc[r] += a[r][k] * w[k] for one step k of the depth: the tile's inner loop.
template <int R>
inline __attribute__((always_inline)) void MultiplyStep(Floats (&acc)[R][kVectors],
                                                        const float* const* a, const float* w,
                                                        int64_t k) {
  const float* wk = w + k * kWidth;
  Floats wv[kVectors];
#pragma GCC unroll 16
  for (int q = 0; q < kVectors; ++q) wv[q] = LoadFloats(wk + q * kLanes);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const Floats x = BroadcastFloat(a[r] + k);
#pragma GCC unroll 16
    for (int q = 0; q < kVectors; ++q) acc[r][q] += x * wv[q];
  }
}

// out[r][0..kWidth) (+)= sum_tap sum_k a[tap][r][k] * w[tap][k][0..kWidth) for R pixels
// (`accumulate`: onto what out holds; a[tap] is kTileRows pointers, w's taps `depth` rows
// apart); with `epilogue`, then the bias, the clamp and the residual. The sums stay in registers
// over all `taps` (a chunk of at most kTapChunk). While it multiplies, it asks for `prefetch_lines`
// cache lines from `prefetch` into the L2, one a step.
template <int R>
inline __attribute__((always_inline)) void Tile(const float* const* a, int64_t taps, const float* w,
                                                int64_t depth, float* out, int64_t stride,
                                                bool accumulate, const Epilogue* epilogue,
                                                const char* prefetch, int64_t prefetch_lines) {
  Floats acc[R][kVectors];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int q = 0; q < kVectors; ++q) {
      acc[r][q] = accumulate ? LoadFloats(out + r * stride + q * kLanes) : Floats{};
    }
  }
  // The lines that do not fit one a step go first.
  for (; prefetch_lines > taps * depth; --prefetch_lines, prefetch += 64) {
    _mm_prefetch(prefetch, _MM_HINT_T1);
  }
  for (int64_t tap = 0; tap < taps; ++tap) {
    const float* const* at = a + tap * kTileRows;
    const float* wt = w + tap * depth * kWidth;
    int64_t k = 0;
    for (; k < depth && tap * depth + k < prefetch_lines; ++k) {
      _mm_prefetch(prefetch + (tap * depth + k) * 64, _MM_HINT_T1);
      MultiplyStep<R>(acc, at, wt, k);
    }
    for (; k < depth; ++k) {
      MultiplyStep<R>(acc, at, wt, k);
    }
  }
  if (epilogue == nullptr) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
      for (int q = 0; q < kVectors; ++q) StoreFloats(out + r * stride + q * kLanes, acc[r][q]);
    }
    return;
  }
  const Floats lo = Floats{} + epilogue->low, hi = Floats{} + epilogue->high;
  const Floats rlo = Floats{} + epilogue->residual_low, rhi = Floats{} + epilogue->residual_high;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int q = 0; q < kVectors; ++q) {
      Floats v = acc[r][q] + LoadFloats(epilogue->bias + q * kLanes);
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      if (epilogue->residual != nullptr) {
        v += LoadFloats(epilogue->residual + r * stride + q * kLanes);
        v = v < rlo ? rlo : v;
        v = v > rhi ? rhi : v;
      }
      StoreFloats(out + r * stride + q * kLanes, v);
    }
  }
}

}  // namespace

int64_t StreamedConv::PanelWidth() { return kWidth; }

StreamedConv::StreamedConv(const StreamedConvShape& shape, const std::vector<float>& weights,
                           const std::vector<float>& bias, int threads)
    : shape_(shape), threads_(std::max(threads, 1)) {
  const StreamedConvShape& s = shape_;
  if (s.filters % kWidth != 0) {
    throw std::invalid_argument("streamed convolution: filters must be a multiple of " +
                                std::to_string(kWidth));
  }
  const int64_t taps = s.taps(), c = s.channels;
  zeros_.assign(static_cast<size_t>(c), 0.0f);
  bias_.assign(static_cast<size_t>(s.filters), 0.0f);
  if (!bias.empty()) std::copy(bias.begin(), bias.end(), bias_.begin());
  tap_offsets_.resize(static_cast<size_t>(s.pixels() * taps));
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t oy = 0; oy < s.out_height; ++oy) {
      for (int64_t ox = 0; ox < s.out_width; ++ox) {
        const int64_t pixel = (n * s.out_height + oy) * s.out_width + ox;
        for (int64_t ky = 0; ky < s.kernel_h; ++ky) {
          for (int64_t kx = 0; kx < s.kernel_w; ++kx) {
            const int64_t iy = oy * s.stride_h - s.pad_top + ky,
                          ix = ox * s.stride_w - s.pad_left + kx;
            const bool inside = iy >= 0 && iy < s.height && ix >= 0 && ix < s.width;
            tap_offsets_[static_cast<size_t>(pixel * taps + ky * s.kernel_w + kx)] =
                inside ? ((n * s.height + iy) * s.width + ix) * c : -1;
          }
        }
      }
    }
  }
  const int64_t panels = s.filters / kWidth;
  packed_.resize(static_cast<size_t>(panels * taps * c * kWidth));
  for (int64_t p = 0; p < panels; ++p) {
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t ci = 0; ci < c; ++ci) {
        // [panel][block of channels][tap][channel in the block][filter]
        const int64_t c0 = ci / kDepth * kDepth, depth = std::min(kDepth, c - c0);
        float* row = packed_.data() + (p * taps * c + taps * c0 + t * depth + ci - c0) * kWidth;
        for (int64_t j = 0; j < kWidth; ++j) {
          row[j] = weights[static_cast<size_t>(((p * kWidth + j) * c + ci) * taps + t)];
        }
      }
    }
  }
}

void StreamedConv::Run(const float* x, const float* residual, float* y, bool prefetch) const {
  const StreamedConvShape& s = shape_;
  const int64_t taps = s.taps(), c = s.channels, pixels = s.pixels(), f = s.filters;
  const int64_t k_len = taps * c, panels = f / kWidth;
  const int64_t depth_blocks = (c + kDepth - 1) / kDepth;
  const int64_t tiles = Tiles(pixels);
#pragma omp parallel num_threads(threads_)
  {
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    // Each thread a contiguous run of panels: its weights are one stream, block after block.
    const int64_t begin = panels * t / n, end = panels * (t + 1) / n;
    const float* stream_end = packed_.data() + end * k_len * kWidth;
    // A chunk of taps' row pointers, on the stack: nothing allocated while the network runs.
    const float* a[kTapChunk * kTileRows];
    for (int64_t p = begin; p < end; ++p) {
      Epilogue epilogue{bias_.data() + p * kWidth, nullptr, low, high, residual_low, residual_high};
      for (int64_t b = 0; b < depth_blocks; ++b) {
        const int64_t c0 = b * kDepth, depth = std::min(kDepth, c - c0);
        const float* w = packed_.data() + (p * taps * c + taps * c0) * kWidth;
        // The next block's lines, shared out over the tiles and their chunks of taps.
        const float* next = w + taps * depth * kWidth;
        const int64_t next_lines =
            prefetch && next < stream_end
                ? std::min<int64_t>(taps * kDepth * kWidth, stream_end - next) *
                      static_cast<int64_t>(sizeof(float)) / 64
                : 0;
        for (int64_t tile = 0; tile < tiles; ++tile) {
          const int64_t pixel0 = pixels * tile / tiles;
          const int64_t rows = pixels * (tile + 1) / tiles - pixel0;
          float* out = y + pixel0 * f + p * kWidth;
          epilogue.residual = residual ? residual + pixel0 * f + p * kWidth : nullptr;
          const int64_t line0 = next_lines * tile / tiles, line1 = next_lines * (tile + 1) / tiles;
          for (int64_t tap0 = 0; tap0 < taps; tap0 += kTapChunk) {
            const int64_t chunk = std::min(kTapChunk, taps - tap0);
            for (int64_t tap = 0; tap < chunk; ++tap) {
              for (int64_t r = 0; r < rows; ++r) {
                const int64_t offset =
                    tap_offsets_[static_cast<size_t>((pixel0 + r) * taps + tap0 + tap)];
                a[tap * kTileRows + r] = (offset < 0 ? zeros_.data() : x + offset) + c0;
              }
            }
            const bool accumulate = b > 0 || tap0 > 0;
            const Epilogue* e = b == depth_blocks - 1 && tap0 + chunk == taps ? &epilogue : nullptr;
            const int64_t l0 = line0 + (line1 - line0) * tap0 / taps,
                          l1 = line0 + (line1 - line0) * (tap0 + chunk) / taps;
            const char* pf = reinterpret_cast<const char*>(next) + l0 * 64;
            const float* wc = w + tap0 * depth * kWidth;
            switch (rows) {
#define NTPB_STREAMED_TILE(R)                                           \
  case R:                                                               \
    if constexpr (R <= kTileRows) {                                     \
      Tile<R>(a, chunk, wc, depth, out, f, accumulate, e, pf, l1 - l0); \
    }                                                                   \
    break;
              NTPB_STREAMED_TILE(1)
              NTPB_STREAMED_TILE(2)
              NTPB_STREAMED_TILE(3)
              NTPB_STREAMED_TILE(4)
              NTPB_STREAMED_TILE(5)
              NTPB_STREAMED_TILE(6)
#undef NTPB_STREAMED_TILE
            }
          }
        }
      }
    }
  }
}

}  // namespace ntpb::onednn
