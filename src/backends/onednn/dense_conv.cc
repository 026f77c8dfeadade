// dense (matmul with weights), matmul of two activations, conv2d (grouped, depthwise, dilated).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "src/backends/common/post_op_fusion.h"
#include "src/backends/onednn/bf16_dense.h"
#include "src/backends/onednn/bf16_depthwise.h"
#include "src/backends/onednn/builder.h"
#include "src/backends/onednn/f32_dense.h"
#include "src/backends/onednn/inverted_residual.h"
#include "src/backends/onednn/known_defects.h"
#include "src/backends/onednn/streamed_conv.h"
#include "src/backends/onednn/weight_only_dense.h"
#include "src/backends/onednn/winograd_3x3.h"
#include "src/ops/activations.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

bool IsInt8(dt t) { return t == dt::u8 || t == dt::s8; }

// How a conv2d or dense computes: in act() throughout; or, in i8 runs, from a u8/s8 source (by
// its calibrated range) with s8 weights, dequantized by per-channel output scales, the result
// stored f32 or requantized to u8/s8 when every reader quantizes it (StoreOutputQuantized).
struct HostPrecision {
  dt src, weights, dst;
  QuantizedWeights q;
  std::vector<float> output_scales;  // i8: per output channel
  float out_scale = 1.0f;            // i8 and a quantized result: its scale

  // Applies the output scales (if any) to attributes made by HostAttr.
  dnnl::primitive_attr Attr(const Builder& b, const memory::desc* residual = nullptr,
                            bool residual_in_place = false) const {
    dnnl::primitive_attr attr = HostAttr(b, residual, out_scale, residual_in_place);
    if (!output_scales.empty()) attr.set_output_scales(1 << 1, output_scales);  // per channel
    return attr;
  }
  // Decides the result's type; call again when the fused layers change.
  void ChooseResult(const Builder& b) {
    if (!b.quantized()) return;
    const bool store_q = b.StoreOutputQuantized();
    dst = store_q ? QuantizedType(b.range(b.output_name())) : dt::f32;
    out_scale = store_q ? b.scale(b.output_name()) : 1.0f;
  }
  // oneDNN 2.6's int8 kernels without VNNI halve the weights of a primitive with an s8 source
  // as they reorder them (memory_extra_flag_scale_adjust) and double its output scales: the 7-bit
  // weights ntpbench gives there (WeightLevels) kept 6 bits, and mlp's fc1 in i8 showed 2.4x the
  // matmul route's error. Given as 2q at half the scale, the kernel gets q itself. `biases`, in
  // accumulator units, are rescaled alike. Returns whether anything changed: the primitive must
  // then be made again with the new output scales.
  bool DoubleWeightsHalvedBy(const memory::desc& wanted, std::vector<float>* biases) {
    const dnnl_memory_extra_desc_t& extra = wanted.data.extra;
    if (!(extra.flags & dnnl_memory_extra_flag_scale_adjust) || extra.scale_adjust != 0.5f) {
      return false;
    }
    for (const int8_t v : q.values) {
      if (v > 63 || v < -63) return false;  // 8-bit weights (VNNI's): nothing to gain
    }
    for (int8_t& v : q.values) v = static_cast<int8_t>(2 * v);
    for (float& s : q.scales) s /= 2;
    for (float& s : output_scales) s /= 2;
    for (float& bias : *biases) bias *= 2;  // bias / (source scale x weight scale)
    return true;
  }
  memory WeightMemory(Builder& b, const std::vector<float>& weights, const memory::dims& dims,
                      tag user_tag, const memory::desc& wanted) const {
    if (b.quantized()) {
      return b.WeightMemory(q.values, memory::desc(dims, dt::s8, user_tag), wanted);
    }
    return b.WeightMemory(weights, memory::desc(dims, dt::f32, user_tag), wanted);
  }
};

// i8 runs quantize the weights per output channel and turn the bias into accumulator units.
HostPrecision PrecisionFor(const Builder& b, int64_t channels, int64_t inner,
                           const std::vector<float>& weights, std::vector<float>* biases) {
  HostPrecision p{b.act(), b.act(), b.act(), {}, {}, 1.0f};
  if (!b.quantized()) return p;
  const std::string& in = b.layer().inputs[0];
  p.src = QuantizedType(b.range(in));
  p.weights = dt::s8;
  p.q = QuantizeWeights(weights, channels, inner, WeightLevels());
  p.output_scales = DequantizeScales(b.scale(in), p.q.scales);
  if (!biases->empty()) *biases = AccumulatorBias(*biases, b.scale(in), p.q.scales);
  p.ChooseResult(b);
  return p;
}

// A dense layer with f32 activations on one of ntpbench's kernels (`packed`: WeightOnlyDense,
// F32Dense), which computes the product and adds the bias and a fused residual add as it
// stores; where there is an activation, one oneDNN binary add, in place, then adds the bias and
// applies the activation and the residual add as its post-ops.
template <typename Kernel>
void BuildHostDense(Builder& b, std::shared_ptr<Kernel> packed) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t k = in.back(), units = l.attrs.Int("units"), rows = NumElements(in) / k;
  std::vector<float> biases(static_cast<size_t>(units), 0.0f);
  if (l.attrs.Bool("bias")) biases = b.WeightValues(1);
  const bool activation =
      FusedActivation(l.attrs).kind != ActivationKind::kNone || b.fusion().activation;
  if (!activation && l.attrs.Bool("bias")) packed->bias = biases;
  const std::shared_ptr<const Kernel> kernel = std::move(packed);
  const memory src = b.PlainInput(l.inputs[0]);
  const memory out = b.NewOutput(PlainDesc(
      b.fusion().residual ? b.fusion().residual->output_shapes[0] : l.output_shapes[0], dt::f32));
  const float* x = static_cast<const float*>(src.get_data_handle());
  float* y = static_cast<float*>(out.get_data_handle());
  const int threads = EffectiveThreads(b.config());
  std::vector<memory> keep = {src, out};
  if (!activation) {
    // The add's other operand, f32 as a weight-only run's activations are.
    const float* addend = nullptr;
    if (b.fusion().residual) {
      const memory operand = b.Input(b.fusion().ResidualOperand(),
                                     PlainDesc(b.fusion().residual->output_shapes[0], dt::f32));
      addend = static_cast<const float*>(operand.get_data_handle());
      keep.push_back(operand);
    }
    b.AddHost([kernel, x, y, rows, threads, addend, keep = std::move(keep)] {
      kernel->Run(x, rows, y, threads, addend);
    });
    b.SetKernel(kernel->Name() + (l.attrs.Bool("bias") ? " + bias" : "") +
                (addend ? " + residual add" : ""));
    return;
  }
  b.AddHost(
      [kernel, x, y, rows, threads, keep = std::move(keep)] { kernel->Run(x, rows, y, threads); });
  const memory::desc y_md({rows, units}, dt::f32, tag::ab), bias_md({1, units}, dt::f32, tag::ab);
  const dnnl::binary::desc add(dnnl::algorithm::binary_add, y_md, bias_md, y_md);
  const HostPrecision hp{dt::f32, dt::f32, dt::f32, {}, {}, 1.0f};
  std::optional<dnnl::binary::primitive_desc> pd;
  memory residual;
  if (b.fusion().residual) {
    const memory operand = b.PlainInput(b.fusion().ResidualOperand());
    const memory::desc operand_md({rows, units}, operand.get_desc().data_type(), tag::ab);
    try {
      pd = dnnl::binary::primitive_desc(add, hp.Attr(b, &operand_md), b.engine());
      residual = memory(operand_md, b.engine(), operand.get_data_handle());
    } catch (const dnnl::error&) {
      b.DropResidual();
    }
  }
  if (!pd) pd = dnnl::binary::primitive_desc(add, hp.Attr(b), b.engine());
  const memory y_mem(y_md, b.engine(), y);
  Args args = {{DNNL_ARG_SRC_0, y_mem},
               {DNNL_ARG_SRC_1, b.WeightMemory(biases, bias_md, bias_md)},
               {DNNL_ARG_DST, y_mem}};
  if (residual) {
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(ResidualPostOpIndex(b)) | DNNL_ARG_SRC_1] = residual;
  }
  b.SetKernel(kernel->Name() + " + " + pd->impl_info_str());
  b.AddPrimitive(*pd, dnnl::binary(*pd), std::move(args));
}

