#include "src/backends/onednn/winograd_f4x3.h"

#include <algorithm>

namespace ntpb::onednn {
namespace {

// One channel block: a vector of 8 floats (one AVX register; GCC splits it where the build has
// only SSE). Loads and stores through it are unaligned.
typedef float Block
    __attribute__((vector_size(kWinogradBlock * sizeof(float)), aligned(4), may_alias));

inline Block Load(const float* p) { return *reinterpret_cast<const Block*>(p); }
inline void Store(float* p, Block v) { *reinterpret_cast<Block*>(p) = v; }
inline Block Clamp(Block v, Block low, Block high) {
  v = v < high ? v : high;
  return v > low ? v : low;
}

// B^T d over one column of six (the input transform's rows; then its columns).
inline void InputColumn(const Block d[6], Block t[6]) {
  t[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
  t[1] = -4.0f * (d[1] + d[2]) + d[3] + d[4];
  t[2] = 4.0f * (d[1] - d[2]) - d[3] + d[4];
  t[3] = 2.0f * (d[3] - d[1]) - d[2] + d[4];
  t[4] = 2.0f * (d[1] - d[3]) - d[2] + d[4];
  t[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
}

// A^T m over one column of six (the output transform's rows; then its columns).
inline void OutputColumn(const Block m[6], Block o[4]) {
  const Block sum12 = m[1] + m[2], diff12 = m[1] - m[2];
  const Block sum34 = m[3] + m[4], diff34 = m[3] - m[4];
  o[0] = m[0] + sum12 + sum34;
  o[1] = diff12 + 2.0f * diff34;
  o[2] = sum12 + 4.0f * sum34;
  o[3] = diff12 + 8.0f * diff34 + m[5];
}

// G for F(4x4, 3x3): the weight transform's 6x3 matrix.
constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                             {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                             {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                             {1.0 / 24, 1.0 / 12, 1.0 / 6},
                             {1.0 / 24, -1.0 / 12, 1.0 / 6},
                             {0, 0, 1}};

}  // namespace

WinogradF4x3::WinogradF4x3(const WinogradShape& shape, const std::vector<float>& weights,
                           const std::vector<float>& bias, int threads)
    : shape_(shape), threads_(std::max(1, threads)) {
  const int64_t c_n = shape.channels, k_n = shape.filters;
  transformed_.assign(static_cast<size_t>(kWinogradPositions * c_n * k_n), 0.0f);
  for (int64_t k = 0; k < k_n; ++k) {
    for (int64_t c = 0; c < c_n; ++c) {
      const float* g = weights.data() + (k * c_n + c) * 9;
      double gt[6][3];  // G g
      for (int a = 0; a < 6; ++a) {
        for (int j = 0; j < 3; ++j) {
          gt[a][j] = kG[a][0] * g[j] + kG[a][1] * g[3 + j] + kG[a][2] * g[6 + j];
        }
      }
      for (int a = 0; a < 6; ++a) {
        for (int e = 0; e < 6; ++e) {
          const double u = gt[a][0] * kG[e][0] + gt[a][1] * kG[e][1] + gt[a][2] * kG[e][2];
          transformed_[((a * 6 + e) * c_n + c) * k_n + k] = static_cast<float>(u);
        }
      }
    }
  }
  bias_.assign(static_cast<size_t>(k_n), 0.0f);
  std::copy(bias.begin(), bias.end(), bias_.begin());
}

void WinogradF4x3::TransformInput(const float* x, float* v) const {
  const WinogradShape& s = shape_;
  const int64_t blocks = s.channels / kWinogradBlock, rows = s.tile_rows(), cols = s.tile_cols();
  const int64_t tiles = s.tiles(), position_stride = tiles * s.channels;
  const int64_t items = tiles * blocks;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    const int64_t tile = item / blocks, block = item % blocks;
    const int64_t image = tile / (rows * cols), tile_row = tile / cols % rows,
                  tile_col = tile % cols;
    const int64_t top = tile_row * 4 - s.pad_top, left = tile_col * 4 - s.pad_left;
    const float* plane = x + (image * blocks + block) * s.height * s.width * kWinogradBlock;
    const bool inside = top >= 0 && left >= 0 && top + 6 <= s.height && left + 6 <= s.width;
    Block t[6][6];  // B^T d: t[row of the transform][column of the tile]
    for (int j = 0; j < 6; ++j) {
      Block d[6];
      const int64_t w = left + j;
      for (int i = 0; i < 6; ++i) {
        const int64_t h = top + i;
        d[i] = inside || (h >= 0 && h < s.height && w >= 0 && w < s.width)
                   ? Load(plane + (h * s.width + w) * kWinogradBlock)
                   : Block{};
      }
      Block column[6];
      InputColumn(d, column);
      for (int i = 0; i < 6; ++i) t[i][j] = column[i];
    }
    float* const out = v + tile * s.channels + block * kWinogradBlock;
    for (int i = 0; i < 6; ++i) {
      Block row[6];
      InputColumn(t[i], row);
      for (int j = 0; j < 6; ++j) Store(out + (i * 6 + j) * position_stride, row[j]);
    }
  }
}

void WinogradF4x3::TransformOutput(const float* m, const float* residual, float* y) const {
  const WinogradShape& s = shape_;
  const int64_t blocks = s.filters / kWinogradBlock, rows = s.tile_rows(), cols = s.tile_cols();
  const int64_t tiles = s.tiles(), position_stride = tiles * s.filters;
  const int64_t items = tiles * blocks;
  const Block low = Block{} + this->low, high = Block{} + this->high;
  const Block residual_low = Block{} + this->residual_low,
              residual_high = Block{} + this->residual_high;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    const int64_t tile = item / blocks, block = item % blocks;
    const int64_t image = tile / (rows * cols), tile_row = tile / cols % rows,
                  tile_col = tile % cols;
    const float* in = m + tile * s.filters + block * kWinogradBlock;
    Block t[4][6];  // A^T m: t[output row][column of the transformed tile]
    for (int j = 0; j < 6; ++j) {
      Block column[6], o[4];
      for (int i = 0; i < 6; ++i) column[i] = Load(in + (i * 6 + j) * position_stride);
      OutputColumn(column, o);
      for (int i = 0; i < 4; ++i) t[i][j] = o[i];
    }
    const Block bias = Load(bias_.data() + block * kWinogradBlock);
    const int64_t plane = (image * blocks + block) * s.out_height * s.out_width * kWinogradBlock;
    const int64_t top = tile_row * 4, left = tile_col * 4;
    const int64_t row_end = std::min<int64_t>(4, s.out_height - top),
                  col_end = std::min<int64_t>(4, s.out_width - left);
    for (int i = 0; i < row_end; ++i) {
      Block o[4];
      OutputColumn(t[i], o);
      for (int j = 0; j < col_end; ++j) {
        const int64_t at = plane + ((top + i) * s.out_width + left + j) * kWinogradBlock;
        Block r = Clamp(o[j] + bias, low, high);
        if (residual) r = Clamp(r + Load(residual + at), residual_low, residual_high);
        Store(y + at, r);
      }
    }
  }
}

}  // namespace ntpb::onednn
