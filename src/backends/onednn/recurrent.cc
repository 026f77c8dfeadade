// lstm and gru, three ways (onednn.rnn, NTPB_ONEDNN_RNN):
//  - streamed (auto's choice for f32 and bf16 at batch 1-4): the input projection of all T steps
//    and both directions as one matmul, then ntpbench's streamed recurrence
//    (recurrent_stream.h), one direction per core over panel-packed weights read in alternating
//    order; on a 2-core AMD EPYC VM (Zen 5) 1.3-2.1x faster than the decomposition at batch 1
//    and as fast or faster at batch 4, f32 and bf16 (README, "Backends");
//  - decomposed (auto's choice otherwise, and i8): the same projection, then per step one
//    matmul per direction [N, H] x [H, G*H] (it streams the recurrent weights: memory-bound)
//    and the gate math on the CPU with Eigen's vectorised exp/tanh; in i8 where oneDNN's s8
//    matmul is its generic gemm:jit (no VNNI), ntpbench's int8-weight panels instead, the state
//    f32 (BuildInt8PanelRecurrence);
//  - fused: oneDNN's RNN primitives (lstm_forward, lbr_gru_forward: linear-before-reset, as the
//    IR's GRU), reading the IR's [N, T, C] tensors in place through the ntc format. On a 2-core
//    Intel Xeon VM (Ice Lake) oneDNN 2.6's fused LSTM ran DeepSpeech's bilstm (H 2048, T 100,
//    batch 1) 1.9x slower than the decomposition (1342 vs 721 ms f32).
#include <Eigen/Dense>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <tuple>

#include "ntpbench/error.h"
#include "src/backends/common/recurrent_gates.h"
#include "src/backends/onednn/bf16_dense.h"
#include "src/backends/onednn/builder.h"
#include "src/backends/onednn/quantization.h"
#include "src/backends/onednn/recurrent_stream.h"
#include "src/backends/onednn/weight_only_dense.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

// A layer's initial states h0 and c0 ([dirs, N, H] f32) where it has them as inputs; else the
// recurrence starts from zeros. Their memory is read when the step runs.
struct InitialStates {
  std::optional<memory> h, c;
  const float* h0() const { return h ? static_cast<const float*>(h->get_data_handle()) : nullptr; }
  const float* c0() const { return c ? static_cast<const float*>(c->get_data_handle()) : nullptr; }
};
InitialStates InitialStatesOf(Builder& b, bool lstm, int64_t dirs, int64_t n, int64_t h) {
  const ResolvedLayer& l = b.layer();
  InitialStates s;
  if (l.inputs.size() > 1) s.h = b.Input(l.inputs[1], PlainDesc({dirs, n, h}));
  if (lstm && l.inputs.size() > 2) s.c = b.Input(l.inputs[2], PlainDesc({dirs, n, h}));
  return s;
}

// The layer's final cell state [dirs, N, H] f32 (its second output), where it lists one: the
// recurrence's cell buffer, so that nothing is copied.
std::optional<memory> FinalCellOutput(Builder& b, bool lstm, int64_t dirs, int64_t n, int64_t h) {
  if (!lstm || b.layer().outputs.size() < 2) return std::nullopt;
  return b.NewOutput(PlainDesc({dirs, n, h}), 1);
}

using MatrixMap = Eigen::Map<recurrent::RowMatrix>;
using StridedMatrix = Eigen::Map<recurrent::RowMatrix, 0, Eigen::OuterStride<>>;

// The per-step host code of a recurrence computed a step at a time: where it reads and writes
// (state and cell [dirs, N, H], the step's products hg [dirs, N, G*H], the input projections
// xg [N, T, dirs * G*H], the output [N, T, dirs * H]).
struct HostRecurrence {
  int64_t dirs = 1, n = 1, h = 1, gh = 1, t_len = 1;
  bool lstm = true, reverse_only = false;
  const float* xg = nullptr;
  float *hg = nullptr, *state = nullptr, *cell = nullptr, *out = nullptr;
  const float* bias_hn = nullptr;  // GRU: [dirs, H]