// A dense layer in w8 or w4: the product from the quantized weights (weight_only_dense.h).
void BuildWeightOnlyDense(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const int64_t k = l.input_shapes[0].back(), units = l.attrs.Int("units");
  BuildHostDense(b, std::make_shared<WeightOnlyDense>(
                        QuantizeByGroups(b.WeightValues(0), k, units, b.config().precision),
                        WeightOnlyKernelFor(b.option("weight_only"))));
}

// An f32 dense layer at 1-4 rows (auto: 1-8 where its network's weights come from memory):
// ntpbench's panels (f32_dense.h). Option onednn.f32_dense: auto, streamed (this at 1-4 rows),
// matmul (oneDNN's at every row count).
void BuildStreamedF32Dense(Builder& b) {
  const ResolvedLayer& l = b.layer();
  BuildHostDense(b, std::make_shared<F32Dense>(b.WeightValues(0), l.input_shapes[0].back(),
                                               l.attrs.Int("units")));
}

// A bf16 dense layer at 1-4 rows: ntpbench's panel kernel (bf16_dense.h) adds the bias and a
// fused residual add and writes the layer's bf16 result; where there is a fused activation it
// writes f32 sums into a buffer of the step's own instead, for a oneDNN binary (adding zeros) to
// apply it. Option onednn.bf16_dense: streamed (this), matmul (oneDNN's at every row count).
// llama (1.1B) bf16 decode on a 2-core Intel Xeon guest: the output and down projections, whose
// residual add oneDNN's matmul had fused as a sum (31 of each layer's 88 MB), read their weights
// at 20-23 GB/s there, 63-70% of the read bandwidth; the panels read the others at 88-92%.
void BuildStreamedBf16Dense(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t k = in.back(), units = l.attrs.Int("units"), rows = NumElements(in) / k;
  auto packed = std::make_shared<Bf16Dense>(b.WeightValues(0), k, units);
  // vdpbf16ps where oneDNN multiplies bf16 natively too (not under an ONEDNN_MAX_CPU_ISA cap).
  packed->use_dot_products = Bf16DenseHasDotProducts() && HasNativeBf16Arithmetic();
  if (l.attrs.Bool("bias")) packed->bias = b.WeightValues(1);
  const std::shared_ptr<const Bf16Dense> kernel = std::move(packed);
  const memory src = b.PlainInput(l.inputs[0]);
  const memory out = b.NewOutput(PlainDesc(
      b.fusion().residual ? b.fusion().residual->output_shapes[0] : l.output_shapes[0], dt::bf16));
  const auto* x = static_cast<const uint16_t*>(src.get_data_handle());
  const int threads = EffectiveThreads(b.config());
  const std::string name = std::string("ntpbench bf16 panels") +
                           (kernel->use_dot_products ? " (vdpbf16ps)" : " (widened to f32)");
  if (FusedActivation(l.attrs).kind == ActivationKind::kNone && !b.fusion().activation) {
    auto* y = static_cast<uint16_t*>(out.get_data_handle());
    std::vector<memory> keep = {src, out};
    Bf16Addend addend;
    if (b.fusion().residual) {
      // The add's other operand: bf16 as the run's activations, or f32 (a graph input).
      const memory operand = b.PlainInput(b.fusion().ResidualOperand());
      if (operand.get_desc().data_type() == dt::f32) {
        addend.f32 = static_cast<const float*>(operand.get_data_handle());
      } else {
        addend.bf16 = static_cast<const uint16_t*>(operand.get_data_handle());
      }
      keep.push_back(operand);
    }
    b.AddHost([kernel, x, y, rows, threads, addend, keep = std::move(keep)] {
      kernel->Run(x, rows, y, threads, addend);
    });
    b.SetKernel(b.fusion().residual ? name + " + residual add" : name);
    return;
  }
  const memory::desc sums_md({rows, units}, dt::f32, tag::ab),
      bias_md({1, units}, dt::f32, tag::ab), out_md({rows, units}, dt::bf16, tag::ab);
  const std::vector<float> no_bias(static_cast<size_t>(units), 0.0f);  // the kernel adds it
  const memory sums = b.Scratch(sums_md);
  auto* y = static_cast<float*>(sums.get_data_handle());
  b.AddHost([kernel, x, y, rows, threads, keep = std::vector<memory>{src, sums}] {
    kernel->Run(x, rows, y, threads);
  });
  // In f32, in place (oneDNN 2.6 has a JIT binary only where the source and the destination
  // share a type: f32 in, bf16 out is its reference kernel, 4x the layer's time at mlp batch 1),
  // then rounded to bf16 by a reorder: one rounding, as oneDNN's matmul.
  const dnnl::binary::desc add(dnnl::algorithm::binary_add, sums_md, bias_md, sums_md);
  const HostPrecision hp{dt::f32, dt::f32, dt::f32, {}, {}, 1.0f};
  const dnnl::binary::primitive_desc pd(add, hp.Attr(b), b.engine());
  const dnnl::reorder::primitive_desc round(b.engine(), sums_md, b.engine(), out_md);
  b.SetKernel(name + " + " + pd.impl_info_str() + " + " + round.impl_info_str());
  b.AddPrimitive(pd, dnnl::binary(pd),
                 {{DNNL_ARG_SRC_0, sums},
                  {DNNL_ARG_SRC_1, b.WeightMemory(no_bias, bias_md, bias_md)},
                  {DNNL_ARG_DST, sums}});
  b.AddPrimitive(
      round, dnnl::reorder(round),
      {{DNNL_ARG_FROM, sums}, {DNNL_ARG_TO, memory(out_md, b.engine(), out.get_data_handle())}});
}

