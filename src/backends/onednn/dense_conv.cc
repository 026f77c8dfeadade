// dense (matmul with weights), matmul of two activations, conv2d (grouped, depthwise, dilated).
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

void BuildDense(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t k = in.back(), units = l.attrs.Int("units"), rows = NumElements(in) / k;
  const memory src_all = b.PlainInput(l.inputs[0]);
  const memory::desc src_md({rows, k}, b.act(), tag::ab), dst_md({rows, units}, b.act(), tag::ab);
  const memory::desc w_any({k, units}, b.act(), tag::any);
  const bool bias = l.attrs.Bool("bias");
  const memory::desc bias_md = bias ? memory::desc({1, units}, dt::f32, tag::ab) : memory::desc();
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, w_any, bias_md, dst_md), HostAttr(b),
                                  b.engine());
  const memory out = b.NewOutput(b.Plain(l.output_shapes[0]));
  Args args = {{DNNL_ARG_SRC, memory(src_md, b.engine(), src_all.get_data_handle())},
               {DNNL_ARG_DST, memory(dst_md, b.engine(), out.get_data_handle())}};
  args[DNNL_ARG_WEIGHTS] = b.WeightMemory(
      b.WeightValues(0), memory::desc({k, units}, dt::f32, tag::ab), pd.weights_desc());
  if (bias) {
    args[DNNL_ARG_BIAS] = b.WeightMemory(b.WeightValues(1), bias_md, pd.bias_desc());
  }
  b.AddPrimitive(pd, dnnl::matmul(pd), std::move(args));
}

void BuildMatmul(Builder& b) {
  const ResolvedLayer& l = b.layer();
  Shape a = l.input_shapes[0], w = l.input_shapes[1];
  const Shape& out = l.output_shapes[0];
  while (w.size() < a.size()) w.insert(w.begin(), 1);  // broadcast the right-hand side
  const memory ma = b.PlainInput(l.inputs[0]), mw = b.PlainInput(l.inputs[1]);
  const memory::desc a_md = b.Plain(a), w_md = b.Plain(w), o_md = b.Plain(out);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_md, o_md), UserScratchpad(),
                                  b.engine());
  const memory mo = b.NewOutput(o_md);
  b.AddPrimitive(pd, dnnl::matmul(pd),
                 {{DNNL_ARG_SRC, memory(a_md, b.engine(), ma.get_data_handle())},
                  {DNNL_ARG_WEIGHTS, memory(w_md, b.engine(), mw.get_data_handle())},
                  {DNNL_ARG_DST, mo}});
}

void BuildConv(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const int64_t groups = l.attrs.Int("groups"), filters = l.attrs.Int("filters");
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation"),
             p = l.attrs.Ints("padding");
  const int64_t cg = in[1] / groups;
  const memory::dims w_dims = groups == 1 ? memory::dims{filters, in[1], k[0], k[1]}
                                          : memory::dims{groups, filters / groups, cg, k[0], k[1]};
  const memory::desc src_any(Dims(in), b.act(), tag::any), dst_any(Dims(out), b.act(), tag::any),
      w_any(w_dims, b.act(), tag::any);
  // A batchnorm fused after the conv is folded into its weights and bias, once, here.
  std::vector<float> weights = b.WeightValues(0), biases;
  if (l.attrs.Bool("bias")) biases = b.WeightValues(1);
  if (const ResolvedLayer* bn = b.fusion().batchnorm) {
    FoldBatchnorm({b.WeightValues(*bn, 0), b.WeightValues(*bn, 1), b.WeightValues(*bn, 2),
                   b.WeightValues(*bn, 3)},
                  bn->attrs.Float("epsilon"), &weights, &biases);
  }
  const bool bias = !biases.empty();
  const memory::desc bias_md = bias ? memory::desc({filters}, dt::f32, tag::a) : memory::desc();
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any, w_any,
      bias_md, dst_any, {s[0], s[1]}, {d[0] - 1, d[1] - 1}, {p[0], p[1]}, {p[2], p[3]});
  dnnl::convolution_forward::primitive_desc pd(desc, HostAttr(b), b.engine());
  const memory src = b.Input(l.inputs[0], pd.src_desc());
  const memory dst = b.NewOutput(pd.dst_desc());
  Args args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
  args[DNNL_ARG_WEIGHTS] =
      b.WeightMemory(weights, memory::desc(w_dims, dt::f32, groups == 1 ? tag::oihw : tag::goihw),
                     pd.weights_desc());
  if (bias) args[DNNL_ARG_BIAS] = b.WeightMemory(biases, bias_md, pd.bias_desc());
  b.AddPrimitive(pd, dnnl::convolution_forward(pd), std::move(args));
}

}  // namespace

void AddDenseConvOps(OpTable* table) {
  (*table)["dense"] = BuildDense;
  (*table)["matmul"] = BuildMatmul;
  (*table)["conv2d"] = BuildConv;
}

}  // namespace ntpb::onednn
