#include "src/backends/onednn/recurrent_stream.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "src/backends/common/recurrent_gates.h"
#include "src/backends/onednn/f32_dense.h"
#include "src/backends/onednn/native_vectors.h"

namespace ntpb::onednn {
namespace {

constexpr int64_t kPanel = StreamedRecurrence::kPanel;
using MatrixMap = Eigen::Map<recurrent::RowMatrix>;
using StridedMatrix = Eigen::Map<recurrent::RowMatrix, 0, Eigen::OuterStride<>>;

// The state rounded to bf16, the bf16 panels' source (as oneDNN's bf16 matmul rounds its own).
void RoundState(const float* state, int64_t size, uint16_t* rounded) {
  std::transform(state, state + size, rounded, RoundToBf16);
}

// f32 panels read from memory ask for the lines 16 KiB ahead of the row they multiply (the
// `prefetch` member says where). DeepSpeech H 2048 f32 batch 1, 2-core Zen 5 VM, alternating 10
// times: 0.86-0.96x the time without (182 -> 164-168 ms where the VM's bandwidth held still).
// Where a direction's panels fit the last-level cache the hint only costs issue slots: the
// recurrence alone at H 512 and H 1024 f32 batch 1 on a 2-core Zen 4 VM (32 MiB L3), 4 and 3
// alternations, 4.9-5.4 ms without against 6.5-7.0 with, 22.3-22.9 against 26.2-26.8. The bf16
// panels prefetch as Bf16Dense does: DeepSpeech H 2048 bf16 batch 1 on a 2-core Intel Xeon guest
// (Sapphire Rapids class, 260 MiB L3 holding all 64 MiB of weights) ran 167-178 ms 4 KiB ahead,
// 166-176 with none, 170-178 16 KiB ahead.
constexpr int64_t kPrefetchAhead = 16384;

}  // namespace

void StreamedRecurrence::PackDirection(const std::vector<float>& w_h) {
  const int64_t gh = gates() * h, p_count = panels();
  if (bf16) {
    w16.emplace_back(w_h, h, gh);
    w16.back().use_dot_products = bf16_dot;
    return;
  }
  Panels packed(static_cast<size_t>(p_count * h * kPanel), 0.0f);
  for (int64_t p = 0; p < p_count; ++p) {
    for (int64_t k = 0; k < h; ++k) {
      for (int64_t j = 0; j < kPanel && p * kPanel + j < gh; ++j) {
        packed[(p * h + k) * kPanel + j] = w_h[k * gh + p * kPanel + j];
      }
    }
  }
  w32.push_back(std::move(packed));
}

void StreamedRecurrence::Allocate() {
  // The step's products in panel layout ([N, panels * kPanel]), the state, the cell.
  hg_.assign(static_cast<size_t>(dirs * n * panels() * kPanel), 0.0f);
  state_.assign(static_cast<size_t>(dirs * n * h), 0.0f);
  cell_.assign(lstm ? static_cast<size_t>(dirs * n * h) : 0, 0.0f);
  state_bf16_.assign(bf16 ? static_cast<size_t>(dirs * n * h) : 0, 0);
}

void StreamedRecurrence::Run(const float* xg, float* out, int threads, const float* h0,
                             const float* c0) {
  const int64_t gh = gates() * h, p_count = panels();
  const int64_t padded = p_count * kPanel;
  auto& hg = hg_;
  auto& state = state_;
  auto& cell = cell_;
  if (h0) {
    std::copy(h0, h0 + state.size(), state.begin());
  } else {
    std::fill(state.begin(), state.end(), 0.0f);
  }
  if (c0) {
    std::copy(c0, c0 + cell.size(), cell.begin());
  } else {
    std::fill(cell.begin(), cell.end(), 0.0f);
  }
  if (bf16) RoundState(state.data(), static_cast<int64_t>(state.size()), state_bf16_.data());
  // The products of direction d's panels [p_begin, p_end), in the order of step s.
  auto panels = [&](int64_t d, int64_t s, int64_t p_begin, int64_t p_end) {
    const bool backwards = s % 2 == 1;  // the panels read last are read first next time
    float* hg_d = hg.data() + d * n * padded;
    const float* state_d = state.data() + d * n * h;
    const uint16_t* rounded_d = state_bf16_.data() + d * n * h;
    for (int64_t i = 0; i < p_end - p_begin; ++i) {
      const int64_t p = backwards ? p_end - 1 - i : p_begin + i;
      const int64_t width = std::min(kPanel, gh - p * kPanel);
      if (bf16) {
        w16[d].RunPanel(p, rounded_d, n, hg_d, padded);
      } else {
        const float* panel = w32[d].data() + p * h * kPanel;
        MultiplyF32Panel(state_d, n, h, panel, hg_d + p * kPanel, padded, width,
                         prefetch ? kPrefetchAhead : 0);
      }
    }
  };
  // The gate math of direction d at step s, from the products and the input projection.
  auto gates_of = [&](int64_t d, int64_t s) {
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
    if (bf16) RoundState(state_d.data(), n * h, state_bf16_.data() + d * n * h);
  };
  // The directions in turn, every thread on a share of each step's panels: a step then reads one
  // direction's weights (64 MiB at H 2048 f32), and the alternating order finds 15-21 MiB of
  // them still in a 32 MiB L3 (1.25-1.33x the DRAM read at f32), where one direction per core
  // read both directions' 128 MiB a step and found far less (1.04-1.13x). DeepSpeech's LSTM,
  // 2-core Zen 5 VM (32 MiB L3),
  // alternating 3-4 times: H 2048 f32 batch 1 256-261 -> 210-219 ms, batch 4 211-300 -> 169-171,
  // one thread 322-325 -> 293-299; H 1024 f32 27.4-28.4 -> 20.1-20.3; H 2048 bf16 (dot products)
  // 106-110 -> 58-61; H 512 f32 and H 1024 bf16 (in the L3 either way) unchanged. The two
  // barriers a step cost less than that.
  const int team = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, p_count)));
#pragma omp parallel num_threads(team)
  {
    const int64_t tid = omp_get_thread_num(), parts = omp_get_num_threads();
    const int64_t p_begin = p_count * tid / parts, p_end = p_count * (tid + 1) / parts;
    for (int64_t d = 0; d < dirs; ++d) {
      for (int64_t s = 0; s < t_len; ++s) {
        panels(d, s, p_begin, p_end);
#pragma omp barrier
        if (tid == 0) gates_of(d, s);
#pragma omp barrier
      }
    }
  }
}

}  // namespace ntpb::onednn