void BuildDense(Builder& b) {
  if (IsWeightOnly(b.config().precision)) return BuildWeightOnlyDense(b);
  if (StreamsF32Dense(b.topology(), b.layer(), b.config(), b.option("f32_dense"),
                      EffectiveThreads(b.config()))) {
    return BuildStreamedF32Dense(b);
  }
  if (StreamsBf16Dense(b.layer(), b.config().precision, b.option("bf16_dense"), b.fusion(),
                       EffectiveThreads(b.config()))) {
    return BuildStreamedBf16Dense(b);
  }
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const int64_t k = in.back(), units = l.attrs.Int("units"), rows = NumElements(in) / k;
  const std::vector<float> weights = b.WeightValues(0);
  std::vector<float> biases;
  if (l.attrs.Bool("bias")) biases = b.WeightValues(1);
  // A fused residual add (a transformer's output projections) reads the other operand as a
  // binary post-op, in f32 and bf16; an i8 run keeps it a step (its operand's scale differs).
  if (b.fusion().residual && b.quantized()) b.DropResidual();
  HostPrecision hp = PrecisionFor(b, units, 1, weights, &biases);
  const memory src_all =
      b.quantized() ? b.Input(l.inputs[0], PlainDesc(in, hp.src)) : b.PlainInput(l.inputs[0]);
  const bool bias = !biases.empty();
  // The layer as a matmul [rows, k] x [k, units], or as a 1x1 convolution whose NHWC source and
  // destination [1, rows, 1, channels] hold the same bytes.
  const memory::desc mm_src({rows, k}, hp.src, tag::ab), mm_dst({rows, units}, hp.dst, tag::ab);
  const dnnl::matmul::desc mm_desc(
      mm_src, memory::desc({k, units}, hp.weights, tag::any),
      bias ? memory::desc({1, units}, dt::f32, tag::ab) : memory::desc(), mm_dst);
  auto conv_desc = [&] {
    return DenseAsConvolutionDesc(rows, k, units, hp.src, hp.weights, hp.dst, bias);
  };
  // Each route's primitive with the attributes given; the convolution only where oneDNN has a
  // JIT kernel for it.
  std::optional<dnnl::convolution_forward::primitive_desc> conv;
  dnnl::matmul::primitive_desc mm(mm_desc, hp.Attr(b), b.engine());
  if (DenseAsConvolution(b, rows, mm.impl_info_str())) {
    try {
      dnnl::convolution_forward::primitive_desc pd(conv_desc(), hp.Attr(b), b.engine());
      if (std::string(pd.impl_info_str()).find("ref") == std::string::npos) conv = pd;
    } catch (const dnnl::error&) {
    }
  }
  memory residual;
  if (b.fusion().residual) {
    const memory operand = b.PlainInput(b.fusion().ResidualOperand());
    const dt operand_type = operand.get_desc().data_type();
    const memory::desc operand_md = conv
                                        ? memory::desc({1, units, rows, 1}, operand_type, tag::nhwc)
                                        : memory::desc({rows, units}, operand_type, tag::ab);
    // Kept where oneDNN has a JIT kernel with the post-op; its reference kernel would cost more
    // than the add it saves.
    try {
      if (conv) {
        dnnl::convolution_forward::primitive_desc with_add(conv_desc(), hp.Attr(b, &operand_md),
                                                           b.engine());
        SkipDefectiveConvolution(&with_add, {1, 1}, k);
        if (std::string(with_add.impl_info_str()).find("ref") == std::string::npos &&
            *ConvolutionDefect(with_add, {1, 1}, k) == '\0') {
          conv = with_add;
          residual = memory(operand_md, b.engine(), operand.get_data_handle());
        }
      } else {
        dnnl::matmul::primitive_desc with_add(mm_desc, hp.Attr(b, &operand_md), b.engine());
        if (std::string(with_add.impl_info_str()).find("ref") == std::string::npos) {
          mm = with_add;
          residual = memory(operand_md, b.engine(), operand.get_data_handle());
        }
      }
    } catch (const dnnl::error&) {
    }
    if (!residual) b.DropResidual();
  }
  const memory out = b.NewOutput(PlainDesc(
      b.fusion().residual ? b.fusion().residual->output_shapes[0] : l.output_shapes[0], hp.dst));
  Args args = {
      {DNNL_ARG_SRC,
       memory(conv ? conv->src_desc() : mm_src, b.engine(), src_all.get_data_handle())},
      {DNNL_ARG_DST, memory(conv ? conv->dst_desc() : mm_dst, b.engine(), out.get_data_handle())}};
  if (residual) {
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(ResidualPostOpIndex(b)) | DNNL_ARG_SRC_1] = residual;
  }
  if (conv && b.quantized() && hp.DoubleWeightsHalvedBy(conv->weights_desc(), &biases)) {
    conv = dnnl::convolution_forward::primitive_desc(conv_desc(), hp.Attr(b), b.engine());
  }
  if (conv) {
    // The IR's [k, units] weights are OIhw's dims {units, k, 1, 1} stored I-major: iohw.
    args[DNNL_ARG_WEIGHTS] =
        hp.WeightMemory(b, weights, {units, k, 1, 1}, tag::iohw, conv->weights_desc());
    if (bias) args[DNNL_ARG_BIAS] = b.WeightMemory(biases, conv->bias_desc(), conv->bias_desc());
    b.SetKernel(std::string(conv->impl_info_str()) + " (dense as a 1x1 convolution)");
    b.AddPrimitive(*conv, dnnl::convolution_forward(*conv), std::move(args));
    return;
  }
  args[DNNL_ARG_WEIGHTS] = hp.WeightMemory(b, weights, {k, units}, tag::ab, mm.weights_desc());
  if (bias) {
    args[DNNL_ARG_BIAS] =
        b.WeightMemory(biases, memory::desc({1, units}, dt::f32, tag::ab), mm.bias_desc());
  }
  b.AddPrimitive(mm, dnnl::matmul(mm), std::move(args));
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

// An activation layer (none: null) as a clamp, where it is one: relu, clipped_relu.
std::optional<std::pair<float, float>> LayerClamp(const ResolvedLayer* activation) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (!activation) return std::make_pair(-kInf, kInf);
  const std::optional<Eltwise> e = EltwiseOf(*activation);
  if (e && e->algorithm == dnnl::algorithm::eltwise_relu && e->alpha == 0.0f) {
    return std::make_pair(0.0f, kInf);
  }
  if (e && e->algorithm == dnnl::algorithm::eltwise_clip) return std::make_pair(e->alpha, e->beta);
  return std::nullopt;
}

// The activation fused into a conv2d (its own, or a layer after it) as a clamp of its result,
// where it is one: none, relu, clipped_relu.
std::optional<std::pair<float, float>> ActivationClamp(const ResolvedLayer& l,
                                                       const FusionPlan& fusion) {
  const ActivationChoice own = FusedActivation(l.attrs);
  if (own.kind == ActivationKind::kRelu) {
    return std::make_pair(0.0f, std::numeric_limits<float>::infinity());
  }
  if (own.kind == ActivationKind::kClippedRelu) return std::make_pair(0.0f, own.clip);
  if (own.kind != ActivationKind::kNone) return std::nullopt;
  return LayerClamp(fusion.activation);
}

// A bf16 depthwise convolution on ntpbench's kernel (bf16_depthwise.h), NHWC in and out, the
// batchnorm folded into `weights` and `biases`, its activation as a clamp; a residual add after
// it stays a step of its own (as after oneDNN's bf16 convolutions, whose binary post-op reads
// an f32 operand only).
void BuildWidenedBf16Depthwise(Builder& b, const std::vector<float>& weights,
                               const std::vector<float>& biases) {
  const ResolvedLayer& l = b.layer();
  if (b.fusion().residual) b.DropResidual();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation"),
             p = l.attrs.Ints("padding");
  Bf16DepthwiseShape shape;
  shape.batch = in[0];
  shape.channels = in[1];
  shape.in_h = in[2];
  shape.in_w = in[3];
  shape.out_h = out[2];
  shape.out_w = out[3];
  shape.kernel_h = k[0];
  shape.kernel_w = k[1];
  shape.stride_h = s[0];
  shape.stride_w = s[1];
  shape.dilation_h = d[0];
  shape.dilation_w = d[1];
  shape.pad_top = p[0];
  shape.pad_left = p[1];
  auto kernel = std::make_shared<Bf16Depthwise>(shape, weights, biases);
  std::tie(kernel->low, kernel->high) = *ActivationClamp(l, b.fusion());
  const memory src = b.Input(l.inputs[0], memory::desc(Dims(in), dt::bf16, tag::nhwc));
  const memory dst = b.NewOutput(memory::desc(Dims(out), dt::bf16, tag::nhwc));
  const auto* x = static_cast<const uint16_t*>(src.get_data_handle());
  auto* y = static_cast<uint16_t*>(dst.get_data_handle());
  const int threads = EffectiveThreads(b.config());
  b.AddHost([kernel = std::shared_ptr<const Bf16Depthwise>(std::move(kernel)), x, y, threads,
             keep = std::vector<memory>{src, dst}] { kernel->Run(x, y, threads); });
  b.SetKernel("ntpbench bf16 depthwise (widened to f32)");
}

