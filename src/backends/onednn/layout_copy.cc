#include "src/backends/onednn/layout_copy.h"

namespace ntpb::onednn {

namespace {

// kChannels a compile-time count, so that the pixel loop vectorizes (a runtime count ran it
// scalar, 3x slower).
template <int kChannels>
void PlanarToNhwcOf(const float* x, int64_t batch, int64_t pixels, int threads, float* y) {
  // One parallel region for the whole batch; the images' pixels split alike, no barrier between.
#pragma omp parallel num_threads(threads)
  for (int64_t n = 0; n < batch; ++n) {
    const float* const image = x + n * kChannels * pixels;
    float* const out = y + n * kChannels * pixels;
#pragma omp for schedule(static) nowait
    for (int64_t p = 0; p < pixels; ++p) {
      for (int c = 0; c < kChannels; ++c) out[p * kChannels + c] = image[c * pixels + p];
    }
  }
}

// A pixel's channels are `channels / kBlock` runs of kBlock floats: one vector each.
template <int kBlock, bool kToBlocked>
void BlockCopy(const float* x, int64_t batch, int64_t channels, int64_t pixels, int threads,
               float* y) {
  const int64_t blocks = channels / kBlock;
#pragma omp parallel num_threads(threads)
  for (int64_t n = 0; n < batch; ++n) {
    const float* const in = x + n * channels * pixels;
    float* const out = y + n * channels * pixels;
#pragma omp for schedule(static) nowait
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t nhwc = p * channels + b * kBlock, blocked = (b * pixels + p) * kBlock;
        const float* const from = in + (kToBlocked ? nhwc : blocked);
        float* const to = out + (kToBlocked ? blocked : nhwc);
        for (int i = 0; i < kBlock; ++i) to[i] = from[i];
      }
    }
  }
}

}  // namespace

void PlanarToNhwc(const float* x, int64_t batch, int64_t channels, int64_t pixels, int threads,
                  float* y) {
  switch (channels) {
    case 1:
      return PlanarToNhwcOf<1>(x, batch, pixels, threads, y);
    case 2:
      return PlanarToNhwcOf<2>(x, batch, pixels, threads, y);
    case 3:
      return PlanarToNhwcOf<3>(x, batch, pixels, threads, y);
    default:
      return PlanarToNhwcOf<4>(x, batch, pixels, threads, y);
  }
}

void NhwcToBlocked(const float* x, int64_t batch, int64_t channels, int64_t pixels, int block,
                   int threads, float* y) {
  if (block == 8) return BlockCopy<8, true>(x, batch, channels, pixels, threads, y);
  BlockCopy<16, true>(x, batch, channels, pixels, threads, y);
}

void BlockedToNhwc(const float* x, int64_t batch, int64_t channels, int64_t pixels, int block,
                   int threads, float* y) {
  if (block == 8) return BlockCopy<8, false>(x, batch, channels, pixels, threads, y);
  BlockCopy<16, false>(x, batch, channels, pixels, threads, y);
}

}  // namespace ntpb::onednn
