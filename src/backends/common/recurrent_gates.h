// The gate math of one LSTM/GRU step, shared by every backend that computes the recurrent
// projections itself (Eigen, and oneDNN's decomposition), so they agree to the last rounding.
// Coefficient-wise expressions in place: nothing is allocated per step.
#pragma once

#include <Eigen/Dense>
#include <cstdint>

namespace ntpb::recurrent {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// hg [N, 4H]: the recurrent projection h·W_h, in place; xt [N, 4H]: this step's input
// projection with the bias. Gates i, f, g, o. Updates cell and state [N, H].
inline void LstmGates(Eigen::Ref<RowMatrix> hg, const Eigen::Ref<const RowMatrix>& xt,
                      Eigen::Ref<RowMatrix> state, Eigen::Ref<RowMatrix> cell, int64_t h) {
  auto sigmoid = [](auto block) { block = 1.0f / (1.0f + (-block).exp()); };
  hg += xt;
  sigmoid(hg.middleCols(0, 2 * h).array());                                  // i, f
  hg.middleCols(2 * h, h).array() = hg.middleCols(2 * h, h).array().tanh();  // g
  sigmoid(hg.middleCols(3 * h, h).array());                                  // o
  cell.array() = hg.middleCols(h, h).array() * cell.array() +
                 hg.middleCols(0, h).array() * hg.middleCols(2 * h, h).array();
  state.array() = hg.middleCols(3 * h, h).array() * cell.array().tanh();
}

// The same for the linear-before-reset GRU: gates r, z, n; hg [N, 3H] without bias_hn [H].
inline void GruGates(Eigen::Ref<RowMatrix> hg, const Eigen::Ref<const RowMatrix>& xt,
                     Eigen::Ref<RowMatrix> state, const float* bias_hn, int64_t h) {
  auto sigmoid = [](auto block) { block = 1.0f / (1.0f + (-block).exp()); };
  hg.middleCols(0, 2 * h) += xt.middleCols(0, 2 * h);
  sigmoid(hg.middleCols(0, 2 * h).array());  // r, z
  hg.middleCols(2 * h, h).rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias_hn, h);
  hg.middleCols(2 * h, h).array() = (xt.middleCols(2 * h, h).array() +
                                     hg.middleCols(0, h).array() * hg.middleCols(2 * h, h).array())
                                        .tanh();  // candidate n
  state.array() = (1.0f - hg.middleCols(h, h).array()) * hg.middleCols(2 * h, h).array() +
                  hg.middleCols(h, h).array() * state.array();
}

// The same for one batch row's units [u, u + m) (the streamed recurrence: each thread its own
// units): gate g's recurrent projections at hg[g * hg_gate_stride], its input projections at
// xt[g * xt_gate_stride], both already offset to unit u. LSTM: writes state (the new hidden
// state) and updates cell.
inline void LstmUnitGates(float* hg, int64_t hg_gate_stride, const float* xt,
                          int64_t xt_gate_stride, Eigen::Map<Eigen::ArrayXf> state,
                          Eigen::Map<Eigen::ArrayXf> cell, int64_t m) {
  auto gate = [&](int g) { return Eigen::Map<Eigen::ArrayXf>(hg + g * hg_gate_stride, m); };
  auto input = [&](int g) { return Eigen::Map<const Eigen::ArrayXf>(xt + g * xt_gate_stride, m); };
  for (int g : {0, 1, 3}) gate(g) = 1.0f / (1.0f + (-(gate(g) + input(g))).exp());  // i, f, o
  gate(2) = (gate(2) + input(2)).tanh();                                            // g
  cell = gate(1) * cell + gate(0) * gate(2);
  state = gate(3) * cell.tanh();
}

// GRU (linear before reset) for one batch row's units, as LstmUnitGates: reads the previous
// state, writes the new one; bias_hn offset to unit u.
inline void GruUnitGates(float* hg, int64_t hg_gate_stride, const float* xt, int64_t xt_gate_stride,
                         Eigen::Map<const Eigen::ArrayXf> previous,
                         Eigen::Map<Eigen::ArrayXf> state, const float* bias_hn, int64_t m) {
  auto gate = [&](int g) { return Eigen::Map<Eigen::ArrayXf>(hg + g * hg_gate_stride, m); };
  auto input = [&](int g) { return Eigen::Map<const Eigen::ArrayXf>(xt + g * xt_gate_stride, m); };
  for (int g : {0, 1}) gate(g) = 1.0f / (1.0f + (-(gate(g) + input(g))).exp());  // r, z
  gate(2) = (input(2) + gate(0) * (gate(2) + Eigen::Map<const Eigen::ArrayXf>(bias_hn, m))).tanh();
  state = (1.0f - gate(1)) * gate(2) + gate(1) * previous;
}

}  // namespace ntpb::recurrent
