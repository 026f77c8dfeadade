// An f32 3x3 stride-1 convolution as Winograd F(4x4, 3x3), for where oneDNN has no Winograd
// kernel (oneDNN 2.6: below AVX-512). Each 4x4 tile of the output comes from a 6x6 tile of the
// input: the input tiles are transformed (B^T d B), multiplied by the transformed weights
// (G g G^T) as 36 independent products [tiles x channels] x [channels x filters] (one batched
// oneDNN matmul, which the builder runs between the two transforms), and transformed back
// (A^T m A): 36 multiply-adds per 16 outputs and input channel against direct's 144.
// Activations are in oneDNN's nChw8c layout (what its AVX2 convolutions around it write): one
// 8-channel block is one vector of the transforms. Channels and filters must be multiples of 8.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ntpb::onednn {

struct WinogradShape {
  int64_t batch = 1, channels = 0, filters = 0;
  int64_t height = 0, width = 0;          // input
  int64_t out_height = 0, out_width = 0;  // output (given by the paddings)
  int64_t pad_top = 0, pad_left = 0;
  int64_t tile_rows() const { return (out_height + 3) / 4; }
  int64_t tile_cols() const { return (out_width + 3) / 4; }
  // Output tiles over the batch: the rows of each of the 36 products.
  int64_t tiles() const { return batch * tile_rows() * tile_cols(); }
};

// The channel block of the activations' layout (nChw8c).
constexpr int64_t kWinogradBlock = 8;
// The 6x6 positions of a transformed tile: the number of products.
constexpr int64_t kWinogradPositions = 36;

class WinogradF4x3 {
 public:
  // `weights` as the IR holds them ([filters, channels, 3, 3]), `bias` (empty: none); the
  // result is clamped to [low, high] (a relu or relu6), then, where a residual is given to
  // TransformOutput, the residual is added and the sum clamped to [residual_low, residual_high].
  WinogradF4x3(const WinogradShape& shape, const std::vector<float>& weights,
               const std::vector<float>& bias, int threads);
  float low = -std::numeric_limits<float>::infinity();
  float high = std::numeric_limits<float>::infinity();
  float residual_low = -std::numeric_limits<float>::infinity();
  float residual_high = std::numeric_limits<float>::infinity();

  const WinogradShape& shape() const { return shape_; }
  // The transformed weights, [36][channels][filters], computed in double once.
  const std::vector<float>& transformed_weights() const { return transformed_; }
  // x (nChw8c) -> v [36][tiles][channels].
  void TransformInput(const float* x, float* v) const;
  // m [36][tiles][filters] -> y (nChw8c), with the bias, the clamp and (not null) `residual`
  // (nChw8c, y's shape) added.
  void TransformOutput(const float* m, const float* residual, float* y) const;

 private:
  WinogradShape shape_;
  int threads_;
  std::vector<float> transformed_, bias_;  // bias_: filters, zero where none
};

}  // namespace ntpb::onednn