  // The initial state and cell: h0 and c0 where the layer has them, else zeros.
  void Start(const InitialStates& initial) const {
    const size_t size = static_cast<size_t>(dirs * n * h);
    if (const float* h0 = initial.h0()) {
      std::copy(h0, h0 + size, state);
    } else {
      std::fill(state, state + size, 0.0f);
    }
    if (!lstm) return;
    if (const float* c0 = initial.c0()) {
      std::copy(c0, c0 + size, cell);
    } else {
      std::fill(cell, cell + size, 0.0f);
    }
  }
  // Direction d's gate math at step s from its products in hg: the new state, also written to
  // the output at its time step.
  void Gates(int64_t s, int64_t d) const {
    const int64_t t = d == 1 || reverse_only ? t_len - 1 - s : s;
    const StridedMatrix xt(const_cast<float*>(xg) + t * dirs * gh + d * gh, n, gh,
                           Eigen::OuterStride<>(t_len * dirs * gh));
    MatrixMap hg_d(hg + d * n * gh, n, gh), state_d(state + d * n * h, n, h);
    if (lstm) {
      MatrixMap cell_d(cell + d * n * h, n, h);
      recurrent::LstmGates(hg_d, xt, state_d, cell_d, h);
    } else {
      recurrent::GruGates(hg_d, xt, state_d, bias_hn + d * h, h);
    }
    StridedMatrix(out + t * dirs * h + d * h, n, h, Eigen::OuterStride<>(t_len * dirs * h)) =
        state_d;
  }
};

void BuildRecurrent(Builder& b, bool lstm) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t n = in[0], t = in[1], c = in[2], h = l.attrs.Int("units");
  const std::string direction = l.attrs.Str("direction");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1, gates = lstm ? 4 : 3;
  const auto dir = direction == "bidirectional" ? dnnl::rnn_direction::bidirectional_concat
                   : direction == "reverse"     ? dnnl::rnn_direction::unidirectional_right2left
                                                : dnnl::rnn_direction::unidirectional_left2right;
  if (b.act() != dt::f32 || b.quantized()) {
    throw Error("", l.name, "precision", "oneDNN's fused RNN primitives run f32 here only");
  }
  const memory src = b.Input(l.inputs[0], PlainDesc(in));
  const InitialStates initial = InitialStatesOf(b, lstm, dirs, n, h);
  // The IR's [dirs, N, H] states are oneDNN's ldnc with one layer.
  const memory::desc state_md({1, dirs, n, h}, dt::f32, tag::ldnc);
  // oneDNN's LSTM takes both states or neither: the one not given is zeros.
  const bool any_state = initial.h || initial.c;
  const memory::desc src_iter_md = any_state ? state_md : memory::desc(),
                     src_iter_c_md = lstm && any_state ? state_md : memory::desc();
  auto state_memory = [&](const std::optional<memory>& given) {
    if (given) return memory(state_md, b.engine(), given->get_data_handle());
    return b.State(state_md);  // zeros
  };
  const memory::desc src_md({t, n, c}, dt::f32, tag::ntc),
      dst_md({t, n, dirs * h}, dt::f32, tag::ntc);
  // The final cell state, where the layer outputs it: oneDNN's dst_iter_c (which needs dst_iter,
  // the final hidden state, too: memory of its own).
  const std::optional<memory> final_cell = FinalCellOutput(b, lstm, dirs, n, h);
  const memory::desc dst_iter_md = final_cell ? state_md : memory::desc();
  const memory::desc wl_any({1, dirs, c, gates, h}, dt::f32, tag::any),
      wi_any({1, dirs, h, gates, h}, dt::f32, tag::any);
  // LSTM: one bias per gate; lbr_gru: three gates plus the recurrent n bias. Four either way.
  const int64_t bias_gates = 4;
  const memory::desc bias_md({1, dirs, bias_gates, h}, dt::f32, tag::ldgo);
  const auto fwd = dnnl::prop_kind::forward_inference;

  // The IR keeps per direction w_x [C, G*H], w_h [H, G*H], bias [G*H] (+ bias_hn [H] for GRU),
  // gates i, f, g, o (oneDNN's LSTM order) and r, z, n (oneDNN's GRU wants u=z, r, o=n).
  const std::vector<int> gate_from =
      lstm ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{1, 0, 2};
  std::vector<float> wl(dirs * c * gates * h), wi(dirs * h * gates * h),
      bias(dirs * bias_gates * h, 0);
  const size_t per_dir = lstm ? 3 : 4;
  for (int64_t d = 0; d < dirs; ++d) {
    const std::vector<float> wx = b.WeightValues(d * per_dir), wh = b.WeightValues(d * per_dir + 1),
                             bx = b.WeightValues(d * per_dir + 2);
    for (int64_t g = 0; g < gates; ++g) {
      const int64_t from = gate_from[g];
      for (int64_t j = 0; j < h; ++j) {
        for (int64_t k = 0; k < c; ++k)
          wl[((d * c + k) * gates + g) * h + j] = wx[k * gates * h + from * h + j];
        for (int64_t k = 0; k < h; ++k)
          wi[((d * h + k) * gates + g) * h + j] = wh[k * gates * h + from * h + j];
        bias[(d * bias_gates + g) * h + j] = bx[from * h + j];
      }
    }
    if (!lstm) {
      const std::vector<float> bhn = b.WeightValues(d * per_dir + 3);
      for (int64_t j = 0; j < h; ++j) bias[(d * bias_gates + 3) * h + j] = bhn[j];
    }
  }
  const memory::desc wl_user({1, dirs, c, gates, h}, dt::f32, tag::ldigo),
      wi_user({1, dirs, h, gates, h}, dt::f32, tag::ldigo);
  const memory out = b.NewOutput(PlainDesc(l.output_shapes[0]));
  Args args = {{DNNL_ARG_SRC_LAYER, memory(src_md, b.engine(), src.get_data_handle())},
               {DNNL_ARG_DST_LAYER, memory(dst_md, b.engine(), out.get_data_handle())}};
  if (any_state) args[DNNL_ARG_SRC_ITER] = state_memory(initial.h);
  if (lstm && any_state) args[DNNL_ARG_SRC_ITER_C] = state_memory(initial.c);
  if (final_cell) {
    args[DNNL_ARG_DST_ITER] = memory(state_md, b.engine());
    args[DNNL_ARG_DST_ITER_C] = memory(state_md, b.engine(), final_cell->get_data_handle());
  }
  auto finish = [&](const auto& pd, const dnnl::primitive& p) {
    args[DNNL_ARG_WEIGHTS_LAYER] = b.WeightMemory(wl, wl_user, pd.weights_layer_desc());
    args[DNNL_ARG_WEIGHTS_ITER] = b.WeightMemory(wi, wi_user, pd.weights_iter_desc());
    args[DNNL_ARG_BIAS] = b.WeightMemory(bias, bias_md, pd.bias_desc());
    if (pd.workspace_desc().get_size() > 0)
      args[DNNL_ARG_WORKSPACE] = memory(pd.workspace_desc(), b.engine());
    b.AddPrimitive(pd, p, std::move(args));
  };
  if (lstm) {
    dnnl::lstm_forward::desc desc(fwd, dir, src_md, src_iter_md, src_iter_c_md, wl_any, wi_any,
                                  bias_md, dst_md, dst_iter_md, dst_iter_md);
    dnnl::lstm_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
    finish(pd, dnnl::lstm_forward(pd));
  } else {
    dnnl::lbr_gru_forward::desc desc(fwd, dir, src_md, src_iter_md, wl_any, wi_any, bias_md, dst_md,
                                     memory::desc());
    dnnl::lbr_gru_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
    finish(pd, dnnl::lbr_gru_forward(pd));
  }
}

