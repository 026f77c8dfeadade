// LSTM and GRU: one GEMM for the input projection of all T steps, then one small GEMM per step
// for the recurrence. Bidirectional layers write [forward, reverse] halves of the output, and
// an lstm's final cell state, where the layer lists it, its two [N, H] blocks.
#include "src/backends/common/recurrent_gates.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

using StridedConstMatrix = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using StridedMatrix = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;

template <bool kLstm>
Kernel MakeRecurrent(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = in[0], t_len = in[1], c = in[2], h = a.layer.attrs.Int("units");
  const int64_t gates = kLstm ? 4 : 3;
  const std::string dir = a.layer.attrs.Str("direction");
  const int dirs = dir == "bidirectional" ? 2 : 1;
  const int64_t out_width = h * dirs;
  const int per_dir = kLstm ? 3 : 4;  // weights per direction
  const std::vector<const float*> w = a.weights;
  const float* x = a.inputs[0];
  // Initial states [dirs, N, H] where given, else zeros.
  const float* h0 = a.inputs.size() > 1 ? a.inputs[1] : nullptr;
  const float* c0 = kLstm && a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  float* y = a.output;
  // lstm's final cell state [dirs, N, H], where the layer lists it.
  float* final_cell = kLstm && a.outputs.size() > 1 ? a.outputs[1] : nullptr;
  const int threads = a.threads;
  // Scratch: projected inputs [N*T, gates*H], recurrent gates [N, gates*H], h and c [N, H].
  const int64_t xg_size = n * t_len * gates * h, hg_size = n * gates * h, state_size = n * h;
  Scratchpad* scratch = a.scratch;
  scratch->Require(xg_size + hg_size + 2 * state_size);
  return [=] {
    float* base = scratch->data();
    MatrixMap xg_map(base, n * t_len, gates * h), hg_map(base + xg_size, n, gates * h);
    MatrixMap state_map(base + xg_size + hg_size, n, h);
    MatrixMap cell_map(base + xg_size + hg_size + state_size, n, h);
    MatrixMap* xg = &xg_map;
    MatrixMap* hg = &hg_map;
    MatrixMap* state = &state_map;
    MatrixMap* cell = &cell_map;
    for (int d = 0; d < dirs; ++d) {
      const bool reverse = d == 1 || dir == "reverse";
      const float* wx = w[d * per_dir];
      const float* wh = w[d * per_dir + 1];
      const float* bias = w[d * per_dir + 2];
      xg->noalias() = ConstMatrixMap(x, n * t_len, c) * ConstMatrixMap(wx, c, gates * h);
      xg->rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, gates * h);
      if (h0) {
        *state = ConstMatrixMap(h0 + d * n * h, n, h);
      } else {
        state->setZero();
      }
      if (c0) {
        *cell = ConstMatrixMap(c0 + d * n * h, n, h);
      } else {
        cell->setZero();
      }
      for (int64_t s = 0; s < t_len; ++s) {
        const int64_t t = reverse ? t_len - 1 - s : s;
        MultiplyRowMajor(state->data(), wh, hg->data(), n, h, gates * h, threads);
        StridedConstMatrix xt(xg->data() + t * gates * h, n, gates * h,
                              Eigen::OuterStride<>(t_len * gates * h));
        if (kLstm) {
          recurrent::LstmGates(*hg, xt, *state, *cell, h);
        } else {
          recurrent::GruGates(*hg, xt, *state, w[d * per_dir + 3], h);
        }
        StridedMatrix(y + t * out_width + d * h, n, h, Eigen::OuterStride<>(t_len * out_width)) =
            *state;
      }
      if (final_cell) MatrixMap(final_cell + d * n * h, n, h) = *cell;
    }
  };
}

}  // namespace

void AddRecurrentKernels(KernelTable* table) {
  (*table)["lstm"] = MakeRecurrent<true>;
  (*table)["gru"] = MakeRecurrent<false>;
}

}  // namespace ntpb::eigen
