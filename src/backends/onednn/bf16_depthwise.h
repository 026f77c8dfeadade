// A bf16 depthwise convolution (groups = channels, one filter each) by ntpbench's own kernel, in
// NHWC: oneDNN 2.6's bf16 depthwise kernels (brdgmm_dw, jit_dw at avx512_core_bf16) took 2.1-2.7x
// its f32 ones' time on a 2-core Intel Xeon guest (Sapphire Rapids class; 4x emulated without
// avx512_bf16), though such a layer does 2 FLOPs per weight per pixel and reads half f32's bytes.
//  - a vector of 2 x lanes bf16 channels is loaded as lanes 32-bit words and each word's two
//    halves widened to f32 (the even channel shifted up, the odd one masked): two vectors of
//    f32 multiplied by f32 weights (the bf16-rounded weights, kept widened, in the same
//    even/odd order) and accumulated in f32, 8 output pixels at a time (4 where the ISA has 16
//    vector registers);
//  - inside a row, for 3x3 and 5x5 kernels at stride 1 and 2, each input pixel is widened once
//    and multiplied into every output pixel it is under (once per tap, the widening was two
//    thirds of the instructions and the kernel no faster than oneDNN's); other shapes and the
//    border pixels widen per tap, the border ones testing each tap;
//  - bias (a batchnorm folded in), then a clamp (relu, relu6: the fused activation), then one
//    rounding to bf16 to nearest even, as oneDNN's bf16 convolution rounds;
//  - the threads split the output rows and channel blocks.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ntpb::onednn {

struct Bf16DepthwiseShape {
  int64_t batch = 1, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;  // 1: adjacent taps
  int64_t pad_top = 0, pad_left = 0;
};

struct Bf16Depthwise {
  Bf16DepthwiseShape shape;
  // The activation as a clamp of the biased sum (none: the whole line).
  float low = -std::numeric_limits<float>::infinity();
  float high = std::numeric_limits<float>::infinity();
  int64_t block = 0;  // channels a vector pair holds (2 x the ISA's f32 lanes)
  // [kernel_h][kernel_w][blocks][block]: each block's even channels, then its odd ones, zeros past
  // the last channel; the bias likewise [blocks][block].
  std::vector<float> weights, bias;

  // `weights` [channels, 1, kernel_h, kernel_w] (the IR's conv2d weights with groups =
  // channels), rounded to bf16; `bias` [channels] or empty.
  Bf16Depthwise(const Bf16DepthwiseShape& shape, const std::vector<float>& weights,
                const std::vector<float>& bias);

  int64_t blocks() const { return (shape.channels + block - 1) / block; }

  // y [batch, out_h, out_w, channels] from x [batch, in_h, in_w, channels], both bf16 (NHWC).
  void Run(const uint16_t* x, uint16_t* y, int threads) const;
};

}  // namespace ntpb::onednn