// A conv2d's weights and bias (empty: none) in the IR's layout, with the batchnorm fused after
// it (`bn`, or none) folded in, once, here.
void FoldedWeights(const Builder& b, const ResolvedLayer& conv, const ResolvedLayer* bn,
                   std::vector<float>* weights, std::vector<float>* bias) {
  *weights = b.WeightValues(conv, 0);
  if (conv.attrs.Bool("bias")) *bias = b.WeightValues(conv, 1);
  if (bn) {
    FoldBatchnorm({b.WeightValues(*bn, 0), b.WeightValues(*bn, 1), b.WeightValues(*bn, 2),
                   b.WeightValues(*bn, 3)},
                  bn->attrs.Float("epsilon"), weights, bias);
  }
}

// An inverted residual block (PlanInvertedResidual) on ntpbench's kernel (inverted_residual.h),
// NHWC in and out: each convolution's batchnorm folded into its weights and bias, its relu or
// relu6 as a clamp.
void BuildInvertedResidual(Builder& b) {
  const FusionPlan& f = b.fusion();
  auto folded = [&](const ResolvedLayer& conv, const ResolvedLayer* bn,
                    const ResolvedLayer* activation) {
    FoldedConvolution c;
    FoldedWeights(b, conv, bn, &c.weights, &c.bias);
    FusionPlan clamp;
    clamp.activation = activation;
    std::tie(c.low, c.high) = *ActivationClamp(conv, clamp);
    return c;
  };
  const Shape& in = f.host->input_shapes[0];
  const Shape& out = f.project->output_shapes[0];
  InvertedResidualShape shape;
  shape.batch = in[0];
  shape.channels = in[1];
  shape.height = in[2];
  shape.width = in[3];
  shape.expanded = f.host->output_shapes[0][1];
  shape.outputs = out[1];
  shape.stride = f.depthwise->attrs.Ints("stride")[0];
  shape.residual = f.residual != nullptr;
  auto kernel = std::make_shared<InvertedResidual>(
      shape, folded(*f.host, f.batchnorm, f.activation),
      folded(*f.depthwise, f.depthwise_batchnorm, f.depthwise_activation),
      folded(*f.project, f.project_batchnorm, f.project_activation), EffectiveThreads(b.config()));
  const memory src = b.Input(f.host->inputs[0], memory::desc(Dims(in), dt::f32, tag::nhwc));
  const memory dst = b.NewOutput(memory::desc(Dims(out), dt::f32, tag::nhwc));
  b.CountScratchpad(kernel->workspace_bytes());
  const auto* x = static_cast<const float*>(src.get_data_handle());
  auto* y = static_cast<float*>(dst.get_data_handle());
  b.AddHost([kernel, x, y, keep = std::vector<memory>{src, dst}] { kernel->Run(x, y); });
  b.SetKernel("ntpbench inverted residual block (expand, depthwise, project by rows)");
}

// ntpbench's Winograd tiles: F(4x4, 3x3) where the output has 32 tiles of 4x4 or more over the
// batch, else F(2x2, 3x3) where it has 32 of 2x2: 4x the rows a product over 16 positions
// instead of 36, and less than half the transformed weights, which a small output reads for few
// tiles. In ResNet-50 at batch 1 on a 2-core Zen 3 VM (2 threads, f32), the 14x14 layers over
// 256 channels ran 1.16-1.29 ms as F(2x2) (49 tiles), 1.6-1.9 as F(4x4) (16 tiles; oneDNN's
// matmul for the products), 2.1 direct; the 7x7 ones over 512 (16 tiles of 2x2, 16.8 MB of
// transformed weights read from memory) 2.5-2.8 as F(2x2), as direct.
constexpr int64_t kNtpbenchWinogradMinTiles = 32;
int64_t WinogradTiles(const Shape& out, int64_t tile) {
  return out[0] * ((out[2] + tile - 1) / tile) * ((out[3] + tile - 1) / tile);
}
int64_t WinogradTile(const ResolvedLayer& l) {
  return WinogradTiles(l.output_shapes[0], 4) >= kNtpbenchWinogradMinTiles ? 4 : 2;
}

// The residual add a kernel of ntpbench's fuses into its epilogue (add, then clamp to
// [*low, *high]): the operand, where it is already laid out as `dst_md` and the activation after
// the add is a clamp; else none, and the add is a step of its own.
memory EpilogueResidual(Builder& b, const memory::desc& dst_md, float* low, float* high) {
  if (!b.fusion().residual) return memory();
  const memory operand = b.Input(b.fusion().ResidualOperand());
  const auto after = LayerClamp(b.fusion().residual_activation);
  if (!after || operand.get_desc() != dst_md) {
    b.DropResidual();
    return memory();
  }
  std::tie(*low, *high) = *after;
  return operand;
}

// A conv2d on ntpbench's Winograd (winograd_3x3.h; WinogradFor says where, and which tile):
// the input transform, each position's product on ntpbench's panels, the output transform with
// the bias, the clamp and a fused residual add. nChw8c in and out; the add's operand is read
// where it already has that layout (else the add is a step of its own). The transformed tiles
// and their products live in the scratch every such step shares.
void BuildNtpbenchWinograd(Builder& b, const std::vector<float>& weights,
                           const std::vector<float>& biases) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto p = l.attrs.Ints("padding");
  WinogradShape shape;
  shape.tile = WinogradTile(l);
  shape.batch = in[0];
  shape.channels = in[1];
  shape.filters = out[1];
  shape.height = in[2];
  shape.width = in[3];
  shape.out_height = out[2];
  shape.out_width = out[3];
  shape.pad_top = p[0];
  shape.pad_left = p[1];
  auto kernel = std::make_shared<Winograd3x3>(shape, weights, biases, EffectiveThreads(b.config()));
  std::tie(kernel->low, kernel->high) = *ActivationClamp(l, b.fusion());
  const memory::desc src_md(Dims(in), dt::f32, tag::nChw8c),
      dst_md(Dims(out), dt::f32, tag::nChw8c);
  const memory residual =
      EpilogueResidual(b, dst_md, &kernel->residual_low, &kernel->residual_high);
  const memory src = b.Input(l.inputs[0], src_md);
  const memory dst = b.NewOutput(dst_md);
  constexpr int64_t kAlign = 1024;  // floats: 4 KiB
  const int64_t v_floats = (kernel->input_floats() + kAlign - 1) / kAlign * kAlign;
  const memory v = b.SharedScratch(memory::desc({v_floats}, dt::f32, tag::a), 0);
  const memory m = b.SharedScratch(memory::desc({kernel->product_floats()}, dt::f32, tag::a),
                                   static_cast<size_t>(v_floats) * sizeof(float));
  b.AddHost([run = std::shared_ptr<const Winograd3x3>(std::move(kernel)), src, residual, dst, v,
             m] {
    run->Run(static_cast<const float*>(src.get_data_handle()),
             residual ? static_cast<const float*>(residual.get_data_handle()) : nullptr,
             static_cast<float*>(dst.get_data_handle()), static_cast<float*>(v.get_data_handle()),
             static_cast<float*>(m.get_data_handle()));
  });
  b.SetKernel("ntpbench winograd F(" + std::to_string(shape.tile) + "x" +
              std::to_string(shape.tile) + ",3x3)");
}

