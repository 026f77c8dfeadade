#include "src/backends/onednn/recurrent_stream.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "src/backends/common/recurrent_gates.h"

namespace ntpb::onednn {
namespace {

constexpr int64_t kPanel = StreamedRecurrence::kPanel;
using MatrixMap = Eigen::Map<recurrent::RowMatrix>;
using StridedMatrix = Eigen::Map<recurrent::RowMatrix, 0, Eigen::OuterStride<>>;

uint16_t ToBf16(float f) {
  return Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(f));  // round to nearest even
}

// In the panel loop: a shift, which vectorises (Eigen's conversion goes through a scalar type).
inline float FromBf16(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// out[r][0..kPanel) = sum_k x[r][k] * panel[k][0..kPanel) for R rows: R x 4 zmm accumulators
// with AVX-512 (the file is compiled with FMA contraction), the panel read once for all rows.
template <int R, typename W>
inline __attribute__((always_inline)) void PanelRows(const float* x, int64_t x_stride,
                                                     int64_t k_len, const W* panel, float* out,
                                                     int64_t out_stride, int64_t width) {
  float acc[R][kPanel] = {};
  for (int64_t k = 0; k < k_len; ++k) {
    float w[kPanel];
    const W* row = panel + k * kPanel;

    for (int64_t j = 0; j < kPanel; ++j) {
      if constexpr (sizeof(W) == 2) {
        w[j] = FromBf16(row[j]);
      } else {
        w[j] = row[j];
      }
    }
    for (int r = 0; r < R; ++r) {
      const float xr = x[r * x_stride + k];
      for (int64_t j = 0; j < kPanel; ++j) acc[r][j] += xr * w[j];
    }
  }
  for (int r = 0; r < R; ++r) std::memcpy(out + r * out_stride, acc[r], sizeof(float) * width);
}

template <typename W>
void Panel(const float* x, int64_t rows, int64_t k_len, const W* panel, float* out,
           int64_t out_stride, int64_t width) {
  for (int64_t r0 = 0; r0 < rows; r0 += 4) {
    const float* xr = x + r0 * k_len;
    float* o = out + r0 * out_stride;
    switch (std::min<int64_t>(4, rows - r0)) {
      case 1:
        PanelRows<1>(xr, k_len, k_len, panel, o, out_stride, width);
        break;
      case 2:
        PanelRows<2>(xr, k_len, k_len, panel, o, out_stride, width);
        break;
      case 3:
        PanelRows<3>(xr, k_len, k_len, panel, o, out_stride, width);
        break;
      default:
        PanelRows<4>(xr, k_len, k_len, panel, o, out_stride, width);
        break;
    }
  }
}

}  // namespace

void StreamedRecurrence::PackDirection(const std::vector<float>& w_h) {
  const int64_t gh = gates() * h, p_count = panels();
  Panels<float> packed(static_cast<size_t>(p_count * h * kPanel), 0.0f);
  for (int64_t p = 0; p < p_count; ++p) {
    for (int64_t k = 0; k < h; ++k) {
      for (int64_t j = 0; j < kPanel && p * kPanel + j < gh; ++j) {
        packed[(p * h + k) * kPanel + j] = w_h[k * gh + p * kPanel + j];
      }
    }
  }
  if (bf16) {
    Panels<uint16_t> low(packed.size());
    std::transform(packed.begin(), packed.end(), low.begin(), ToBf16);
    w16.push_back(std::move(low));
  } else {
    w32.push_back(std::move(packed));
  }
}

void StreamedRecurrence::Allocate() {
  // The step's products in panel layout ([N, panels * kPanel]), the state, the cell.
  hg_.assign(static_cast<size_t>(dirs * n * panels() * kPanel), 0.0f);
  state_.assign(static_cast<size_t>(dirs * n * h), 0.0f);
  cell_.assign(lstm ? static_cast<size_t>(dirs * n * h) : 0, 0.0f);
}

void StreamedRecurrence::Run(const float* xg, float* out, int threads) {
  const int64_t gh = gates() * h, p_count = panels();
  const int64_t padded = p_count * kPanel;
  auto& hg = hg_;
  auto& state = state_;
  auto& cell = cell_;
  std::fill(state.begin(), state.end(), 0.0f);
  std::fill(cell.begin(), cell.end(), 0.0f);
  // One direction per thread where there are threads enough; more threads split a direction's
  // panels (and then synchronise at every step).
  const int64_t per_dir = std::max<int64_t>(1, threads / dirs);
  const int team = static_cast<int>(std::min<int64_t>(threads, dirs * per_dir));
  const bool split = team >= dirs;  // else one thread runs the directions in turn
#pragma omp parallel num_threads(team)
  {
    const int64_t tid = omp_get_thread_num();
    const int64_t d_first = split ? tid / per_dir : 0, d_last = split ? d_first + 1 : dirs;
    const int64_t part = split ? tid % per_dir : 0, parts = split ? per_dir : 1;
    const int64_t p_begin = p_count * part / parts, p_end = p_count * (part + 1) / parts;
    for (int64_t s = 0; s < t_len; ++s) {
      const bool backwards = s % 2 == 1;  // the panels read last are read first next time
      for (int64_t d = d_first; d < d_last; ++d) {
        float* hg_d = hg.data() + d * n * padded;
        const float* state_d = state.data() + d * n * h;
        for (int64_t i = 0; i < p_end - p_begin; ++i) {
          const int64_t p = backwards ? p_end - 1 - i : p_begin + i;
          const int64_t width = std::min(kPanel, gh - p * kPanel);
          if (bf16) {
            Panel(state_d, n, h, w16[d].data() + p * h * kPanel, hg_d + p * kPanel, padded, width);
          } else {
            Panel(state_d, n, h, w32[d].data() + p * h * kPanel, hg_d + p * kPanel, padded, width);
          }
        }
      }
      if (per_dir > 1) {
#pragma omp barrier
      }
      // The gate math of each direction, by its first thread.
      if (part == 0) {
        for (int64_t d = d_first; d < d_last; ++d) {
          const int64_t t = d == 1 || reverse_only ? t_len - 1 - s : s;
          const StridedMatrix xt(const_cast<float*>(xg) + t * dirs * gh + d * gh, n, gh,
                                 Eigen::OuterStride<>(t_len * dirs * gh));
          Eigen::Map<recurrent::RowMatrix, 0, Eigen::OuterStride<>> hg_d(
              hg.data() + d * n * padded, n, gh, Eigen::OuterStride<>(padded));
          MatrixMap state_d(state.data() + d * n * h, n, h);
          if (lstm) {
            MatrixMap cell_d(cell.data() + d * n * h, n, h);
            recurrent::LstmGates(hg_d, xt, state_d, cell_d, h);
          } else {
            recurrent::GruGates(hg_d, xt, state_d, bias_hn.data() + d * h, h);
          }
          StridedMatrix(out + t * dirs * h + d * h, n, h, Eigen::OuterStride<>(t_len * dirs * h)) =
              state_d;
        }
      }
      if (per_dir > 1) {
#pragma omp barrier
      }
    }
  }
}

}  // namespace ntpb::onednn
