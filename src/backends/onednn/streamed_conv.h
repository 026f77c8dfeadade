// An f32 convolution over a small image with many weights (ResNet-50's last stage: 7x7 pixels,
// 4-9 MiB of weights a layer, 55 MB in all) by ntpbench's own kernel: each weight is used only
// once per output pixel, so the weights come from memory at every inference, and oneDNN 2.6's
// kernels did not overlap that stream with their multiply-adds (tools/cold_weights_conv.cc: a
// 3x3 512 -> 512 at 7x7 ran at 634-675 GFLOP/s with its weights in the cache, 440-459 without;
// its time was the compute plus the read). Here the weights are packed in panels of four vectors
// of filters, [panel][block of kDepth channels][tap][channel][filters], and each thread walks
// its panels block by block, multiplying one block (every tap of its channels) by every tile of
// pixels while it asks for the next block. A tile's sums stay in registers over the block's
// taps (sums stored and loaded again at every tap ran 2-5% slower on a Zen 5 guest).
// Activations are NHWC; a pixel's taps are pointers into the input (a zero row where the tap is
// padding), so there is no im2col copy (one of ResNet-50's 3x3 ones cost a fifth of the time with
// it: 900 KiB of rows, read again for each panel, outgrew the L2). A tile is
// 6 pixels x 4 vectors of filters: 24 sums, 4 weight vectors and a broadcast in AVX-512's 32
// registers (7 x 4 needed 33, and GCC kept a sum on the stack). Multiply-adds with an embedded
// broadcast (`{1to16}`, 24 a step instead of 6 broadcasts) ran 1.3x slower with the weights in
// the cache (3x3 512 -> 512 at 7x7 on a 2-core Zen 5 guest: 847-934 against 649-671 us).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "src/common/huge_pages.h"

namespace ntpb::onednn {

struct StreamedConvShape {
  int64_t batch = 1, channels = 0, filters = 0;
  int64_t height = 0, width = 0;          // input
  int64_t out_height = 0, out_width = 0;  // output
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
  int64_t pixels() const { return batch * out_height * out_width; }
  int64_t taps() const { return kernel_h * kernel_w; }
};

class StreamedConv {
 public:
  // Filters per panel: four vectors of the ISA the file is compiled for (64 with AVX-512).
  static int64_t PanelWidth();
  // Channels per block: the weights one block holds are taps x PanelWidth() x this (a 3x3:
  // 288 KiB with AVX-512, in the L2 while every tile of pixels reads them; 16, 32, 64 and 256
  // ran slower).
  static constexpr int64_t kDepth = 128;

  // `weights` as the IR holds them ([filters, channels, kernel_h, kernel_w]), `bias` (empty:
  // none); filters must be a multiple of PanelWidth(). The result is clamped to [low, high],
  // then, where Run is given a residual, the residual is added and the sum clamped to
  // [residual_low, residual_high].
  StreamedConv(const StreamedConvShape& shape, const std::vector<float>& weights,
               const std::vector<float>& bias, int threads);
  float low = -std::numeric_limits<float>::infinity();
  float high = std::numeric_limits<float>::infinity();
  float residual_low = -std::numeric_limits<float>::infinity();
  float residual_high = std::numeric_limits<float>::infinity();

  const StreamedConvShape& shape() const { return shape_; }
  // x NHWC [batch, height, width, channels] -> y NHWC [batch, out_height, out_width, filters]
  // (+ residual, y's shape, where not null). `prefetch` false: no software prefetch of the next
  // block (tools/cold_weights_conv.cc measures what it brings).
  void Run(const float* x, const float* residual, float* y, bool prefetch = true) const;

 private:
  StreamedConvShape shape_;
  int threads_;
  std::vector<float> bias_;  // filters, zero where none
  // [pixel][tap]: the tap's offset into x in floats, -1 where it falls in the padding.
  std::vector<int64_t> tap_offsets_;
  std::vector<float> zeros_;  // channels: what a padding tap reads
  // [panel][block of kDepth channels][tap][channel in the block][PanelWidth()]
  std::vector<float, HugePageAllocator<float>> packed_;
};

}  // namespace ntpb::onednn
