#include "src/backends/onednn/winograd_3x3.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace ntpb::onednn {
namespace {

// One channel block: a vector of 8 floats (one AVX register; GCC splits it where the build has
// only SSE). Loads and stores are unaligned.
typedef float Block __attribute__((vector_size(kWinogradBlock * sizeof(float))));

inline Block Load(const float* p) {
#if defined(__AVX__)
  return (Block)_mm256_loadu_ps(p);
#else
  Block v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}
inline void Store(float* p, Block v) {
#if defined(__AVX__)
  _mm256_storeu_ps(p, (__m256)v);
#else
  std::memcpy(p, &v, sizeof v);
#endif
}
inline Block Clamp(Block v, Block low, Block high) {
  v = v < high ? v : high;
  return v > low ? v : low;
}

// The transforms of F(kTile x kTile, 3x3) over one column of kTile + 2 (applied to the rows of a
// tile, then to its columns): B^T d for the input, A^T m for the output, and G, the weights'.
template <int kTile>
struct Transform;

template <>
struct Transform<4> {
  static void Input(const Block d[6], Block t[6]) {
    t[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
    t[1] = -4.0f * (d[1] + d[2]) + d[3] + d[4];
    t[2] = 4.0f * (d[1] - d[2]) - d[3] + d[4];
    t[3] = 2.0f * (d[3] - d[1]) - d[2] + d[4];
    t[4] = 2.0f * (d[1] - d[3]) - d[2] + d[4];
    t[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
  }
  static void Output(const Block m[6], Block o[4]) {
    const Block sum12 = m[1] + m[2], diff12 = m[1] - m[2];
    const Block sum34 = m[3] + m[4], diff34 = m[3] - m[4];
    o[0] = m[0] + sum12 + sum34;
    o[1] = diff12 + 2.0f * diff34;
    o[2] = sum12 + 4.0f * sum34;
    o[3] = diff12 + 8.0f * diff34 + m[5];
  }
  static constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
};

template <>
struct Transform<2> {
  static void Input(const Block d[4], Block t[4]) {
    t[0] = d[0] - d[2];
    t[1] = d[1] + d[2];
    t[2] = d[2] - d[1];
    t[3] = d[1] - d[3];
  }
  static void Output(const Block m[4], Block o[2]) {
    o[0] = m[0] + m[1] + m[2];
    o[1] = m[1] - m[2] - m[3];
  }
  static constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
};

// G g G^T of one 3x3 filter `g` into `u` ((kTile + 2)^2 values, `stride` apart).
template <int kTile>
void TransformWeights(const float* g, float* u, int64_t stride) {
  constexpr int kAlpha = kTile + 2;
  const auto& G = Transform<kTile>::kG;
  double gt[kAlpha][3];  // G g
  for (int a = 0; a < kAlpha; ++a) {
    for (int j = 0; j < 3; ++j) gt[a][j] = G[a][0] * g[j] + G[a][1] * g[3 + j] + G[a][2] * g[6 + j];
  }
  for (int a = 0; a < kAlpha; ++a) {
    for (int e = 0; e < kAlpha; ++e) {
      const double value = gt[a][0] * G[e][0] + gt[a][1] * G[e][1] + gt[a][2] * G[e][2];
      u[(a * kAlpha + e) * stride] = static_cast<float>(value);
    }
  }
}

// The product panel's width: 16 filters (two blocks; with 6 rows, 12 accumulators, 2 weight
// vectors and a broadcast: 15 of AVX2's 16 registers).
constexpr int64_t kPanel = 16;
constexpr int kPanelRows = 6;

// c[kRows][kBlocks * 8] (+)= a[kRows][depth] (rows lda apart) x b[depth][kBlocks * 8] (packed);
// kAdd: onto what c holds (the depth's later blocks). Zeroed by a loop: `= {}` became a memset,
// and the accumulators lived on the stack, stored at every step.
template <int kRows, int kBlocks, bool kAdd>
inline __attribute__((always_inline)) void PanelTile(const float* a, int64_t lda, const float* b,
                                                     int64_t depth, float* c, int64_t ldc) {
  Block acc[kRows][kBlocks];
  for (int r = 0; r < kRows; ++r) {
    for (int j = 0; j < kBlocks; ++j) {
      acc[r][j] = kAdd ? Load(c + r * ldc + j * kWinogradBlock) : Block{};
    }
  }
  for (int64_t k = 0; k < depth; ++k) {
    Block w[kBlocks];
    for (int j = 0; j < kBlocks; ++j) w[j] = Load(b + (k * kBlocks + j) * kWinogradBlock);
    for (int r = 0; r < kRows; ++r) {
      const float x = a[r * lda + k];  // (a broadcast intrinsic kept acc on the stack again)
      for (int j = 0; j < kBlocks; ++j) acc[r][j] += x * w[j];
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int j = 0; j < kBlocks; ++j) Store(c + r * ldc + j * kWinogradBlock, acc[r][j]);
  }
}

template <int kRows, int kBlocks>
void PanelTileOf(const float* a, int64_t lda, const float* b, int64_t depth, float* c, int64_t ldc,
                 bool add) {
  if (add) return PanelTile<kRows, kBlocks, true>(a, lda, b, depth, c, ldc);
  PanelTile<kRows, kBlocks, false>(a, lda, b, depth, c, ldc);
}

// The depth a panel is swept in at a time: 128 rows of a 16-wide panel are 8 KiB, which stay in
// the L1 cache while every row tile passes over them.
constexpr int64_t kDepthBlock = 128;

// The last `rows` (< kPanelRows) rows of a panel: one register tile of that many.
template <int kBlocks, int kRows = kPanelRows - 1>
void LastRows(int64_t rows, const float* a, int64_t lda, const float* b, int64_t depth, float* c,
              int64_t ldc, bool add) {
  if (rows == kRows) return PanelTileOf<kRows, kBlocks>(a, lda, b, depth, c, ldc, add);
  if constexpr (kRows > 1) LastRows<kBlocks, kRows - 1>(rows, a, lda, b, depth, c, ldc, add);
}

// All `rows` rows of a panel of width kBlocks * 8.
template <int kBlocks>
void PanelRows(const float* a, int64_t rows, int64_t lda, const float* b, int64_t depth, float* c,
               int64_t ldc) {
  for (int64_t k0 = 0; k0 < depth; k0 += kDepthBlock) {
    const int64_t part = std::min(kDepthBlock, depth - k0);
    const float* const ak = a + k0;
    const float* const bk = b + k0 * kBlocks * kWinogradBlock;
    const bool add = k0 > 0;
    int64_t r = 0;
    for (; r + kPanelRows <= rows; r += kPanelRows) {
      PanelTileOf<kPanelRows, kBlocks>(ak + r * lda, lda, bk, part, c + r * ldc, ldc, add);
    }
    LastRows<kBlocks>(rows - r, ak + r * lda, lda, bk, part, c + r * ldc, ldc, add);
  }
}

}  // namespace

Winograd3x3::Winograd3x3(const WinogradShape& shape, const std::vector<float>& weights,
                         const std::vector<float>& bias, int threads)
    : shape_(shape), threads_(std::max(1, threads)) {
  const int64_t c_n = shape.channels, k_n = shape.filters;
  // Position p's [channels][filters] product matrix, then its panels of 16 filters.
  std::vector<float> transformed(static_cast<size_t>(shape.positions() * c_n * k_n));
  for (int64_t k = 0; k < k_n; ++k) {
    for (int64_t c = 0; c < c_n; ++c) {
      const float* g = weights.data() + (k * c_n + c) * 9;
      float* u = transformed.data() + c * k_n + k;
      if (shape.tile == 4) {
        TransformWeights<4>(g, u, c_n * k_n);
      } else {
        TransformWeights<2>(g, u, c_n * k_n);
      }
    }
  }
  packed_.assign(transformed.size(), 0.0f);
  for (int64_t p = 0; p < shape.positions(); ++p) {
    for (int64_t first = 0; first < k_n; first += kPanel) {
      const int64_t width = std::min(kPanel, k_n - first);
      float* panel = packed_.data() + p * c_n * k_n + first * c_n;
      for (int64_t c = 0; c < c_n; ++c) {
        const float* row = transformed.data() + (p * c_n + c) * k_n + first;
        std::copy(row, row + width, panel + c * width);
      }
    }
  }
  bias_.assign(static_cast<size_t>(k_n), 0.0f);
  std::copy(bias.begin(), bias.end(), bias_.begin());
}

void Winograd3x3::Multiply(const float* v, float* m) const {
  const int64_t c_n = shape_.channels, k_n = shape_.filters, tiles = shape_.tiles();
  const int64_t panels = (k_n + kPanel - 1) / kPanel, items = shape_.positions() * panels;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    const int64_t p = item / panels, first = item % panels * kPanel;
    const float* a = v + p * tiles * c_n;
    const float* b = packed_.data() + p * c_n * k_n + first * c_n;
    float* c = m + p * tiles * k_n + first;
    if (k_n - first >= kPanel) {
      PanelRows<2>(a, tiles, c_n, b, c_n, c, k_n);
    } else {
      PanelRows<1>(a, tiles, c_n, b, c_n, c, k_n);
    }
  }
}

void Winograd3x3::Run(const float* x, const float* residual, float* y, float* v, float* m) const {
  TransformInput(x, v);
  Multiply(v, m);
  TransformOutput(m, residual, y);
}

void Winograd3x3::TransformInput(const float* x, float* v) const {
  if (shape_.tile == 4) return Input<4>(x, v);
  Input<2>(x, v);
}

void Winograd3x3::TransformOutput(const float* m, const float* residual, float* y) const {
  if (shape_.tile == 4) return Output<4>(m, residual, y);
  Output<2>(m, residual, y);
}

template <int kTile>
void Winograd3x3::Input(const float* x, float* v) const {
  constexpr int kAlpha = kTile + 2;
  const WinogradShape& s = shape_;
  const int64_t blocks = s.channels / kWinogradBlock, rows = s.tile_rows(), cols = s.tile_cols();
  const int64_t tiles = s.tiles(), position_stride = tiles * s.channels;
  const int64_t items = tiles * blocks;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    const int64_t tile = item / blocks, block = item % blocks;
    const int64_t image = tile / (rows * cols), tile_row = tile / cols % rows,
                  tile_col = tile % cols;
    const int64_t top = tile_row * kTile - s.pad_top, left = tile_col * kTile - s.pad_left;
    const float* plane = x + (image * blocks + block) * s.height * s.width * kWinogradBlock;
    const bool inside =
        top >= 0 && left >= 0 && top + kAlpha <= s.height && left + kAlpha <= s.width;
    Block t[kAlpha][kAlpha];  // B^T d: t[row of the transform][column of the tile]
    for (int j = 0; j < kAlpha; ++j) {
      Block d[kAlpha];
      const int64_t w = left + j;
      for (int i = 0; i < kAlpha; ++i) {
        const int64_t h = top + i;
        d[i] = inside || (h >= 0 && h < s.height && w >= 0 && w < s.width)
                   ? Load(plane + (h * s.width + w) * kWinogradBlock)
                   : Block{};
      }
      Block column[kAlpha];
      Transform<kTile>::Input(d, column);
      for (int i = 0; i < kAlpha; ++i) t[i][j] = column[i];
    }
    float* const out = v + tile * s.channels + block * kWinogradBlock;
    for (int i = 0; i < kAlpha; ++i) {
      Block row[kAlpha];
      Transform<kTile>::Input(t[i], row);
      for (int j = 0; j < kAlpha; ++j) Store(out + (i * kAlpha + j) * position_stride, row[j]);
    }
  }
}

template <int kTile>
void Winograd3x3::Output(const float* m, const float* residual, float* y) const {
  constexpr int kAlpha = kTile + 2;
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
    Block t[kTile][kAlpha];  // A^T m: t[output row][column of the transformed tile]
    for (int j = 0; j < kAlpha; ++j) {
      Block column[kAlpha], o[kTile];
      for (int i = 0; i < kAlpha; ++i) column[i] = Load(in + (i * kAlpha + j) * position_stride);
      Transform<kTile>::Output(column, o);
      for (int i = 0; i < kTile; ++i) t[i][j] = o[i];
    }
    const Block bias = Load(bias_.data() + block * kWinogradBlock);
    const int64_t plane = (image * blocks + block) * s.out_height * s.out_width * kWinogradBlock;
    const int64_t top = tile_row * kTile, left = tile_col * kTile;
    const int64_t row_end = std::min<int64_t>(kTile, s.out_height - top),
                  col_end = std::min<int64_t>(kTile, s.out_width - left);
    for (int i = 0; i < row_end; ++i) {
      Block o[kTile];
      Transform<kTile>::Output(t[i], o);
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
