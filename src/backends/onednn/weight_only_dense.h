// A dense layer in the weight-only precisions (w8, w4: precision.h), by ntpbench's own kernel:
// oneDNN 2.6 has no matmul with int8 or int4 weights and f32 activations. Decoding a token reads
// every weight once, so the weights are streamed as they are stored and widened to f32 in
// registers, as the streamed recurrence does (recurrent_stream.h):
//  - packed in panels of 64 outputs: panel p holds, for each input k, the 64 values of outputs
//    p * 64 .. p * 64 + 63 (w8: 64 bytes; w4: 32 bytes, outputs j and j + 32 in the low and high
//    nibbles of byte j, offset by 8), and the panel's scales [groups, 64] beside it;
//  - the threads split the panels; a panel is read for 4 rows at a time, so at batch 1-4 (decode)
//    each weight byte is read once per inference, and more rows (prefill) read each panel once
//    per 4 rows while it stays in the L2;
//  - at batch 1 with AVX-512, w4 reads two panel rows per 64-byte load and maps each nibble to
//    its weight with a table permute (PanelRow4Pairs); the panels are 64-byte aligned;
//  - each panel line is widened after asking for the line `prefetch_ahead` bytes past it into
//    the L2 (the widening is too long for the out-of-order window to reach memory in time);
//  - in each group of kWeightGroup inputs the values are widened and accumulated in f32, then
//    multiplied by their outputs' scales once (where the registers hold a second set of
//    accumulators; else each weight is scaled as it is widened).
//  - where the build has AVX512-VNNI (kIntegerDot), each row's inputs are quantized first, per
//    group, to 16-bit integers q = round(x / s), s = the group's max |x| / 32639, held as two s8
//    halves q = 256 hi + lo, and the weights (stored unsigned: w8 as w + 128, w4 as the nibble
//    w + 8) multiply both halves with u8 x s8 dot products (vpdpbusd: 64 products an
//    instruction), four inputs per 32-bit lane: the panel holds, for each 4 inputs, the 64
//    outputs' 4 weights side by side. A group's sum sum(w q) is exact in 32-bit integers (the
//    offsets taken off as off * sum(q)), then scaled once by (weight scale x input scale). Per
//    128 weights: w8 4 dot products, w4 4 and 2 masks to split the nibbles (the widening
//    kernel: 24 and 23 instructions), and 5 a group of each 16 outputs to scale. The inputs lose at
//    most s / 2 each, 1 / 65278 of their group's largest (bf16 inputs: 1 / 256 of each value);
//    kWidened keeps them f32.
// A bias and a residual add are added to each panel's outputs as they are stored (while in the
// L1; a transformer's output projections: no second pass over y, no second step); an activation,
// and what comes after it, by a oneDNN binary primitive after it. An i8 run's recurrence takes the
// same panels where oneDNN's s8 matmul is generic (recurrent.cc). Tried and dropped: w4 at batch 1
// with bf16 dot products (avx512_bf16): a 64-byte load's two rows interleaved by 16-bit lanes, a
// vpermw table of bf16 nibble values giving pairs (k, k + 1) for vdpbf16ps. On one Zen 5 core, a
// 1024 x 1024 layer in the L2: 54 G weights/s with x split into two bf16 (hi + lo, near f32)
// against PanelRow4Pairs' 73; 91-93 with x rounded to bf16 alone, which would make w4's batch-1
// numerics differ from its prefill's and the reference's (1.2e-3 relative against 1e-4). The panels
// on 2 MiB pages (huge_pages.h): llama (1.1B) w4 decode no faster (TPOT 27.5-27.9 ms
// against 25.8-27.2), its 16-token prefill slower (182-197 ms against 141-145; Zen 5 VM,
// alternating). For more than 4 rows, each 256-input block of a panel widened once into an
// L2-resident f32 buffer and multiplied for all rows: 1.3-1.6x slower at mlp batch 64 (Zen 3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/backends/common/quantization.h"
#include "src/common/cache_line_allocator.h"

namespace ntpb::onednn {

// How a weight-only layer multiplies (the option onednn.weight_only): its f32 inputs by weights
// widened to f32, or 16-bit integer inputs by the integer weights.
enum class WeightOnlyKernel { kWidened, kIntegerDot };

// Whether this build has the integer dot kernel (compiled with AVX512-VNNI and AVX512-BW).
bool HasIntegerDotKernel();
// The kernel option `mode` (auto, int-dot, widened) picks; auto: int-dot where there is one.
// int-dot where the build has none is an Error naming the option.
WeightOnlyKernel WeightOnlyKernelFor(const std::string& mode);

struct WeightOnlyDense {
  static constexpr int64_t kPanel = 64;
  // The largest |q| of a quantized input: 127 * 256 + 127, so that hi = (q + 128) >> 8 and
  // lo = q - 256 hi are both s8.
  static constexpr int kInputLevels = 32639;

  // Bytes of a panel past the line being widened that are asked for first (0: none), on the
  // panel's first pass. A 256 MiB 16384 x 16384 layer at batch 1 (2-core Intel Xeon guest,
  // Sapphire Rapids class; a plain two-thread read 27-28 GB/s): w8 16 GB/s without, 22-23.5 at
  // 4-16 KiB; w4 12.7 without, 19-20 at 4-32 KiB. Until then the lines were asked for a group
  // (32 lines) at a time with _mm_prefetch, which GCC 12 dropped from the w8 loops: the w8
  // distances once measured on a Zen 5 VM (0.85-1.01 of the read "at 4 KiB") were without any.
  static constexpr int64_t kPrefetchAheadW8 = 4096, kPrefetchAheadW4 = 16384;

  int64_t inputs = 0, outputs = 0, groups = 0;
  int bits = 8;
  WeightOnlyKernel kernel = WeightOnlyKernel::kWidened;
  int64_t prefetch_ahead = 0;
  std::vector<uint8_t, CacheLineAllocator<uint8_t>> packed;  // panel-major, as above
  std::vector<float> scales;  // [panels, groups, kPanel], zero-padded

  WeightOnlyDense(const GroupQuantizedWeights& q, WeightOnlyKernel kernel);

  int64_t panels() const { return (outputs + kPanel - 1) / kPanel; }
  // kIntegerDot pads the inputs to a multiple of 4 (weights 0).
  int64_t panel_inputs() const {
    return kernel == WeightOnlyKernel::kIntegerDot ? (inputs + 3) / 4 * 4 : inputs;
  }
  int64_t panel_bytes() const { return panel_inputs() * kPanel * bits / 8; }
  // What the step's kernel column says.
  std::string Name() const;

  std::vector<float> bias;  // [outputs], or empty: none

  // y[rows, outputs] = x[rows, inputs] x W (+ bias) (+ addend[rows, outputs], where given), with
  // `threads` threads. kIntegerDot quantizes x into a buffer of the calling thread's (allocated
  // on its first call, grown, never freed).
  void Run(const float* x, int64_t rows, float* y, int threads,
           const float* addend = nullptr) const;
};

}  // namespace ntpb::onednn
