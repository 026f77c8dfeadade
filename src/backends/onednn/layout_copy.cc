#include "src/backends/onednn/layout_copy.h"

namespace ntpb::onednn {

namespace {

// copy(n, p) for every pixel p of every image n: one parallel region for the whole batch, each
// image's pixels split alike among the threads, no barrier between images.
template <typename Copy>
void ForEachPixel(int64_t batch, int64_t pixels, int threads, const Copy& copy) {
#pragma omp parallel num_threads(threads)
  for (int64_t n = 0; n < batch; ++n) {
#pragma omp for schedule(static) nowait
    for (int64_t p = 0; p < pixels; ++p) copy(n, p);
  }
}

// kChannels a compile-time count, so that the pixel loop vectorizes (a runtime count ran it
// scalar, 3x slower).
template <int kChannels>
void PlanarToNhwcOf(const float* x, int64_t batch, int64_t pixels, int threads, float* y) {
  ForEachPixel(batch, pixels, threads, [=](int64_t n, int64_t p) {
    const float* const image = x + n * kChannels * pixels;
    float* const out = y + n * kChannels * pixels;
    for (int c = 0; c < kChannels; ++c) out[p * kChannels + c] = image[c * pixels + p];
  });
}

// A pixel's channels are `channels / kBlock` runs of kBlock floats: one vector each.
template <int kBlock, bool kToBlocked>
void BlockCopy(const float* x, int64_t batch, int64_t channels, int64_t pixels, int threads,
               float* y) {
  const int64_t blocks = channels / kBlock;
  ForEachPixel(batch, pixels, threads, [=](int64_t n, int64_t p) {
    const float* const in = x + n * channels * pixels;
    float* const out = y + n * channels * pixels;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t nhwc = p * channels + b * kBlock, blocked = (b * pixels + p) * kBlock;
      const float* const from = in + (kToBlocked ? nhwc : blocked);
      float* const to = out + (kToBlocked ? blocked : nhwc);
      for (int i = 0; i < kBlock; ++i) to[i] = from[i];
    }
  });
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
