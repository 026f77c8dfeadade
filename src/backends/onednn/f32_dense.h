// An f32 dense layer at 1-4 rows (a batch-1 classifier, an MLP, an f32 decode step) by
// ntpbench's own kernel: such a layer does 2 FLOPs per 4-byte weight, so its time is the time to
// stream the weights. oneDNN 2.6's f32 matmul (brg:avx512_core) read them at 30-37 GB/s from
// memory on a 2-core Zen 4 VM (2048 x 5632, 46 MB) where these panels read 78-85; a 1280 x 1000
// classifier evicted from the caches 0.23-0.29 ms against 0.13; from the L2s and the L3 at
// parity to 1.35x (784 x 1024 to 3072 x 768, 2 threads, the medians of 300 runs).
//  - the weights packed in panels of 64 outputs, [panel][k][j], zero-padded, on 2 MiB pages;
//    the threads share the panels, each a contiguous run of them (one stream per core);
//  - per row 4 vectors of accumulators (8 with the ISA's 16 registers or fewer), each weight
//    vector loaded once for all rows;
//  - no software prefetch: a line 4 KiB ahead of each row took 14-20% more time there for the
//    classifier and 31-42% for the 46 MB layer (the hardware prefetchers follow one stream per
//    core);
//  - the bias and a fused residual add where the layer has no activation; else f32 sums for a
//    oneDNN binary to add the bias and apply it.
// The streamed recurrence (recurrent_stream.h) multiplies its f32 panels with the same routine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/common/huge_pages.h"

namespace ntpb::onednn {

// out[r * out_stride + j] = sum_k x[r * k_len + k] * panel[k * 64 + j] for r < rows, j < width
// (one panel of 64 columns, at most 64 wide); `prefetch_ahead` > 0: each row asks for the line
// that many bytes past it first.
void MultiplyF32Panel(const float* x, int64_t rows, int64_t k_len, const float* panel, float* out,
                      int64_t out_stride, int64_t width, int64_t prefetch_ahead);

struct F32Dense {
  static constexpr int64_t kPanel = 64;
  // Rows up to which the builder takes this kernel; beyond, a GEMM reuses each weight enough.
  static constexpr int64_t kStreamedRows = 4;
  // Under f32_dense=auto, rows up to which it takes it where the weights come from memory (Run
  // takes 4 rows at a time, each panel read again from the L2 for the next 4).
  static constexpr int64_t kStreamedRowsFromMemory = 8;

  int64_t inputs = 0, outputs = 0;
  std::vector<float, HugePageAllocator<float>> packed;  // as above
  std::vector<float> bias;  // [outputs], added as the sums are stored; empty: none

  // `weights` [inputs, outputs] row-major (the IR's dense weights).
  F32Dense(const std::vector<float>& weights, int64_t inputs, int64_t outputs);

  int64_t panels() const { return (outputs + kPanel - 1) / kPanel; }
  // What the step's kernel column says.
  std::string Name() const { return "ntpbench f32 panels"; }

  // y[rows, outputs] = x[rows, inputs] x W (+ bias) (+ addend[rows, outputs], where given), with
  // `threads` threads.
  void Run(const float* x, int64_t rows, float* y, int threads,
           const float* addend = nullptr) const;
};

}  // namespace ntpb::onednn