// The recurrence of an i8 run through ntpbench's int8-weight panels (BuildDecomposed says when):
// each step, per direction, hg = state x W_h from the int8 weights quantized per output channel
// as the i8 matmul would have them, then the gate math; the state stays f32. `xg`: the input
// projections [N, T, dirs * G*H] with their bias.
void BuildInt8PanelRecurrence(Builder& b, bool lstm, int64_t dirs, int64_t n, int64_t t_len,
                              int64_t h, size_t per_dir, bool reverse_only, const memory& xg,
                              const InitialStates& initial,
                              const std::shared_ptr<std::vector<float>>& bias_hn) {
  const ResolvedLayer& l = b.layer();
  const int64_t gh = (lstm ? 4 : 3) * h;
  std::vector<std::shared_ptr<const WeightOnlyDense>> kernels;
  for (int64_t d = 0; d < dirs; ++d) {
    const QuantizedWeights qh =
        QuantizeWeights(b.WeightValues(d * per_dir + 1), gh, 1, WeightLevels());
    GroupQuantizedWeights g;  // one scale per channel: every group of a channel has it
    g.inputs = h;
    g.outputs = gh;
    g.groups = (h + kWeightGroup - 1) / kWeightGroup;
    g.levels = WeightLevels();
    g.values = qh.values;
    g.scales.resize(static_cast<size_t>(g.groups * gh));
    for (int64_t group = 0; group < g.groups; ++group) {
      for (int64_t j = 0; j < gh; ++j) g.scales[group * gh + j] = 1.0f / qh.scales[j];
    }
    kernels.push_back(
        std::make_shared<const WeightOnlyDense>(g, WeightOnlyKernelFor(b.option("weight_only"))));
  }
  // Aligned as oneDNN's buffers are (Eigen's exp/tanh round unaligned heads differently).
  using Floats = std::vector<float, Eigen::aligned_allocator<float>>;
  auto state = std::make_shared<Floats>(dirs * n * h, 0.0f);
  auto cell = std::make_shared<Floats>(lstm ? dirs * n * h : 0, 0.0f);
  auto hg = std::make_shared<Floats>(dirs * n * gh, 0.0f);
  b.CountScratchpad(
      static_cast<int64_t>(sizeof(float) * (state->size() + cell->size() + hg->size())));
  const memory out = b.NewOutput(PlainDesc(l.output_shapes[0]));
  const std::optional<memory> final_cell = FinalCellOutput(b, lstm, dirs, n, h);
  HostRecurrence r;
  r.dirs = dirs, r.n = n, r.h = h, r.gh = gh, r.t_len = t_len, r.lstm = lstm;
  r.reverse_only = reverse_only;
  r.xg = static_cast<const float*>(xg.get_data_handle());
  r.hg = hg->data(), r.state = state->data();
  r.cell = final_cell ? static_cast<float*>(final_cell->get_data_handle()) : cell->data();
  r.out = static_cast<float*>(out.get_data_handle());
  r.bias_hn = bias_hn->data();
  const int threads = EffectiveThreads(b.config());
  b.AddHost([=, keep = std::vector<memory>{xg, out, final_cell.value_or(out)},
             own = std::make_tuple(state, cell, hg, bias_hn)] {
    r.Start(initial);
    // The directions in turn: a step reads one direction's weights (recurrent_stream.h).
    for (int64_t d = 0; d < dirs; ++d) {
      for (int64_t s = 0; s < t_len; ++s) {
        kernels[d]->Run(r.state + d * n * h, n, r.hg + d * n * gh, threads);
        r.Gates(s, d);
      }
    }
  });
  b.SetKernel(kernels.front()->Name() + ", f32 state (oneDNN's s8 matmul here is gemm:jit)");
}

