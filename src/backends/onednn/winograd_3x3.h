// An f32 3x3 stride-1 convolution as Winograd F(m x m, 3x3), m = 4 or 2, for where oneDNN has
// no Winograd kernel (oneDNN 2.6: below AVX-512). Each m x m tile of the output comes from an
// (m+2) x (m+2) tile of the input: the input tiles are transformed (B^T d B), multiplied by the
// transformed weights (G g G^T) as (m+2)^2 independent products [tiles x channels] x
// [channels x filters], and transformed back (A^T m A). F(4x4, 3x3) does 36 multiply-adds per 16
// outputs and input channel, F(2x2, 3x3) 16 per 4, direct 144 and 36; F(2x2) has fewer positions,
// hence smaller transformed weights and more tiles a product, where the output is small.
// Activations are in oneDNN's nChw8c layout (what its AVX2 convolutions around it write): one
// 8-channel block is one vector of the transforms. Channels and filters must be multiples of 8.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ntpb::onednn {

struct WinogradShape {
  int64_t tile = 4;  // m: 4 or 2
  int64_t batch = 1, channels = 0, filters = 0;
  int64_t height = 0, width = 0;          // input
  int64_t out_height = 0, out_width = 0;  // output (given by the paddings)
  int64_t pad_top = 0, pad_left = 0;
  int64_t tile_rows() const { return (out_height + tile - 1) / tile; }
  int64_t tile_cols() const { return (out_width + tile - 1) / tile; }
  // Output tiles over the batch: the rows of each product.
  int64_t tiles() const { return batch * tile_rows() * tile_cols(); }
  // Positions of a transformed tile: the number of products.
  int64_t positions() const { return (tile + 2) * (tile + 2); }
};

// The channel block of the activations' layout (nChw8c).
constexpr int64_t kWinogradBlock = 8;

class Winograd3x3 {
 public:
  // `weights` as the IR holds them ([filters, channels, 3, 3]), `bias` (empty: none); the
  // result is clamped to [low, high] (a relu or relu6), then, where a residual is given to
  // TransformOutput, the residual is added and the sum clamped to [residual_low, residual_high].
  Winograd3x3(const WinogradShape& shape, const std::vector<float>& weights,
              const std::vector<float>& bias, int threads);
  float low = -std::numeric_limits<float>::infinity();
  float high = std::numeric_limits<float>::infinity();
  float residual_low = -std::numeric_limits<float>::infinity();
  float residual_high = std::numeric_limits<float>::infinity();

  const WinogradShape& shape() const { return shape_; }
  // Floats of the transformed tiles (v) and of their products (m): the step's workspace.
  int64_t input_floats() const { return shape_.positions() * shape_.tiles() * shape_.channels; }
  int64_t product_floats() const { return shape_.positions() * shape_.tiles() * shape_.filters; }
  // x (nChw8c) -> v [positions][tiles][channels].
  void TransformInput(const float* x, float* v) const;
  // v -> m [positions][tiles][filters]: each position's product, on ntpbench's panels (the
  // transformed weights packed 16 filters a panel; 6 tiles x 16 filters a register tile).
  void Multiply(const float* v, float* m) const;
  // m -> y (nChw8c), with the bias, the clamp and (not null) `residual` (nChw8c, y's shape)
  // added.
  void TransformOutput(const float* m, const float* residual, float* y) const;
  // All three.
  void Run(const float* x, const float* residual, float* y, float* v, float* m) const;

 private:
  template <int kTile>
  void Input(const float* x, float* v) const;
  template <int kTile>
  void Output(const float* m, const float* residual, float* y) const;

  WinogradShape shape_;
  int threads_;
  std::vector<float> bias_;  // filters, zero where none
  // The transformed weights (computed in double once) by panels: [positions][filters / 16 (the
  // last may be 8 wide)][channels][16].
  std::vector<float> packed_;
};

}  // namespace ntpb::onednn
