// A bf16 dense layer at 1-4 rows (a decode step, a batch-1 inference) by ntpbench's own kernel:
// such a layer reads every weight once per row block and does 2 FLOPs per 2-byte weight, so its
// time is the time to stream the weights. oneDNN 2.6's bf16 matmul read them at 18-19 GB/s on a
// 2-core Intel Xeon guest (Sapphire Rapids class) where its f32 matmul read 25.7 and a plain read
// 27-32 (llama (1.1B) decode, the same run): bf16 decode stopped at 0.71-0.75 of the read.
//  - packed in panels of 64 outputs, each input pair (k, k + 1) of an output in one 32-bit lane,
//    [panel][k / 2][j][k % 2] (the streamed recurrence's bf16 weights too, recurrent_stream.h);
//  - with avx512_bf16, vdpbf16ps multiplies a lane's pair by the source's pair and adds both
//    products to an f32 accumulator (32 multiply-adds an instruction); elsewhere each half is
//    widened to f32 (a shift or a mask) and multiplied;
//  - each 64-byte line asks for the line `prefetch_ahead` bytes past it into the L2 (as
//    weight_only_dense.h, whose measurements set it);
//  - the source is bf16 (the run's activations), the products accumulate in f32 and are
//    written rounded to bf16 as oneDNN's bf16 matmul rounds its own, after the bias and a fused
//    residual add (a transformer's output projections: one rounding, as oneDNN's sum post-op);
//    or f32, for a oneDNN binary to add the bias and apply the fused activation.
#pragma once

#include <cstdint>
#include <vector>

#include "src/common/huge_pages.h"

namespace ntpb::onednn {

// A tensor [rows, outputs] a Bf16Dense adds to its sums before they are rounded (a fused
// residual add), in bf16 or f32; neither set: none.
struct Bf16Addend {
  const uint16_t* bf16 = nullptr;
  const float* f32 = nullptr;
};

struct Bf16Dense {
  static constexpr int64_t kPanel = 64;
  // Rows up to which the builder takes this kernel; beyond, a GEMM reuses each weight enough.
  static constexpr int64_t kStreamedRows = 4;
  static constexpr int64_t kPrefetchAhead = 4096;

  int64_t inputs = 0, outputs = 0;
  int64_t prefetch_ahead = kPrefetchAhead;
  // vdpbf16ps (only where Bf16DenseHasDotProducts); false: the widening loop.
  bool use_dot_products = false;
  std::vector<uint16_t, HugePageAllocator<uint16_t>> packed;  // as above, zero-padded
  std::vector<float> bias;  // [outputs], added to the sums before they are stored; empty: none

  // `weights` [inputs, outputs] row-major (the IR's dense weights), rounded to bf16.
  Bf16Dense(const std::vector<float>& weights, int64_t inputs, int64_t outputs);

  int64_t pairs() const { return (inputs + 1) / 2; }
  int64_t panels() const { return (outputs + kPanel - 1) / kPanel; }

  // y[rows, outputs] = x[rows, inputs] x W + bias (+ addend) for bf16 x, 4 rows at a time, with
  // `threads` threads: y f32, or rounded to bf16 (to nearest even, as oneDNN rounds).
  void Run(const uint16_t* x, int64_t rows, float* y, int threads) const;
  void Run(const uint16_t* x, int64_t rows, uint16_t* y, int threads, Bf16Addend addend = {}) const;
  // Panel p alone (outputs [p * kPanel, p * kPanel + kPanel)) on the calling thread, for callers
  // that share the panels among their own threads (the streamed recurrence, recurrent_stream.h):
  // y[r * y_stride + p * kPanel + j] in f32, plus the bias if any.
  void RunPanel(int64_t p, const uint16_t* x, int64_t rows, float* y, int64_t y_stride) const;

 private:
  template <typename Out>
  void RunTo(const uint16_t* x, int64_t rows, Out* y, int threads, Bf16Addend addend) const;
  template <typename Out>
  void PanelTo(int64_t p, const uint16_t* x, int64_t rows, Out* y, int64_t y_stride,
               Bf16Addend addend) const;
};

// A float rounded to bf16 to nearest even (as oneDNN rounds), as its 16 bits.
uint16_t RoundToBf16(float f);

// Whether the kernel can multiply with vdpbf16ps here (the library was built for avx512_bf16);
// it does where oneDNN also runs bf16 natively (HasNativeBf16Arithmetic, builder.h).
bool Bf16DenseHasDotProducts();

}  // namespace ntpb::onednn