// A conv2d on ntpbench's streamed convolution (streamed_conv.h; StreamsConv says where): NHWC in
// and out, the weights packed once into panels, the bias, the clamp and a fused residual add in
// its epilogue. The add's operand is read where it already is NHWC (else the add is a step of
// its own).
void BuildStreamedConv(Builder& b, const std::vector<float>& weights,
                       const std::vector<float>& biases) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), p = l.attrs.Ints("padding");
  StreamedConvShape shape;
  shape.batch = in[0];
  shape.channels = in[1];
  shape.filters = out[1];
  shape.height = in[2];
  shape.width = in[3];
  shape.out_height = out[2];
  shape.out_width = out[3];
  shape.kernel_h = k[0];
  shape.kernel_w = k[1];
  shape.stride_h = s[0];
  shape.stride_w = s[1];
  shape.pad_top = p[0];
  shape.pad_left = p[1];
  auto kernel =
      std::make_shared<StreamedConv>(shape, weights, biases, EffectiveThreads(b.config()));
  std::tie(kernel->low, kernel->high) = *ActivationClamp(l, b.fusion());
  const memory::desc src_md(Dims(in), dt::f32, tag::nhwc), dst_md(Dims(out), dt::f32, tag::nhwc);
  const memory residual =
      EpilogueResidual(b, dst_md, &kernel->residual_low, &kernel->residual_high);
  const memory src = b.Input(l.inputs[0], src_md);
  const memory dst = b.NewOutput(dst_md);
  b.AddHost([run = std::shared_ptr<const StreamedConv>(std::move(kernel)), src, residual, dst] {
    run->Run(static_cast<const float*>(src.get_data_handle()),
             residual ? static_cast<const float*>(residual.get_data_handle()) : nullptr,
             static_cast<float*>(dst.get_data_handle()));
  });
  b.SetKernel("ntpbench streamed conv (panels of " + std::to_string(StreamedConv::PanelWidth()) +
              " filters)");
}

// oneDNN's fallbacks: its reference kernels and the gemm-based convolution.
bool IsFallbackKernel(const dnnl::primitive_desc_base& d) {
  const std::string impl = d.impl_info_str();
  return impl.find("ref") != std::string::npos || impl.find("gemm") != std::string::npos;
}

void BuildConv(Builder& b) {
  if (b.fusion().depthwise) return BuildInvertedResidual(b);
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const int64_t groups = l.attrs.Int("groups"), filters = l.attrs.Int("filters");
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation"),
             p = l.attrs.Ints("padding");
  const int64_t cg = in[1] / groups;
  const memory::dims w_dims = groups == 1 ? memory::dims{filters, in[1], k[0], k[1]}
                                          : memory::dims{groups, filters / groups, cg, k[0], k[1]};
  std::vector<float> weights, biases;
  FoldedWeights(b, l, b.fusion().batchnorm, &weights, &biases);
  if (WidensBf16Depthwise(l, b.config().precision, b.option("bf16_depthwise"), b.fusion())) {
    return BuildWidenedBf16Depthwise(b, weights, biases);
  }
  if (StreamsConv(b.topology(), l, b.config(), b.fusion(), b.option("streamed_conv"),
                  EffectiveThreads(b.config()))) {
    return BuildStreamedConv(b, weights, biases);
  }
  const WinogradKernel winograd =
      WinogradFor(l, b.config().precision, b.fusion(), b.option("winograd"),
                  b.option("winograd_kernel"), EffectiveThreads(b.config()));
  if (winograd == WinogradKernel::kNtpbench) return BuildNtpbenchWinograd(b, weights, biases);
  HostPrecision hp =
      PrecisionFor(b, filters, static_cast<int64_t>(weights.size()) / filters, weights, &biases);
  // The residual operand and in-place choice `pd` was made with (made again after
  // DoubleWeightsHalvedBy).
  std::optional<memory::desc> pd_residual, with_add_residual;
  bool pd_in_place = false, with_add_in_place = false;
  const bool bias = !biases.empty();
  const memory::desc bias_md = bias ? memory::desc({filters}, dt::f32, tag::a) : memory::desc();
  const dnnl::algorithm algorithm = winograd == WinogradKernel::kOnednn
                                        ? dnnl::algorithm::convolution_winograd
                                        : dnnl::algorithm::convolution_direct;
  // The activations' layout: oneDNN's pick, or NHWC for a grouped convolution (below).
  tag layout = tag::any;
  auto make_pd = [&](const memory::desc* residual, bool in_place) {
    const memory::desc src_any(Dims(in), hp.src, layout), dst_any(Dims(out), hp.dst, layout),
        w_any(w_dims, hp.weights, tag::any);
    auto with = [&](dnnl::algorithm a) {
      dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, a, src_any, w_any,
                                           bias_md, dst_any, {s[0], s[1]}, {d[0] - 1, d[1] - 1},
                                           {p[0], p[1]}, {p[2], p[3]});
      dnnl::convolution_forward::primitive_desc pd(desc, hp.Attr(b, residual, in_place),
                                                   b.engine());
      SkipDefectiveConvolution(&pd, {s[0], s[1]}, cg);
      return pd;
    };
    if (algorithm != dnnl::algorithm::convolution_direct) {
      try {
        return with(algorithm);
      } catch (const dnnl::error&) {  // not for these post-ops or this shape: direct
      }
    }
    return with(dnnl::algorithm::convolution_direct);
  };
  dnnl::convolution_forward::primitive_desc pd = make_pd(nullptr, false);
  // onednn.grouped_layout=auto: a grouped convolution (not a depthwise one) whose input is NHWC
  // stays NHWC where oneDNN has a JIT kernel for that: left to pick (=onednn), oneDNN 2.6 gives it
  // a blocked layout or its im2col gemm kernel, with reorders to and from the convolutions around
  // it. Measured (2-core Zen 4 VM, topologies/backbone.json conv_type=2, batch 1): f32 4 groups
  // 0.49-0.80 -> 0.41 ms, 32 groups 0.75-1.05 -> 0.45-0.58 (gemm -> jit:avx512_core); bf16 32
  // groups 0.67-0.99 -> 0.27. At ONEDNN_MAX_CPU_ISA=AVX2 the other convolutions write a blocked
  // layout (taken as it is) and NHWC had only the gemm kernel (32 groups) or one 1.5x slower with
  // its reorders (4 groups).
  auto nhwc_input = [&] {
    memory::desc given = b.Input(l.inputs[0]).get_desc();
    given.data.data_type = memory::convert_to_c(hp.src);
    return given == memory::desc(Dims(in), hp.src, tag::nhwc);
  };
  if (b.option("grouped_layout") == "auto" && groups > 1 && groups != in[1] && nhwc_input()) {
    layout = tag::nhwc;
    std::optional<dnnl::convolution_forward::primitive_desc> nhwc;
    try {
      nhwc = make_pd(nullptr, false);
    } catch (const dnnl::error&) {  // no kernel for it
    }
    if (nhwc && !IsFallbackKernel(*nhwc)) {
      pd = *nhwc;
    } else {
      layout = tag::any;
    }
  }
  // A fused residual add reads its other operand as a binary post-op; or, where oneDNN would
  // fall back from a JIT kernel for that (2.6 takes its gemm convolution for f32 1x1 with a
  // binary post-op: 100x slower), adds it as a sum post-op by writing the result over it, when
  // the add is its last reader. The operand must already have the result's layout; else the add
  // stays a step of its own.
  memory residual, overwritten;
  if (b.fusion().residual) {
    const std::string& name = b.fusion().ResidualOperand();
    residual = b.Input(name);
    const memory::desc operand = residual.get_desc();
    auto same_layout = [](memory::desc a, const memory::desc& other) {
      a.data.data_type = other.data.data_type;  // the result may be requantized
      return a == other;
    };
    auto reference = [](const dnnl::primitive_desc_base& d) {
      return std::string(d.impl_info_str()).find("ref") != std::string::npos;
    };
    // Winograd's kernel (oneDNN 2.6: `jit_wino_4x3`) takes a sum post-op but no binary one; as a
    // binary post-op the add moved the convolution to the direct kernel (cnn_7's 128-channel 3x3
    // at 32x32, batch 8, on a Zen 4 VM: 10.4 ms against 4.8 with the add as a sum).
    auto winograd = [](const dnnl::primitive_desc_base& d) {
      return std::string(d.impl_info_str()).find("wino") != std::string::npos;
    };
    // Not oneDNN's reference kernel where the convolution alone has a faster one (a known defect
    // can move the add's to it: known_defects.h), nor a direct kernel where it has Winograd's.
    auto acceptable = [&](const dnnl::convolution_forward::primitive_desc& with_add) {
      return (IsFallbackKernel(pd) || !IsFallbackKernel(with_add)) &&
             (reference(pd) || !reference(with_add)) && (!winograd(pd) || winograd(with_add)) &&
             *ConvolutionDefect(with_add, {s[0], s[1]}, cg) == '\0' &&
             same_layout(with_add.dst_desc(), operand);
    };
    std::optional<dnnl::convolution_forward::primitive_desc> with_add;
    auto try_in_place = [&] {
      if (hp.dst != operand.data_type() && !(IsInt8(hp.dst) && IsInt8(operand.data_type()))) {
        return;  // the result must fit where the operand is
      }
      if (!b.CanOverwrite(name)) return;
      const auto sum = make_pd(&operand, true);
      if (acceptable(sum)) {
        with_add = sum;
        with_add_residual = operand;
        with_add_in_place = true;
        overwritten = residual;
        residual = memory();  // read as the destination, not as an argument
      }
    };
    if (operand.dims() == pd.dst_desc().dims()) {
      // i8, the operand stored u8/s8: the result (requantized too) is written over it by a sum
      // post-op that scales it back to real values; else it is dequantized for a binary post-op
      // (the dequantize step is added only once that post-op is chosen).
      const bool quantized_operand = IsInt8(operand.data_type());
      if (quantized_operand) try_in_place();
      memory::desc added = operand;
      added.data.data_type = dnnl_f32;
      if (!with_add && (quantized_operand || operand.data_type() == dt::f32)) {
        const auto binary = make_pd(&added, false);
        if (acceptable(binary)) {
          with_add = binary;
          with_add_residual = added;
          with_add_in_place = false;
          if (quantized_operand) residual = b.Input(name, added);
        } else if (hp.dst == dt::f32) {
          try_in_place();
        }
      }
    }
    if (with_add) {
      pd = *with_add;
      pd_residual = with_add_residual;
      pd_in_place = with_add_in_place;
    } else {
      b.DropResidual();
      residual = memory();
      hp.ChooseResult(b);  // the result now feeds the add
      pd = make_pd(nullptr, false);
    }
  }
  if (b.quantized() && hp.DoubleWeightsHalvedBy(pd.weights_desc(), &biases)) {
    pd = make_pd(pd_residual ? &*pd_residual : nullptr, pd_in_place);
  }
  const memory src = b.Input(l.inputs[0], pd.src_desc());
  const memory dst = overwritten ? b.OutputOver(b.fusion().ResidualOperand(), pd.dst_desc())
                                 : b.NewOutput(pd.dst_desc());
  Args args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
  if (residual) {
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(ResidualPostOpIndex(b)) | DNNL_ARG_SRC_1] = residual;
  }
  args[DNNL_ARG_WEIGHTS] =
      hp.WeightMemory(b, weights, w_dims, groups == 1 ? tag::oihw : tag::goihw, pd.weights_desc());
  if (bias) args[DNNL_ARG_BIAS] = b.WeightMemory(biases, bias_md, pd.bias_desc());
  b.AddPrimitive(pd, dnnl::convolution_forward(pd), std::move(args));
}

