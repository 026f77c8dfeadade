// lstm and gru on oneDNN's RNN primitives (lstm_forward, lbr_gru_forward: linear-before-reset,
// as the IR's GRU), reading the IR's [N, T, C] tensors in place through the ntc format.
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

void BuildRecurrent(Builder& b, bool lstm) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t n = in[0], t = in[1], c = in[2], h = l.attrs.Int("units");
  const std::string direction = l.attrs.Str("direction");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1, gates = lstm ? 4 : 3;
  const auto dir = direction == "bidirectional" ? dnnl::rnn_direction::bidirectional_concat
                   : direction == "reverse"     ? dnnl::rnn_direction::unidirectional_right2left
                                                : dnnl::rnn_direction::unidirectional_left2right;
  const memory src = b.PlainInput(l.inputs[0]);
  const memory::desc src_md({t, n, c}, dt::f32, tag::ntc),
      dst_md({t, n, dirs * h}, dt::f32, tag::ntc);
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
  auto finish = [&](const auto& pd, const dnnl::primitive& p) {
    args[DNNL_ARG_WEIGHTS_LAYER] = b.WeightMemory(wl, wl_user, pd.weights_layer_desc());
    args[DNNL_ARG_WEIGHTS_ITER] = b.WeightMemory(wi, wi_user, pd.weights_iter_desc());
    args[DNNL_ARG_BIAS] = b.WeightMemory(bias, bias_md, pd.bias_desc());
    if (pd.workspace_desc().get_size() > 0)
      args[DNNL_ARG_WORKSPACE] = memory(pd.workspace_desc(), b.engine());
    b.AddPrimitive(pd, p, std::move(args));
  };
  if (lstm) {
    dnnl::lstm_forward::desc desc(fwd, dir, src_md, memory::desc(), memory::desc(), wl_any, wi_any,
                                  bias_md, dst_md, memory::desc(), memory::desc());
    dnnl::lstm_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
    finish(pd, dnnl::lstm_forward(pd));
  } else {
    dnnl::lbr_gru_forward::desc desc(fwd, dir, src_md, memory::desc(), wl_any, wi_any, bias_md,
                                     dst_md, memory::desc());
    dnnl::lbr_gru_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
    finish(pd, dnnl::lbr_gru_forward(pd));
  }
}

void BuildLstm(Builder& b) { BuildRecurrent(b, true); }
void BuildGru(Builder& b) { BuildRecurrent(b, false); }

}  // namespace

void AddRecurrentOps(OpTable* table) {
  (*table)["lstm"] = BuildLstm;
  (*table)["gru"] = BuildGru;
}

}  // namespace ntpb::onednn
