// The recurrence of an LSTM/GRU at small batch, streamed by ntpbench's own kernel: at batch 1-4
// each step is a matrix-vector product that reads all recurrent weights (128 MiB per step for
// DeepSpeech's bidirectional LSTM, H 2048, f32) and does ~1 FLOP per byte, so memory bandwidth
// is all that matters. What it does about that, each measured on a 2-core AMD EPYC VM (Zen 5,
// 32 MiB L3; README, "Backends", and tools/recurrence_bandwidth.py):
//  - the directions in turn, every thread on its own units (every gate's panels of them, then
//    their gate math) with one barrier between steps: a step reads one direction's weights, a
//    quarter (f32) to a half (bf16) of which the L3 still holds from the step before (below); one
//    direction per core, with no barriers, read both directions' weights a step and ran 1.2x (f32)
//    to 1.8x (bf16) longer at H 2048;
//  - the weights of a direction packed in contiguous panels of 64 columns, so each thread reads
//    one contiguous slab per step and the hardware prefetcher sees one stream;
//  - the panels read in alternating order from one step to the next, so the tail read last is
//    read first in the next step, while it is still in the last-level cache: the one way past
//    the DRAM floor, since the L3 is filled by what the L2s evict and holds the ~28 MiB read
//    last (a pure read of 64 MiB per core ran 1.13-1.17x faster alternating than in one
//    direction; 32 MiB per core, bf16's size, 1.45-1.5x);
//  - the panels on 2 MiB pages (3-4% at f32 batch 1);
//  - f32 asks for the lines 16 KiB ahead of each row it multiplies where a direction's panels
//    outgrow the last-level cache (0.86-0.96x the time at f32 batch 1, alternating 10 times; an
//    earlier VM showed nothing beyond its noise); where they fit, the hint took 15-25% of
//    H 512's and H 1024's time on a Zen 4 VM (recurrent_stream.cc);
//  - bf16 by the bf16 dense layer's panels (bf16_dense.h: one layout, one kernel), the state
//    rounded to bf16 once per step (as oneDNN's bf16 matmul rounds its source): vdpbf16ps on k
//    in pairs on a CPU with bf16 dot products (avx512_bf16, after ONEDNN_MAX_CPU_ISA), each
//    half widened to f32 elsewhere; with the weights all in the L3 (H 1024) the dot products
//    read them at 63-83 GB/s at batch 4 against 34-48 widened, 82-157 against 88-102 at batch 1;
//  - the accumulators as GCC vector types of the ISA's register width, as many as its registers
//    hold (float arrays stayed on the stack at f32 batch 4: 0.96-0.98x the DRAM read, against
//    1.04-1.10x now; 64-byte vectors on AVX2 did too, at a quarter of the speed).
// Tried and dropped, none beyond that VM's noise: two panels in lockstep (two streams per core),
// software prefetch of the next panel's head, bf16 dot products' rows prefetched, batch 4 as two
// passes of two rows over each (L2-resident) panel, a fixed L3-resident slab with the rest read
// under prefetchnta (the hint cost the stream 15%; with the directions in turn, every panel or
// all but a 16-28 MiB slab under prefetchnta ran H 2048 f32 in 199-204 ms against 212-220 where
// the VM read slowly and no faster where it read fast, 4 alternations: not kept on that).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "src/backends/onednn/bf16_dense.h"
#include "src/common/huge_pages.h"

namespace ntpb::onednn {

struct StreamedRecurrence {
  // Columns per panel: 4 zmm (8 ymm) accumulators per batch row, 256 bytes of each f32 row.
  static constexpr int64_t kPanel = 64;
  static_assert(kPanel == Bf16Dense::kPanel, "the bf16 panels fill the same products buffer");

  int64_t n = 0, t_len = 0, h = 0, dirs = 1;
  bool lstm = true, reverse_only = false, bf16 = false;
  // bf16 multiplied with vdpbf16ps (set where HasNativeBf16Arithmetic, builder.h, and
  // Bf16DenseHasDotProducts). Set before PackDirection.
  bool bf16_dot = false;
  // f32: ask for the panels' lines ahead of the kernel (where a direction's panels outgrow the
  // last-level cache: PrefetchesPanels).
  bool prefetch = true;
  // Per direction. f32: panel-major, panel p holds gate g = p / (h_pad / kPanel) of units
  // u = p % (h_pad / kPanel) * kPanel + j, W_h[k][g * H + u] at [p][k][j], zero-padded, on huge
  // pages (src/common/huge_pages.h: 3-4% faster at DeepSpeech's f32 batch 1). bf16: a Bf16Dense of
  // the same panel width.
  using Panels = std::vector<float, HugePageAllocator<float>>;
  std::vector<Panels> w32;
  std::vector<Bf16Dense> w16;
  std::vector<float> bias_hn;  // GRU: [dirs, H]

  int64_t gates() const { return lstm ? 4 : 3; }
  // Each gate's columns padded to whole panels: a panel holds one gate of kPanel units.
  int64_t h_pad() const { return (h + kPanel - 1) / kPanel * kPanel; }
  int64_t panels() const { return gates() * h_pad() / kPanel; }
  // The bytes of one direction's f32 panels.
  int64_t direction_bytes() const {
    return panels() * kPanel * h * static_cast<int64_t>(sizeof(float));
  }
  // Whether f32 panels of `direction_bytes` are read from memory rather than a last-level cache
  // of `llc_bytes` (0: unknown, taken as memory), where asking for lines ahead pays.
  static bool PrefetchesPanels(int64_t direction_bytes, int64_t llc_bytes) {
    return llc_bytes <= 0 || direction_bytes > llc_bytes;
  }

  // Packs direction `d`'s W_h [H, G*H] (row-major, as the IR holds it): f32, or bf16 rounded to
  // nearest even.
  void PackDirection(const std::vector<float>& w_h);

  // Sets aside the step's buffers, once all directions are packed: nothing is allocated per
  // inference.
  void Allocate();
  // Runs all T steps from the initial state (zeros, or h0 and c0): xg [N, T, dirs * G*H] holds the
  // input projections with their bias; out [N, T, dirs * H] gets the hidden states. `threads`
  // threads at most. h0, c0: the initial states [dirs, N, H], or null for zeros.
  void Run(const float* xg, float* out, int threads, const float* h0 = nullptr,
           const float* c0 = nullptr);
  // The bytes of the buffers Allocate set aside (the step's workspace).
  int64_t working_bytes() const {
    return static_cast<int64_t>(sizeof(float) * (hg_.size() + state_.size() + cell_.size()) +
                                sizeof(uint16_t) * state_bf16_.size());
  }
  // The cell state [dirs, N, H] after Run (LSTM): the layer's final cell state.
  const float* cell() const { return cell_.data(); }

  // Whether this route applies: f32 or bf16 weights, batch up to 4 (beyond that a step does
  // enough arithmetic per weight byte for a GEMM to be the better route).
  static bool Applies(int64_t batch, bool quantized, bool f32_or_bf16) {
    return batch <= 4 && !quantized && f32_or_bf16;
  }

 private:
  // Aligned as oneDNN's buffers are: Eigen's vectorised exp/tanh peel unaligned heads into
  // scalar code, whose rounding differs, so alignment would change the outputs.
  std::vector<float, Eigen::aligned_allocator<float>> hg_, state_, cell_;
  // The state twice (a step reads one, its threads write the other); bf16: rounded, the panels'
  // source, twice too.
  std::vector<uint16_t> state_bf16_;
};

}  // namespace ntpb::onednn