// conv_transpose as oneDNN's deconvolution, in act() (i8 runs compute it in f32). The IR's
// weights are [C, F / groups, kh, kw]: oneDNN's iohw (giohw per group) read them as they are.
// output_padding extends the output at the end: a smaller (possibly negative) right padding.
void BuildConvTranspose(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const int64_t groups = l.attrs.Int("groups"), filters = l.attrs.Int("filters");
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation"),
             p = l.attrs.Ints("padding"), extra = l.attrs.Ints("output_padding");
  const int64_t cg = in[1] / groups;
  const memory::dims w_dims = groups == 1 ? memory::dims{filters, in[1], k[0], k[1]}
                                          : memory::dims{groups, filters / groups, cg, k[0], k[1]};
  const bool bias = l.attrs.Bool("bias");
  const memory::desc bias_md = bias ? memory::desc({filters}, dt::f32, tag::a) : memory::desc();
  const memory::desc src_any(Dims(in), b.act(), tag::any), dst_any(Dims(out), b.act(), tag::any),
      w_any(w_dims, b.act(), tag::any);
  dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::deconvolution_direct, src_any, w_any,
                                         bias_md, dst_any, {s[0], s[1]}, {d[0] - 1, d[1] - 1},
                                         {p[0], p[1]}, {p[2] - extra[0], p[3] - extra[1]});
  dnnl::deconvolution_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
  const memory src = b.Input(l.inputs[0], pd.src_desc());
  const memory dst = b.NewOutput(pd.dst_desc());
  Args args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
  const memory::desc user(w_dims, dt::f32, groups == 1 ? tag::iohw : tag::giohw);
  args[DNNL_ARG_WEIGHTS] = b.WeightMemory(b.WeightValues(0), user, pd.weights_desc());
  if (bias) args[DNNL_ARG_BIAS] = b.WeightMemory(b.WeightValues(1), bias_md, pd.bias_desc());
  b.AddPrimitive(pd, dnnl::deconvolution_forward(pd), std::move(args));
}

}  // namespace

// Only layers of 4 MiB of weights or more (more than a core's L2 on the machines measured),
// with a panel for every thread. From a cache oneDNN's matmul was as fast or faster: mlp batch 1
// (1.5 and 2 MiB layers, held in the L3 between inferences) 66-73 µs through the kernel against
// 54-64, alternating 4 times; its 1024 x 10 output layer 8.7 µs against 3.9. Read from memory in
// a llama decode step, the 8 MiB query projection took 409 µs against 463.
bool StreamsBf16Dense(const ResolvedLayer& l, Precision precision, const std::string& mode,
                      const FusionPlan& fusion, int threads) {
  if (l.op != "dense" || precision != Precision::kBf16 || mode != "streamed") return false;
  // The panels add a residual where nothing is applied before or after it (a transformer's
  // output projections); an activation with it stays oneDNN's matmul and its post-ops.
  if (fusion.residual && (fusion.activation || fusion.residual_activation)) return false;
  const Shape& in = l.input_shapes[0];
  const int64_t k = in.back(), units = l.attrs.Int("units");
  return NumElements(in) / k <= Bf16Dense::kStreamedRows && units >= Bf16Dense::kPanel * threads &&
         2 * k * units >= (4 << 20);
}

