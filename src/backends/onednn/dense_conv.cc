// dense (matmul with weights), matmul of two activations, conv2d (grouped, depthwise, dilated).
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

// The data types of a conv2d or dense: act() throughout, or in i8 runs u8/s8 source (by the
// calibrated range), s8 weights and an f32 result (dequantized by the output scales).
struct HostTypes {
  dt src, weights, dst;
};
HostTypes TypesFor(const Builder& b) {
  if (!b.quantized()) return {b.act(), b.act(), b.act()};
  return {QuantizedType(b.range(b.layer().inputs[0])), dt::s8, dt::f32};
}

// i8 runs: quantizes the weights per output channel, turns the bias into accumulator units and
// sets the output scales that dequantize the result. Nothing to do otherwise.
QuantizedWeights Quantize(const Builder& b, int64_t channels, int64_t inner,
                          std::vector<float>* weights, std::vector<float>* biases,
                          dnnl::primitive_attr* attr) {
  if (!b.quantized()) return {};
  QuantizedWeights q = QuantizeWeights(*weights, channels, inner);
  const float src_scale = b.scale(b.layer().inputs[0]);
  attr->set_output_scales(1 << 1, DequantizeScales(src_scale, q.scales));  // per output channel
  if (!biases->empty()) *biases = AccumulatorBias(*biases, src_scale, q.scales);
  return q;
}

memory HostWeightMemory(Builder& b, const std::vector<float>& weights, const QuantizedWeights& q,
                        const memory::dims& dims, tag user_tag, const memory::desc& wanted) {
  if (b.quantized()) return b.WeightMemory(q.values, memory::desc(dims, dt::s8, user_tag), wanted);
  return b.WeightMemory(weights, memory::desc(dims, dt::f32, user_tag), wanted);
}

void BuildDense(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t k = in.back(), units = l.attrs.Int("units"), rows = NumElements(in) / k;
  const HostTypes types = TypesFor(b);
  std::vector<float> weights = b.WeightValues(0), biases;
  if (l.attrs.Bool("bias")) biases = b.WeightValues(1);
  dnnl::primitive_attr attr = HostAttr(b);
  const QuantizedWeights qw = Quantize(b, units, 1, &weights, &biases, &attr);
  const memory src_all =
      b.quantized() ? b.Input(l.inputs[0], PlainDesc(in, types.src)) : b.PlainInput(l.inputs[0]);
  const memory::desc src_md({rows, k}, types.src, tag::ab),
      dst_md({rows, units}, types.dst, tag::ab);
  const memory::desc w_any({k, units}, types.weights, tag::any);
  const bool bias = !biases.empty();
  const memory::desc bias_md = bias ? memory::desc({1, units}, dt::f32, tag::ab) : memory::desc();
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, w_any, bias_md, dst_md), attr,
                                  b.engine());
  const memory out = b.NewOutput(PlainDesc(l.output_shapes[0], types.dst));
  Args args = {{DNNL_ARG_SRC, memory(src_md, b.engine(), src_all.get_data_handle())},
               {DNNL_ARG_DST, memory(dst_md, b.engine(), out.get_data_handle())}};
  args[DNNL_ARG_WEIGHTS] = HostWeightMemory(b, weights, qw, {k, units}, tag::ab, pd.weights_desc());
  if (bias) args[DNNL_ARG_BIAS] = b.WeightMemory(biases, bias_md, pd.bias_desc());
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
  // A batchnorm fused after the conv is folded into its weights and bias, once, here.
  std::vector<float> weights = b.WeightValues(0), biases;
  if (l.attrs.Bool("bias")) biases = b.WeightValues(1);
  if (const ResolvedLayer* bn = b.fusion().batchnorm) {
    FoldBatchnorm({b.WeightValues(*bn, 0), b.WeightValues(*bn, 1), b.WeightValues(*bn, 2),
                   b.WeightValues(*bn, 3)},
                  bn->attrs.Float("epsilon"), &weights, &biases);
  }
  const HostTypes types = TypesFor(b);
  dnnl::primitive_attr attr = HostAttr(b);
  const QuantizedWeights qw = Quantize(b, filters, static_cast<int64_t>(weights.size()) / filters,
                                       &weights, &biases, &attr);
  const memory::desc src_any(Dims(in), types.src, tag::any),
      dst_any(Dims(out), types.dst, tag::any), w_any(w_dims, types.weights, tag::any);
  const bool bias = !biases.empty();
  const memory::desc bias_md = bias ? memory::desc({filters}, dt::f32, tag::a) : memory::desc();
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any, w_any,
      bias_md, dst_any, {s[0], s[1]}, {d[0] - 1, d[1] - 1}, {p[0], p[1]}, {p[2], p[3]});
  dnnl::convolution_forward::primitive_desc pd(desc, attr, b.engine());
  // A fused residual add reads its other operand in place. Only when that operand already has
  // the layout and type of the result, and oneDNN keeps the same kernel with the extra post-op
  // (oneDNN 2.6 falls back to reference kernels for some: 40x slower); else the add stays a
  // step of its own.
  memory residual;
  if (b.fusion().residual) {
    residual = b.Input(b.fusion().ResidualOperand());
    const memory::desc result = pd.dst_desc();
    std::optional<dnnl::convolution_forward::primitive_desc> with_add;
    if (residual.get_desc() == result) {
      dnnl::primitive_attr add_attr = HostAttr(b, &result);
      if (b.quantized()) {
        int mask = 0;
        std::vector<float> scales;
        attr.get_output_scales(mask, scales);
        add_attr.set_output_scales(mask, scales);
      }
      with_add.emplace(desc, add_attr, b.engine());
    }
    if (with_add && std::string(with_add->impl_info_str()) == pd.impl_info_str() &&
        with_add->dst_desc() == result) {
      pd = *with_add;
    } else {
      b.DropResidual();
      residual = memory();
    }
  }
  const memory src = b.Input(l.inputs[0], pd.src_desc());
  const memory dst = b.NewOutput(pd.dst_desc());
  Args args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
  if (residual) {
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(ResidualPostOpIndex(b)) | DNNL_ARG_SRC_1] = residual;
  }
  args[DNNL_ARG_WEIGHTS] = HostWeightMemory(
      b, weights, qw, w_dims, groups == 1 ? tag::oihw : tag::goihw, pd.weights_desc());
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
