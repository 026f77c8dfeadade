// MobileNet v2's inverted residual block (a 1x1 expansion, a 3x3 depthwise convolution, a 1x1
// projection, + the block's input) as one f32 step of ntpbench's own kernel, NHWC, one output
// row at a time: the expanded rows that row needs (three, held in a ring per thread, blocked by
// vectors of channels with a zero pixel either side so the depthwise loop has no borders and
// its taps are constant offsets), its depthwise row, then its
// projection with the residual added as it is stored. The expanded tensor (6x the block's
// input) never leaves the cache: as three convolutions it is written out and read back whole,
// and in a network whose other tensors have pushed it out of the last-level cache that is most
// of their time (onednn_backend.cc's inverted_residual option says where it runs).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ntpb::onednn {

struct InvertedResidualShape {
  int64_t batch = 1, height = 0, width = 0;
  int64_t channels = 0, expanded = 0, outputs = 0;  // input, expanded, output channels
  int64_t stride = 1;                               // the depthwise convolution's (1 or 2)
  bool residual = false;  // the block's input added to its output (same shape)
  int64_t out_height() const { return (height - 1) / stride + 1; }
  int64_t out_width() const { return (width - 1) / stride + 1; }
};

// A convolution's weights as the IR holds them (conv2d: [filters, channels / groups, kh, kw]),
// its bias (a batchnorm folded in; empty: none) and its activation as a clamp.
struct FoldedConvolution {
  std::vector<float> weights, bias;
  float low = -std::numeric_limits<float>::infinity();
  float high = std::numeric_limits<float>::infinity();
};

// Whether the kernel's file was built for AVX-512 (the ISA onednn.inverted_residual=auto was
// measured to win on; fusion.cc).
bool InvertedResidualBuiltForAvx512();

class InvertedResidual {
 public:
  InvertedResidual(const InvertedResidualShape& shape, const FoldedConvolution& expand,
                   const FoldedConvolution& depthwise, const FoldedConvolution& project,
                   int threads);

  // y [batch, out_height, out_width, outputs] from x [batch, height, width, channels] (NHWC).
  void Run(const float* x, float* y);
  // The per-thread rows it keeps (the step's workspace).
  int64_t workspace_bytes() const;

 private:
  InvertedResidualShape shape_;
  int threads_;
  int64_t expanded_padded_, outputs_padded_;  // rounded up to whole vectors
  // Vectors over output channels, zero past the last: expand [channels][expanded_padded_],
  // depthwise [9][expanded_padded_], project [expanded][outputs_padded_]; biases likewise.
  std::vector<float> expand_, expand_bias_, depthwise_, depthwise_bias_, project_, project_bias_;
  float clamps_[3][2];  // each convolution's activation: low, high
  // Per thread: a ring of three expanded rows (expanded_padded_ / lanes blocks of (width + 2)
  // pixels x lanes each), a depthwise row (NHWC); then one zero row for the rows above and
  // below.
  std::vector<float> rows_;
  int64_t ring_floats() const;
  int64_t thread_floats() const;
  void Band(int64_t first, int64_t end, float* own, const float* x, float* y) const;
};

}  // namespace ntpb::onednn