// Every f32 dense layer at 1-4 rows with a panel for every thread; from the L2s and the L3 the
// panels ran at parity with oneDNN's matmul or faster (f32_dense.h), from memory 1.8-2.6x. Under
// auto also at 5-8 rows where the network's weights outgrow the last-level cache, so that every
// inference reads them from memory: the panels take 4 rows at a time, each panel read again from
// the L2 for the next 4. Measured on a 2-core Zen 4 VM (32 MiB L3), p50 alternating, 8 rows:
// GPT-2's decode step at batch 8 (62 MB of weights) 3.52-3.65 ms against 3.86-4.14, an hour
// later 3.86-4.04 against 4.12-4.25 (its 768 x 3072 layer 0.29 ms against 0.40-0.43), a random
// MLP of 35 MB 0.95-0.99 ms against 1.13-1.20; MLPs held in the L3 (7 MB and less) lost 19-26%
// so, and at 16 rows the 35 MB one lost 5%.
bool StreamsF32Dense(const ResolvedTopology& t, const ResolvedLayer& l, const RunConfig& config,
                     const std::string& mode, int threads) {
  if (l.op != "dense" || config.precision != Precision::kF32 || mode == "matmul") return false;
  const Shape& in = l.input_shapes[0];
  const int64_t k = in.back(), units = l.attrs.Int("units"), rows = NumElements(in) / k;
  if (units < F32Dense::kPanel * threads) return false;
  if (rows <= F32Dense::kStreamedRows) return true;
  return mode == "auto" && rows <= F32Dense::kStreamedRowsFromMemory &&
         WeightsOutgrowLastLevelCache(t, config);
}

// ntpbench's streamed convolution (streamed_conv.h) under auto: f32 convolutions over small
// outputs (64 pixels or fewer over the batch) in a network whose weights outgrow the last-level
// cache, so that each layer's weights come from memory at every inference, where the kernel is
// built for AVX-512 (6-pixel tiles; 2 with 16 registers) and every thread has a panel of its
// own. There, its prefetch of the next block overlaps the read with the multiply-adds, which
// oneDNN 2.6's kernels did not (tools/cold_weights_conv.cc, a 2-core Zen 5 VM, 2 threads, cold
// weights: 3x3 512 -> 512 at 7x7 508-524 us against 578-628, 1x1 2048 -> 512 225-236 against
// 265-274); with the weights in the cache its tile is up to 1.25x slower than oneDNN's, and at
// more pixels a weight is used often enough for the multiply-adds to dominate. `small` takes
// the same layers whatever the cache: a VM may report its host's whole last-level cache (508 MiB
// on a 2-core Zen 5 guest whose cores read 64 MiB at twice the DRAM rate and 256 MiB at it), and
// there ResNet-50's last stage still ran 0.3-0.6 ms faster on it (4.90-5.32 against 5.42-5.87 ms,
// alternating, p50). Not 1x1 convolutions: on a later Zen 5 guest (2026-12-02 evening) oneDNN's
// brgconv_1x1 kept up with it cold (2048 -> 512 at 7x7 376 against 382 us, 512 -> 2048 351
// against 392, 1024 -> 2048 stride 2 725-749 against 818-822) while its 3x3 brgconv did not
// (892 against 780), and ResNet-50 with the stage's 1x1s back on oneDNN ran p50 24.63 against
// 24.93 ms (6 rounds alternating). (A 1x1 tile keeps its sums in registers over a block's 128
// multiply-adds, a 3x3 tile over 9 x 128.) But a 1x1 too where reading its weights from memory
// takes a third or more of its multiply-adds' time at the machine's ceilings (FLOPs per weight
// byte under 3x the f32 ridge: OneByOneWaitsOnMemory): on an Intel Xeon guest with AMX (f32
// ridge 9.4 FLOP/B, memory read 31 GB/s; 2026-12-07) ResNet-50's last-stage 1x1s at 7x7 (24.5
// FLOP/B) ran 437-494 us streamed against 543-565 on brgconv_1x1 (1024 -> 2048 stride 2 858
// against 1090), cold, in the network; the Zen 5 guest above has a ridge of 4.5-6.9.
constexpr int64_t kStreamedConvMaxPixels = 64;
constexpr double kOneByOneMemoryShare = 1.0 / 3;

namespace {

bool OneByOneWaitsOnMemory(const ResolvedLayer& l, const RunConfig& config) {
  const Shape& out = l.output_shapes[0];
  // 2 FLOPs per multiply-add of each weight with each output pixel, over its 4 bytes.
  const double flops_per_byte = 2.0 * static_cast<double>(out[0] * out[2] * out[3]) / 4;
  return config.f32_ridge_flops_per_byte > 0 &&
         config.f32_ridge_flops_per_byte >= kOneByOneMemoryShare * flops_per_byte;
}

}  // namespace

bool StreamsConv(const ResolvedTopology& t, const ResolvedLayer& l, const RunConfig& config,
                 const FusionPlan& fusion, const std::string& mode, int threads) {
  if (l.op != "conv2d" || config.precision != Precision::kF32 || mode == "off") return false;
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  if (in.size() != 4 || fusion.depthwise) return false;
  const auto d = l.attrs.Ints("dilation");
  const int64_t panel = StreamedConv::PanelWidth();
  if (l.attrs.Int("groups") != 1 || d[0] != 1 || d[1] != 1 || out[1] % panel != 0 ||
      !ActivationClamp(l, fusion)) {
    return false;
  }
  if (mode == "on") return true;
  const auto k = l.attrs.Ints("kernel");
  const bool small = panel == 64 && out[1] / panel >= threads &&
                     (k[0] * k[1] > 1 || OneByOneWaitsOnMemory(l, config)) &&
                     out[0] * out[2] * out[3] <= kStreamedConvMaxPixels;
  return small && (mode == "small" || WeightsOutgrowLastLevelCache(t, config));
}

// Depthwise layers with one filter per channel and an activation that is a clamp (MobileNet's
// relu6); under the option bf16_depthwise=onednn, oneDNN's kernels, and under auto where the
// CPU's bf16 dot products keep up with its f32 FMAs (below).
bool WidensBf16Depthwise(const ResolvedLayer& l, Precision precision, const std::string& mode,
                         const FusionPlan& fusion) {
  if (l.op != "conv2d" || precision != Precision::kBf16 || mode == "onednn") return false;
  // auto: oneDNN's native kernel where bf16 dot products run at least at the f32 FMA's FLOPs
  // (mobilenet_v2 bf16 batch 1 on a 2-core Zen 4 VM, 3 rounds A B A B, its 17 depthwise layers
  // summed: oneDNN's brdgmm_dw 0.47-0.69 ms against the kernel's 0.67-0.82), else the kernel.
  if (mode == "auto" && AutoTakesOnednnBf16Depthwise()) return false;
  const Shape& in = l.input_shapes[0];
  return in.size() == 4 && l.attrs.Int("groups") == in[1] && l.attrs.Int("filters") == in[1] &&
         ActivationClamp(l, fusion).has_value();
}

