// Copies between activation layouts that the builder runs instead of oneDNN 2.6's reorder: an
// image's few channels from planar NCHW to NHWC (the first step of a CNN on an image), and NHWC
// to and from oneDNN's channel-blocked nChw8c / nChw16c (around its Winograd convolutions,
// whose neighbours run NHWC). Each thread copies a range of pixels, the split an NHWC
// convolution over one image writes its output by, so that it reads what its own core wrote.
#pragma once

#include <cstdint>

namespace ntpb::onednn {

// y[n][p][c] = x[n][c][p] for 1 to 4 channels.
void PlanarToNhwc(const float* x, int64_t batch, int64_t channels, int64_t pixels, int threads,
                  float* y);

// Channel blocks of `block` (8 or 16) floats; `channels` a multiple of it.
// y[n][c / block][p][c % block] = x[n][p][c]
void NhwcToBlocked(const float* x, int64_t batch, int64_t channels, int64_t pixels, int block,
                   int threads, float* y);
// y[n][p][c] = x[n][c / block][p][c % block]
void BlockedToNhwc(const float* x, int64_t batch, int64_t channels, int64_t pixels, int block,
                   int threads, float* y);

}  // namespace ntpb::onednn
