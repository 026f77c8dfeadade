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
  // W_h [H, G*H] as [H, G*h_pad]: each gate's columns padded to whole panels, so a panel holds
  // one gate of kPanel units and a thread's units are whole panels of every gate.
  const int64_t gh = gates() * h, hp = h_pad(), columns = gates() * hp;
  auto source = [&](int64_t k, int64_t c) {
    const int64_t gate = c / hp, unit = c % hp;
    return unit < h ? w_h[static_cast<size_t>(k * gh + gate * h + unit)] : 0.0f;
  };
  if (bf16) {
    std::vector<float> padded(static_cast<size_t>(h * columns));
    for (int64_t k = 0; k < h; ++k) {
      for (int64_t c = 0; c < columns; ++c)
        padded[static_cast<size_t>(k * columns + c)] = source(k, c);
    }
    w16.emplace_back(padded, h, columns);
    w16.back().use_dot_products = bf16_dot;
    return;
  }
  Panels packed(static_cast<size_t>(panels() * h * kPanel), 0.0f);
  for (int64_t p = 0; p < panels(); ++p) {
    for (int64_t k = 0; k < h; ++k) {
      for (int64_t j = 0; j < kPanel; ++j) {
        packed[static_cast<size_t>((p * h + k) * kPanel + j)] = source(k, p * kPanel + j);
      }
    }
  }
  w32.push_back(std::move(packed));
}

void StreamedRecurrence::Allocate() {
  // The step's products in panel layout ([dirs, N, G * h_pad]); the state twice (the step reads
  // one while its threads write the other); the cell, each unit's only by its own thread.
  hg_.assign(static_cast<size_t>(dirs * n * panels() * kPanel), 0.0f);
  state_.assign(static_cast<size_t>(2 * dirs * n * h), 0.0f);
  cell_.assign(lstm ? static_cast<size_t>(dirs * n * h) : 0, 0.0f);
  state_bf16_.assign(bf16 ? static_cast<size_t>(2 * dirs * n * h) : 0, 0);
}

void StreamedRecurrence::Run(const float* xg, float* out, int threads, const float* h0,
                             const float* c0) {
  const int64_t gh = gates() * h, hp = h_pad(), blocks = hp / kPanel;
  const int64_t padded = panels() * kPanel, state_size = dirs * n * h;
  // Steps are counted over both directions (direction d's step s is d * t_len + s); step i reads
  // state buffer i % 2 and writes the other.
  auto state_at = [&](int64_t step, int64_t d) {
    return state_.data() + (step % 2) * state_size + d * n * h;
  };
  auto rounded_at = [&](int64_t step, int64_t d) {
    return state_bf16_.data() + (step % 2) * state_size + d * n * h;
  };
  for (int64_t d = 0; d < dirs; ++d) {
    float* first = state_at(d * t_len, d);
    if (h0) {
      std::copy(h0 + d * n * h, h0 + (d + 1) * n * h, first);
    } else {
      std::fill(first, first + n * h, 0.0f);
    }
    if (bf16) RoundState(first, n * h, rounded_at(d * t_len, d));
  }
  if (c0) {
    std::copy(c0, c0 + cell_.size(), cell_.begin());
  } else {
    std::fill(cell_.begin(), cell_.end(), 0.0f);
  }
  // Units [u0, u1) of direction d at step s (of t_len): every gate's panels of those units, in
  // alternating order from one step to the next (the panels read last are read first next time,
  // while the caches still hold them), then the gate math of those units, writing the state the
  // next step reads.
  auto units = [&](int64_t d, int64_t s, int64_t b0, int64_t b1) {
    const int64_t step = d * t_len + s;
    float* hg_d = hg_.data() + d * n * padded;
    const int64_t count = gates() * (b1 - b0);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t at = s % 2 == 1 ? count - 1 - i : i;
      const int64_t p = at / (b1 - b0) * blocks + b0 + at % (b1 - b0);
      if (bf16) {
        w16[d].RunPanel(p, rounded_at(step, d), n, hg_d, padded);
      } else {
        MultiplyF32Panel(state_at(step, d), n, h, w32[d].data() + p * h * kPanel, hg_d + p * kPanel,
                         padded, kPanel, prefetch ? kPrefetchAhead : 0);
      }
    }
    const int64_t u0 = b0 * kPanel, u1 = std::min(h, b1 * kPanel), m = u1 - u0;
    if (m <= 0) return;
    const int64_t t = d == 1 || reverse_only ? t_len - 1 - s : s;
    const float* previous = state_at(step, d);
    float* next = state_at(step + 1, d);
    for (int64_t r = 0; r < n; ++r) {
      float* products = hg_d + r * padded;
      const float* x = xg + (r * t_len + t) * dirs * gh + d * gh;
      const int64_t at = r * h + u0;
      Eigen::Map<Eigen::ArrayXf> state_out(next + at, m);
      const Eigen::Map<const Eigen::ArrayXf> state_in(previous + at, m);
      if (lstm) {
        Eigen::Map<Eigen::ArrayXf> cell(cell_.data() + d * n * h + at, m);
        recurrent::LstmUnitGates(products + u0, hp, x + u0, h, state_out, cell, m);
      } else {
        recurrent::GruUnitGates(products + u0, hp, x + u0, h, state_in, state_out,
                                bias_hn.data() + d * h + u0, m);
      }
      std::copy(next + at, next + at + m, out + (r * t_len + t) * dirs * h + d * h + u0);
      if (bf16) RoundState(next + at, m, rounded_at(step + 1, d) + at);
    }
  };
  // The directions in turn, every thread on whole panels of its own units of each gate: a step
  // then reads one direction's weights (64 MiB at H 2048 f32), and the alternating order finds
  // 15-21 MiB of them still in a 32 MiB L3 (1.25-1.33x the DRAM read at f32), where one direction
  // per core read both directions' 128 MiB a step and found far less (1.04-1.13x). DeepSpeech's
  // LSTM, 2-core Zen 5 VM (32 MiB L3), alternating 3-4 times: H 2048 f32 batch 1 256-261 ->
  // 210-219 ms, batch 4 211-300 -> 169-171, one thread 322-325 -> 293-299; H 1024 f32 27.4-28.4
  // -> 20.1-20.3; H 2048 bf16 (dot products) 106-110 -> 58-61. Each thread does its own units'
  // gate math, so a step has one barrier and no serial part.
  const int team = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, blocks)));
#pragma omp parallel num_threads(team)
  {
    const int64_t tid = omp_get_thread_num(), parts = omp_get_num_threads();
    const int64_t b0 = blocks * tid / parts, b1 = blocks * (tid + 1) / parts;
    for (int64_t d = 0; d < dirs; ++d) {
      for (int64_t s = 0; s < t_len; ++s) {
        if (b1 > b0) units(d, s, b0, b1);
#pragma omp barrier
      }
    }
  }
}

}  // namespace ntpb::onednn