// Winograd F(2x2, 3x3) for f32 3x3 convolutions with stride 1 on 28x28 outputs or larger: on
// this project's VM oneDNN 2.6's jit_fp32_wino_2x3 alone ran ResNet-50's 56x56 and 28x28 ones
// 2x faster than its direct brgconv, 14x14 ones 1.15x, 7x7 ones no faster. In the network each
// also costs a copy in and out of its blocked layout (layout_copy.h; oneDNN's own reorders there
// took 0.3-0.8 ms of ResNet-50 on a Zen 5 VM, the copies 0.2-0.35), which leaves ResNet-50 a few
// percent faster. Under AVX-512 a blocked layout for the whole network instead (nChw16c, no
// copies) ran the stage at 56x56 0.5 ms faster and the rest 1.8 ms slower (oneDNN's blocked
// direct kernels against its NHWC brgconv). Only with 64 channels in and out or more (a Zen 5 VM,
// f32, 2 threads): alone, after a 1x1 convolution, one such layer ran 1.5-3.9x direct's time over
// an image's 3 or 8 channels, 0.9-1.2x over 16 or 24, 0.6-0.8x over 32-128; in small networks,
// where direct kernels keep few channels in an unblocked layout, the Winograd layers' reorders, the
// slower pooling and depthwise layers after them, and a residual add then falling back to a slower
// direct kernel made a 3-channel first layer 3x slower (tiny_cnn at batch 8) and random CNNs of 24
// and 32 channels 18-30% slower than all direct.
// The option winograd=off never uses it, =all wherever oneDNN has it (tests).
// oneDNN 2.6 has no bf16 or int8 Winograd.
//
// Whether oneDNN has f32 Winograd kernels at the effective ISA: a 3x3 convolution of 64
// channels is asked for (oneDNN 2.6 has them from avx512_core only; under ONEDNN_MAX_CPU_ISA=AVX2
// it answers "could not create a primitive descriptor", and the compile runs direct).
bool HasWinogradKernels() {
  static const bool has = [] {
    const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    const memory::desc src({1, 64, 28, 28}, dt::f32, tag::any),
        w({64, 64, 3, 3}, dt::f32, tag::any);
    try {
      dnnl::convolution_forward::primitive_desc pd(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_winograd, src, w, src,
                                          {1, 1}, {1, 1}, {1, 1}),
          engine);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

// ntpbench's Winograd (winograd_3x3.h) where oneDNN has none: on a 2-core Zen 3 VM (AVX2), 2
// threads, f32, batch 1, alone against oneDNN 2.6's direct jit:avx2 (nChw8c, with a bias):
// F(4x4) at 56x56 over 64 channels 0.69 ms against 1.80, 28x28 128 0.59 against 1.90, 7x7 512
// (4 tiles, 37.7 MB of transformed weights) 4.9 against 2.7; F(2x2) at 14x14 256 0.93 against
// 1.92; 56x56 32 channels 0.36 against 0.41, 16 channels 0.18 against 0.13. Hence 32 channels in
// and out or more, and the tiles WinogradTile says.
constexpr int64_t kNtpbenchWinogradMinChannels = 32;

// The probe behind winograd=auto on oneDNN's kernel: ResNet-50's 14x14 3x3 (256 channels in and
// out, a bias and a relu, batch 1) on oneDNN's Winograd (nChw16c) and on its direct kernel (NHWC,
// as the network runs it), alternately, the least of 7 runs of each after 2: Winograd's time over
// direct's, alone and warm, on `threads` threads. A 2-core Intel Xeon KVM guest with AMX
// (AVX-512 FP16): 0.62-0.64 (jit_fp32_wino_2x3 0.37-0.38 ms, brgconv 0.58-0.60); the Ice
// Lake-class VM that set the 28x28 rule: 0.87 (1.15x faster). In the network its transformed
// weights (1.78x direct's, from memory at batch 1) and the copies to and from nChw16c take some
// of that back: on that Xeon guest ResNet-50's five such layers ran 0.56-0.60 ms against
// 0.69-0.71 direct, the network 27.69 against 28.04 ms (4 rounds A B A B); hence 0.75.
double OnednnWinogradShareAt14x14(int threads) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::dims image = {1, 256, 14, 14}, w_dims = {256, 256, 3, 3};
  dnnl::post_ops relu;
  relu.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(relu);
  struct Probe {
    dnnl::convolution_forward conv;
    Args args;
  };
  auto probe = [&](dnnl::algorithm algorithm, tag layout) {
    const memory::desc act(image, dt::f32, layout), bias({256}, dt::f32, tag::a);
    const dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, act,
                                        memory::desc(w_dims, dt::f32, tag::any), bias, act, {1, 1},
                                        {1, 1}, {1, 1}),
        attr, engine);
    // Values of a trained layer's order (no denormals, no overflow through the relu).
    auto filled = [&](const memory::desc& d, float value) {
      memory m(d, engine);
      std::fill_n(static_cast<float*>(m.get_data_handle()), d.get_size() / sizeof(float), value);
      return m;
    };
    memory given = filled(memory::desc(w_dims, dt::f32, tag::oihw), 0.01f);
    memory weights(pd.weights_desc(), engine);
    dnnl::reorder(given, weights).execute(stream, given, weights);
    stream.wait();
    return Probe{dnnl::convolution_forward(pd),
                 {{DNNL_ARG_SRC, filled(pd.src_desc(), 0.5f)},
                  {DNNL_ARG_WEIGHTS, weights},
                  {DNNL_ARG_BIAS, filled(pd.bias_desc(), 0.1f)},
                  {DNNL_ARG_DST, memory(pd.dst_desc(), engine)}}};
  };
  double share = 1;
  try {
    Probe runs[2] = {probe(dnnl::algorithm::convolution_winograd, tag::nChw16c),
                     probe(dnnl::algorithm::convolution_direct, tag::nhwc)};
    double least[2] = {std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::infinity()};
    for (int round = 0; round < 9; ++round) {
      for (int i = 0; i < 2; ++i) {
        const auto start = std::chrono::steady_clock::now();
        runs[i].conv.execute(stream, runs[i].args);
        stream.wait();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (round >= 2) least[i] = std::min(least[i], s);
      }
    }
    share = least[0] / least[1];
  } catch (const dnnl::error&) {  // no Winograd kernel at this ISA: never "medium"
  }
  omp_set_num_threads(before);
  return share;
}

std::string OnednnWinogradSizes(int threads) {
  static std::mutex mutex;
  static std::map<int, std::string> sizes;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = sizes.find(threads);
  if (it == sizes.end()) {
    const bool medium = OnednnWinogradShareAt14x14(threads) <= kMediumWinogradShare;
    it = sizes.emplace(threads, medium ? "medium" : "large").first;
  }
  return it->second;
}

WinogradKernel WinogradFor(const ResolvedLayer& l, Precision precision, const FusionPlan& fusion,
                           const std::string& mode, const std::string& kernel, int threads) {
  if (l.op != "conv2d" || mode == "off" || precision == Precision::kBf16 ||
      precision == Precision::kI8) {
    return WinogradKernel::kNone;
  }
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation");
  const bool shape_ok = k[0] == 3 && k[1] == 3 && s[0] == 1 && s[1] == 1 && d[0] == 1 &&
                        d[1] == 1 && l.attrs.Int("groups") == 1 && in.size() == 4;
  if (!shape_ok) return WinogradKernel::kNone;
  // winograd_kernel=onednn named (a calibration made on another machine, planned here): what it
  // asks for, though this machine's oneDNN has none (its compile then runs direct).
  const bool ntpbench = kernel == "ntpbench" || (kernel == "auto" && !HasWinogradKernels());
  if (!ntpbench) {
    if (mode == "all") return WinogradKernel::kOnednn;
    if (in[1] < kWinogradMinChannels || out[1] < kWinogradMinChannels) return WinogradKernel::kNone;
    const int64_t pixels = out[2] * out[3];
    // The probe runs only for a layer it decides.
    const bool wins =
        pixels >= 28 * 28 ||
        (pixels >= 14 * 14 && (mode == "auto" ? OnednnWinogradSizes(threads) : mode) == "medium");
    return wins ? WinogradKernel::kOnednn : WinogradKernel::kNone;
  }
  if (in[1] % kWinogradBlock != 0 || out[1] % kWinogradBlock != 0 || !ActivationClamp(l, fusion)) {
    return WinogradKernel::kNone;
  }
  const bool wins = in[1] >= kNtpbenchWinogradMinChannels &&
                    out[1] >= kNtpbenchWinogradMinChannels &&
                    WinogradTiles(out, WinogradTile(l)) >= kNtpbenchWinogradMinTiles;
  return mode == "all" || wins ? WinogradKernel::kNtpbench : WinogradKernel::kNone;
}

void AddDenseConvOps(OpTable* table) {
  (*table)["dense"] = BuildDense;
  (*table)["matmul"] = BuildMatmul;
  (*table)["conv2d"] = BuildConv;
  (*table)["conv_transpose"] = BuildConvTranspose;
}

}  // namespace ntpb::onednn