void BuildDecomposed(Builder& b, bool lstm) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t n = in[0], t_len = in[1], c = in[2], h = l.attrs.Int("units");
  const std::string direction = l.attrs.Str("direction");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1, gh = (lstm ? 4 : 3) * h;
  const bool reverse_only = direction == "reverse";
  const size_t per_dir = lstm ? 3 : 4;

  // The IR's per-direction w_x [C, G*H], w_h [H, G*H], bias [G*H] (+ bias_hn [H] for GRU):
  // w_x and bias side by side for the input projection of both directions.
  std::vector<float> wx_all(c * dirs * gh), bias_all(dirs * gh);
  auto bias_hn = std::make_shared<std::vector<float>>();
  for (int64_t d = 0; d < dirs; ++d) {
    const std::vector<float> wx = b.WeightValues(d * per_dir), bx = b.WeightValues(d * per_dir + 2);
    for (int64_t k = 0; k < c; ++k)
      std::memcpy(&wx_all[k * dirs * gh + d * gh], &wx[k * gh], sizeof(float) * gh);
    std::memcpy(&bias_all[d * gh], bx.data(), sizeof(float) * gh);
    if (!lstm) {
      const std::vector<float> bhn = b.WeightValues(d * per_dir + 3);
      bias_hn->insert(bias_hn->end(), bhn.begin(), bhn.end());
    }
  }

  // The input projection (compute-bound) runs in bf16 in a bf16 run where the CPU has bf16
  // arithmetic (on a Zen 5 VM an LSTM of H 256 fed 2048 features, T 100, batch 16: 67-70 ms
  // with an f32 projection, 37 ms in bf16), in f32 where oneDNN would emulate bf16 (slower than
  // f32), and in i8 runs u8/s8 x s8 like a dense layer; the recurrent matmul, which streams its
  // weights at every step, in the run's precision; the gate math, the cell state and the output
  // in f32.
  const bool q = b.quantized();
  const bool bf16_projection = b.act() == dt::bf16 && HasNativeBf16Arithmetic();
  const dt projection_type = q ? dt::s8 : bf16_projection ? dt::bf16 : dt::f32;
  const dt x_type = q ? QuantizedType(b.range(l.inputs[0])) : projection_type;
  const memory src = b.Input(l.inputs[0], PlainDesc(in, x_type));
  const InitialStates initial = InitialStatesOf(b, lstm, dirs, n, h);
  const memory::desc src_md({n * t_len, c}, x_type, tag::ab),
      xg_md({n * t_len, dirs * gh}, dt::f32, tag::ab),
      wx_any({c, dirs * gh}, projection_type, tag::any),
      wx_user({c, dirs * gh}, q ? dt::s8 : dt::f32, tag::ab),
      bias_md({1, dirs * gh}, dt::f32, tag::ab);
  const memory xg = b.Scratch(xg_md);
  {
    dnnl::primitive_attr attr = UserScratchpad();
    QuantizedWeights qx;
    if (q) {
      qx = QuantizeWeights(wx_all, dirs * gh, 1, WeightLevels());
      const float x_scale = b.scale(l.inputs[0]);
      attr.set_output_scales(1 << 1, DequantizeScales(x_scale, qx.scales));
      bias_all = AccumulatorBias(bias_all, x_scale, qx.scales);
    }
    dnnl::matmul::desc desc(src_md, wx_any, bias_md, xg_md);
    dnnl::matmul::primitive_desc pd(desc, attr, b.engine());
    // f32 as a 1x1 convolution where the matmul is oneDNN's generic GEMM (DenseAsConvolution;
    // i8 keeps the matmul and its per-column scales).
    const int64_t rows = n * t_len, columns = dirs * gh;
    std::optional<dnnl::convolution_forward::primitive_desc> conv;
    if (!q && projection_type == dt::f32 && DenseAsConvolution(b, rows, pd.impl_info_str())) {
      try {
        dnnl::convolution_forward::primitive_desc cv(
            DenseAsConvolutionDesc(rows, c, columns, dt::f32, dt::f32, dt::f32, true), attr,
            b.engine());
        if (std::string(cv.impl_info_str()).find("ref") == std::string::npos) conv = cv;
      } catch (const dnnl::error&) {
      }
    }
    if (conv) {
      // w_x [C, dirs * G*H] is OIhw's dims {columns, C, 1, 1} stored I-major: iohw.
      const memory::desc w_user({columns, c, 1, 1}, dt::f32, tag::iohw),
          b_user({columns}, dt::f32, tag::x);
      b.AddPrimitive(*conv, dnnl::convolution_forward(*conv),
                     {{DNNL_ARG_SRC, memory(conv->src_desc(), b.engine(), src.get_data_handle())},
                      {DNNL_ARG_WEIGHTS, b.WeightMemory(wx_all, w_user, conv->weights_desc())},
                      {DNNL_ARG_BIAS, b.WeightMemory(bias_all, b_user, conv->bias_desc())},
                      {DNNL_ARG_DST, memory(conv->dst_desc(), b.engine(), xg.get_data_handle())}});
    } else {
      b.AddPrimitive(pd, dnnl::matmul(pd),
                     {{DNNL_ARG_SRC, memory(src_md, b.engine(), src.get_data_handle())},
                      {DNNL_ARG_WEIGHTS, q ? b.WeightMemory(qx.values, wx_user, pd.weights_desc())
                                           : b.WeightMemory(wx_all, wx_user, pd.weights_desc())},
                      {DNNL_ARG_BIAS, b.WeightMemory(bias_all, bias_md, bias_md)},
                      {DNNL_ARG_DST, xg}});
    }
  }

  // Batch 1-4 in f32 or bf16: ntpbench's streamed recurrence (recurrent_stream.h), unless the
  // option asks for the matmul per step.
  const std::string route = b.option("rnn");
  const bool streams = StreamedRecurrence::Applies(n, q, b.act() == dt::f32 || b.act() == dt::bf16);
  if (route == "streamed" && !streams) {
    throw Error("", l.name, "onednn.rnn",
                "streamed runs f32 and bf16 at batch 1-4 only (here batch " + std::to_string(n) +
                    ", " + (q ? "i8" : "this precision") + "); use auto or decomposed");
  }
  if (route == "streamed" || (route == "auto" && streams)) {
    auto sr = std::make_shared<StreamedRecurrence>();
    sr->n = n;
    sr->t_len = t_len;
    sr->h = h;
    sr->dirs = dirs;
    sr->lstm = lstm;
    sr->reverse_only = reverse_only;
    sr->bf16 = b.act() == dt::bf16;
    sr->bf16_dot = sr->bf16 && HasNativeBf16Arithmetic() && Bf16DenseHasDotProducts();
    sr->prefetch = StreamedRecurrence::PrefetchesPanels(sr->direction_bytes(),
                                                        LastLevelCacheBytes(b.config()));
    for (int64_t d = 0; d < dirs; ++d) sr->PackDirection(b.WeightValues(d * per_dir + 1));
    if (!lstm) sr->bias_hn = *bias_hn;
    sr->Allocate();
    b.CountScratchpad(sr->working_bytes());
    const memory out = b.NewOutput(PlainDesc(l.output_shapes[0]));
    const std::optional<memory> final_cell = FinalCellOutput(b, lstm, dirs, n, h);
    float* const xg_p = static_cast<float*>(xg.get_data_handle());
    float* const out_p = static_cast<float*>(out.get_data_handle());
    float* const cell_p = final_cell ? static_cast<float*>(final_cell->get_data_handle()) : nullptr;
    const size_t cell_size = static_cast<size_t>(dirs * n * h);
    const int threads = EffectiveThreads(b.config());
    b.AddHost([sr, xg_p, out_p, cell_p, cell_size, threads, initial,
               keep = std::vector<memory>{xg, out, final_cell.value_or(out)}] {
      sr->Run(xg_p, out_p, threads, initial.h0(), initial.c0());
      if (cell_p) std::copy(sr->cell(), sr->cell() + cell_size, cell_p);
    });
    b.SetKernel(std::string("ntpbench streamed ") +
                (sr->bf16_dot ? "bf16 dot-product"
                 : sr->bf16   ? "bf16"
                              : "f32") +
                " recurrence");
    return;
  }

  // i8 where oneDNN's s8 matrix-vector product is its generic GEMM (no VNNI: gemm:jit ran
  // DeepSpeech H 2048's i8 recurrence at ~0.5 GFLOP/s, 12.9 s an inference, on a Zen 3 VM): the
  // same per-channel int8 weights streamed by ntpbench's int8-weight panels
  // (weight_only_dense.h), the state kept f32 instead of s8.
  if (q && route != "fused") {
    const memory::desc probe_src({n, h}, dt::s8, tag::ab), probe_w({h, gh}, dt::s8, tag::any),
        probe_dst({n, gh}, dt::f32, tag::ab);
    const dnnl::matmul::primitive_desc probe(dnnl::matmul::desc(probe_src, probe_w, probe_dst),
                                             UserScratchpad(), b.engine());
    if (std::string(probe.impl_info_str()).rfind("gemm", 0) == 0) {
      return BuildInt8PanelRecurrence(b, lstm, dirs, n, t_len, h, per_dir, reverse_only, xg,
                                      initial, bias_hn);
    }
  }

  const memory::desc state_md({dirs, n, h}, dt::f32, tag::abc),
      hg_md({dirs, n, gh}, dt::f32, tag::abc);
  const memory state = b.Scratch(state_md), hg = b.Scratch(hg_md);
  // The recurrent matmul reads the state itself in f32; in bf16 or i8, a copy a reorder makes
  // after every update. In i8 the state is s8 at the fixed scale 127: |h| < 1 for both cells
  // (h = o * tanh(c) for LSTM; a convex mix of tanh values and h0 = 0 for GRU).
  const dt state_type = q ? dt::s8 : b.act();
  const bool low = state_type != dt::f32;
  constexpr float kStateScale = 127.0f;
  const memory state_act =
      low ? b.Scratch(memory::desc({dirs, n, h}, state_type, tag::abc)) : state;
  dnnl::primitive_attr to_act_attr;
  if (q) to_act_attr.set_output_scales(0, {kStateScale});
  const dnnl::reorder to_act =
      low ? dnnl::reorder(dnnl::reorder::primitive_desc(state, state_act, to_act_attr))
          : dnnl::reorder();
  const Args to_act_args = {{DNNL_ARG_FROM, state}, {DNNL_ARG_TO, state_act}};
  const int64_t act_bytes = static_cast<int64_t>(memory::data_type_size(state_type));
  const memory out = b.NewOutput(PlainDesc(l.output_shapes[0]));
  const std::optional<memory> final_cell = FinalCellOutput(b, lstm, dirs, n, h);
  auto cell = std::make_shared<std::vector<float>>(lstm && !final_cell ? dirs * n * h : 0);
  b.CountScratchpad(static_cast<int64_t>(sizeof(float) * cell->size()));
  float* const state_p = static_cast<float*>(state.get_data_handle());
  float* const hg_p = static_cast<float*>(hg.get_data_handle());
  float* const xg_p = static_cast<float*>(xg.get_data_handle());
  float* const out_p = static_cast<float*>(out.get_data_handle());

  const dt w_type = q ? dt::s8 : b.act();
  const memory::desc src2_md({n, h}, state_type, tag::ab), dst2_md({n, gh}, dt::f32, tag::ab),
      w2_any({h, gh}, w_type, tag::any), w2_user({h, gh}, q ? dt::s8 : dt::f32, tag::ab);
  // One 2D matmul per direction, [N, H] x [H, G*H] (a batched [dirs, N, H] one ran the bilstm
  // 1.9x slower here). In i8 each direction has its own output scales, so its own primitive.
  std::vector<Args> args(dirs);
  std::vector<dnnl::matmul> recurrent(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    const std::vector<float> wh = b.WeightValues(d * per_dir + 1);
    dnnl::primitive_attr attr = UserScratchpad();
    QuantizedWeights qh;
    if (q) {
      qh = QuantizeWeights(wh, gh, 1, WeightLevels());
      attr.set_output_scales(1 << 1, DequantizeScales(kStateScale, qh.scales));
    }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src2_md, w2_any, dst2_md), attr, b.engine());
    recurrent[d] = dnnl::matmul(pd);
    char* const src_d = static_cast<char*>(state_act.get_data_handle()) + d * n * h * act_bytes;
    args[d] = {{DNNL_ARG_SRC, memory(src2_md, b.engine(), src_d)},
               {DNNL_ARG_WEIGHTS, q ? b.WeightMemory(qh.values, w2_user, pd.weights_desc())
                                    : b.WeightMemory(wh, w2_user, pd.weights_desc())},
               {DNNL_ARG_DST, memory(dst2_md, b.engine(), hg_p + d * n * gh)}};
    if (pd.scratchpad_desc().get_size() > 0) {
      args[d][DNNL_ARG_SCRATCHPAD] = memory(pd.scratchpad_desc(), b.engine());
      b.CountScratchpad(static_cast<int64_t>(pd.scratchpad_desc().get_size()));
    }
  }
  // The host code and the per-direction matmuls use raw pointers into these: the step keeps
  // them alive (memory objects own their buffers, and this function's locals go away).
  HostRecurrence r;
  r.dirs = dirs, r.n = n, r.h = h, r.gh = gh, r.t_len = t_len, r.lstm = lstm;
  r.reverse_only = reverse_only;
  r.xg = xg_p, r.hg = hg_p, r.state = state_p, r.out = out_p;
  r.cell = final_cell ? static_cast<float*>(final_cell->get_data_handle()) : cell->data();
  r.bias_hn = bias_hn->data();
  b.AddHost([=, keep = std::vector<memory>{state, state_act, hg, xg, final_cell.value_or(out)}] {
    // the initial state
    r.Start(initial);
  });
  if (low) b.Add(to_act, to_act_args);
  // The directions in turn, as the streamed route runs them: a step's matmul reads one
  // direction's weights, much of which the last-level cache still holds from the step before
  // (recurrent_stream.h). The reorder converts both directions' states; the other's is unused.
  for (int64_t d = 0; d < dirs; ++d) {
    for (int64_t s = 0; s < t_len; ++s) {
      b.Add(recurrent[d], args[d]);
      b.AddHost([=, own = std::make_tuple(cell, bias_hn)] { r.Gates(s, d); });  // r points here
      if (low) b.Add(to_act, to_act_args);
    }
  }
}

bool FusedRnn(const Builder& b) { return b.option("rnn") == "fused"; }

void BuildLstm(Builder& b) { FusedRnn(b) ? BuildRecurrent(b, true) : BuildDecomposed(b, true); }
void BuildGru(Builder& b) { FusedRnn(b) ? BuildRecurrent(b, false) : BuildDecomposed(b, false); }

}  // namespace

void AddRecurrentOps(OpTable* table) {
  (*table)["lstm"] = BuildLstm;
  (*table)["gru"] = BuildGru;
}

}  // namespace ntpb::onednn
