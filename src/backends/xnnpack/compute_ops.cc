// conv2d, conv_transpose, dense, pooling, spatial means, resize and batchnorm as XNNPACK's
// operators (f32; qs8 in i8 runs where XNNPACK has them): convolutions and pooling in NHWC with
// explicit (top, right, bottom, left) padding; dense as a fully connected operator over every
// leading row; a batchnorm the convolution before it did not absorb as a per-channel multiply
// and add.
#include <algorithm>
#include <cmath>

#include "src/backends/common/post_op_fusion.h"
#include "src/backends/common/quantization.h"
#include "src/backends/xnnpack/steps.h"
#include "src/ops/activations.h"

namespace ntpb::xnnb {
namespace {

uint32_t U32(int64_t v) { return static_cast<uint32_t>(v); }

// The activations the output clamp takes, and sigmoid as an operator after it.
std::string ActivationRefusal(const Attrs& attrs) {
  switch (FusedActivation(attrs).kind) {
    case ActivationKind::kNone:
    case ActivationKind::kRelu:
    case ActivationKind::kClippedRelu:
    case ActivationKind::kSigmoid:
      return "";
    default:
      return "XNNPACK has no f32 operator for the fused activation '" + attrs.Str("activation") +
             "'";
  }
}

// A sigmoid over the step's output, in place, where the host fuses one.
void AppendSigmoid(const OutputRange& range, const Buffer& y, int64_t channels, StepBuilder& b,
                   Step* step) {
  if (!range.sigmoid) return;
  xnn_operator_t op = nullptr;
  Check(xnn_create_sigmoid_nc_f32(channels, channels, channels, 0, &op), *b.chain().host,
        "xnn_create_sigmoid_nc_f32");
  step->operators.emplace_back(op);
  Check(xnn_setup_sigmoid_nc_f32(op, NumElements(y.shape) / channels, y.f32(), y.f32(),
                                 b.threadpool()),
        *b.chain().host, "xnn_setup_sigmoid_nc_f32");
  step->kernel += " + xnn_sigmoid_nc_f32";
}

// A convolution's weights [F, C/g, kh, kw] and bias, with the batchnorm its chain absorbed folded
// in.
struct ConvWeights {
  std::vector<float> w, bias;
};
ConvWeights FoldedConvWeights(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  ConvWeights cw{b.Weight(l, 0), {}};
  if (l.weights.size() > 1) cw.bias = b.Weight(l, 1);
  if (const ResolvedLayer* bn = b.chain().batchnorm) {
    FoldBatchnorm({b.Weight(*bn, 0), b.Weight(*bn, 1), b.Weight(*bn, 2), b.Weight(*bn, 3)},
                  bn->attrs.Float("epsilon"), &cw.w, &cw.bias);
  }
  return cw;
}

// [F, C/g, kh, kw] -> XNNPACK's [F, kh, kw, C/g] (groups outermost, as F is).
template <typename T>
std::vector<T> ToOhwi(const std::vector<T>& w, int64_t f, int64_t cg, int64_t taps) {
  std::vector<T> ohwi(w.size());
  for (int64_t o = 0; o < f; ++o) {
    for (int64_t i = 0; i < cg; ++i) {
      for (int64_t t = 0; t < taps; ++t) ohwi[(o * taps + t) * cg + i] = w[(o * cg + i) * taps + t];
    }
  }
  return ohwi;
}

Step MakeConvQc8(StepBuilder& b);

Step MakeConv(StepBuilder& b) {
  if (b.quantized() && !RangeOf(b.chain()).sigmoid) return MakeConvQc8(b);
  const ResolvedLayer& l = *b.chain().host;
  const Attrs& at = l.attrs;
  const std::vector<int64_t> k = at.Ints("kernel"), s = at.Ints("stride"), d = at.Ints("dilation"),
                             p = at.Ints("padding");  // top, left, bottom, right
  const int64_t groups = at.Int("groups");
  const Shape& in = l.input_shapes[0];
  const int64_t c = in[1], f = l.output_shapes[0][1], cg = c / groups;
  const ConvWeights cw = FoldedConvWeights(b);
  const std::vector<float> ohwi = ToOhwi(cw.w, f, cg, k[0] * k[1]);
  const std::vector<float>& bias = cw.bias;
  const OutputRange range = RangeOf(b.chain());
  const Buffer x = b.Input(0, Layout::kNhwc);
  const Buffer y = b.Output(Layout::kNhwc);
  xnn_operator_t op = nullptr;
  Check(xnn_create_convolution2d_nhwc_f32(
            U32(p[0]), U32(p[3]), U32(p[2]), U32(p[1]), U32(k[0]), U32(k[1]), U32(s[0]), U32(s[1]),
            U32(d[0]), U32(d[1]), U32(groups), cg, f / groups, c, f, ohwi.data(),
            bias.empty() ? nullptr : bias.data(), range.min, range.max, 0, &op),
        l, "xnn_create_convolution2d_nhwc_f32");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_convolution2d_nhwc_f32(op, in[0], in[2], in[3], x.f32(), y.f32(), b.threadpool()),
        l, "xnn_setup_convolution2d_nhwc_f32");
  step.kernel = "xnn_convolution2d_nhwc_f32";
  if (b.chain().batchnorm) step.kernel += " (batchnorm folded)";
  AppendSigmoid(range, y, f, b, &step);
  return step;
}

Step MakeDenseQs8(StepBuilder& b);

Step MakeDense(StepBuilder& b) {
  if (b.quantized() && !RangeOf(b.chain()).sigmoid) return MakeDenseQs8(b);
  const ResolvedLayer& l = *b.chain().host;
  const int64_t k = l.input_shapes[0].back(), units = l.output_shapes[0].back();
  const std::vector<float> w = b.Weight(l, 0);  // [K, units]: XNNPACK's transposed weights
  std::vector<float> bias;
  if (l.weights.size() > 1) bias = b.Weight(l, 1);
  const OutputRange range = RangeOf(b.chain());
  const Buffer x = b.Input(0, Layout::kLogical);
  const Buffer y = b.Output(Layout::kLogical);
  xnn_operator_t op = nullptr;
  Check(xnn_create_fully_connected_nc_f32(k, units, k, units, w.data(),
                                          bias.empty() ? nullptr : bias.data(), range.min,
                                          range.max, XNN_FLAG_TRANSPOSE_WEIGHTS, &op),
        l, "xnn_create_fully_connected_nc_f32");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_fully_connected_nc_f32(op, NumElements(x.shape) / k, x.f32(), y.f32(),
                                         b.threadpool()),
        l, "xnn_setup_fully_connected_nc_f32");
  step.kernel = "xnn_fully_connected_nc_f32";
  AppendSigmoid(range, y, units, b, &step);
  return step;
}

// The padding XNNPACK needs for the resolved output: ceil mode's last, partial window reads past
// the bottom and right edges, which XNNPACK takes as more padding (ignored by max, and left out
// of an average's count, as ceil mode without count_include_pad divides).
struct Window {
  std::vector<int64_t> k, s, p;  // p: top, left, bottom, right
};
Window WindowOf(const ResolvedLayer& l) {
  Window w{l.attrs.Ints("kernel"), l.attrs.Ints("stride"), l.attrs.Ints("padding")};
  const Shape &in = l.input_shapes[0], &out = l.output_shapes[0];
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t reach = (out[2 + axis] - 1) * w.s[axis] + w.k[axis];
    const int64_t have = in[2 + axis] + w.p[axis] + w.p[2 + axis];
    if (reach > have) w.p[2 + axis] += reach - have;
  }
  return w;
}

// Max pooling on qs8 values: the output keeps the input's quantization (it only picks values).
Step MakeMaxPoolS8(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Window w = WindowOf(l);
  const Shape& in = l.input_shapes[0];
  const int64_t c = in[1];
  const Buffer x = b.Input(0, Layout::kNhwc, DataType::kQs8);
  const Buffer y = b.Output(Layout::kNhwc, DataType::kQs8, &x.quantization);
  xnn_operator_t op = nullptr;
  Check(xnn_create_max_pooling2d_nhwc_s8(U32(w.p[0]), U32(w.p[3]), U32(w.p[2]), U32(w.p[1]),
                                         U32(w.k[0]), U32(w.k[1]), U32(w.s[0]), U32(w.s[1]), 1, 1,
                                         c, c, c, -128, 127, 0, &op),
        l, "xnn_create_max_pooling2d_nhwc_s8");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_max_pooling2d_nhwc_s8(op, in[0], in[2], in[3], x.qs8(), y.qs8(), b.threadpool()),
        l, "xnn_setup_max_pooling2d_nhwc_s8");
  step.kernel = "xnn_max_pooling2d_nhwc_s8";
  return step;
}

// A one-pixel window with stride 1 and no padding (torchvision's adaptive pooling of a map
// already the size asked): the identity, which XNNPACK's pooling refuses; a view, as a converter
// drops it.
bool IdentityWindow(const Window& w) {
  return w.k[0] * w.k[1] == 1 && w.s[0] == 1 && w.s[1] == 1 && !w.p[0] && !w.p[1] && !w.p[2] &&
         !w.p[3];
}

template <bool kMax>
Step MakePool(StepBuilder& b) {
  if (IdentityWindow(WindowOf(*b.chain().host))) {
    b.OutputIsView(b.Stored(0));
    Step step;
    step.kernel = "view (a one-pixel window: the identity)";
    return step;
  }
  if (kMax && b.quantized()) return MakeMaxPoolS8(b);
  const ResolvedLayer& l = *b.chain().host;
  const Window w = WindowOf(l);
  const Shape& in = l.input_shapes[0];
  const int64_t c = in[1];
  const Buffer x = b.Input(0, Layout::kNhwc);
  const Buffer y = b.Output(Layout::kNhwc);
  xnn_operator_t op = nullptr;
  Step step;
  if (kMax) {
    Check(xnn_create_max_pooling2d_nhwc_f32(U32(w.p[0]), U32(w.p[3]), U32(w.p[2]), U32(w.p[1]),
                                            U32(w.k[0]), U32(w.k[1]), U32(w.s[0]), U32(w.s[1]), 1,
                                            1, c, c, c, -INFINITY, INFINITY, 0, &op),
          l, "xnn_create_max_pooling2d_nhwc_f32");
    step.operators.emplace_back(op);
    Check(
        xnn_setup_max_pooling2d_nhwc_f32(op, in[0], in[2], in[3], x.f32(), y.f32(), b.threadpool()),
        l, "xnn_setup_max_pooling2d_nhwc_f32");
    step.kernel = "xnn_max_pooling2d_nhwc_f32";
  } else {
    Check(xnn_create_average_pooling2d_nhwc_f32(U32(w.p[0]), U32(w.p[3]), U32(w.p[2]), U32(w.p[1]),
                                                U32(w.k[0]), U32(w.k[1]), U32(w.s[0]), U32(w.s[1]),
                                                c, c, c, -INFINITY, INFINITY, 0, &op),
          l, "xnn_create_average_pooling2d_nhwc_f32");
    step.operators.emplace_back(op);
    Check(xnn_setup_average_pooling2d_nhwc_f32(op, in[0], in[2], in[3], x.f32(), y.f32(),
                                               b.threadpool()),
          l, "xnn_setup_average_pooling2d_nhwc_f32");
    step.kernel = "xnn_average_pooling2d_nhwc_f32";
  }
  return step;
}

std::string PoolRefusal(const ResolvedLayer& l) {
  const Window w = WindowOf(l);
  if (w.k[0] * w.k[1] == 1 && !IdentityWindow(w)) {
    return "XNNPACK's pooling needs a window of more than one pixel";
  }
  const bool padded = w.p[0] || w.p[1] || w.p[2] || w.p[3];
  if (l.op == "avg_pool" && l.attrs.Bool("count_include_pad") && padded) {
    return "XNNPACK's average pooling leaves padding out of the count (count_include_pad)";
  }
  return "";
}

Step MakeGlobalAvgPoolQs8(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Shape& in = l.input_shapes[0];
  const int64_t c = in[1];
  const Buffer x = b.Input(0, Layout::kNhwc, DataType::kQs8);
  const Buffer y = b.Output(Layout::kLogical, DataType::kQs8);
  xnn_operator_t op = nullptr;
  Check(xnn_create_global_average_pooling_nwc_qs8(c, c, c, x.quantization.zero_point,
                                                  x.quantization.scale, y.quantization.zero_point,
                                                  y.quantization.scale, -128, 127, 0, &op),
        l, "xnn_create_global_average_pooling_nwc_qs8");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_global_average_pooling_nwc_qs8(op, in[0], in[2] * in[3], x.qs8(), y.qs8(),
                                                 b.threadpool()),
        l, "xnn_setup_global_average_pooling_nwc_qs8");
  step.kernel = "xnn_global_average_pooling_nwc_qs8";
  return step;
}

Step MakeGlobalAvgPool(StepBuilder& b) {
  if (b.quantized()) return MakeGlobalAvgPoolQs8(b);
  const ResolvedLayer& l = *b.chain().host;
  const Shape& in = l.input_shapes[0];
  const int64_t c = in[1];
  const Buffer x = b.Input(0, Layout::kNhwc);
  const Buffer y = b.Output(Layout::kLogical);  // [N, C]
  xnn_operator_t op = nullptr;
  Check(xnn_create_global_average_pooling_nwc_f32(c, c, c, -INFINITY, INFINITY, 0, &op), l,
        "xnn_create_global_average_pooling_nwc_f32");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_global_average_pooling_nwc_f32(op, in[0], in[2] * in[3], x.f32(), y.f32(),
                                                 b.threadpool()),
        l, "xnn_setup_global_average_pooling_nwc_f32");
  step.kernel = "xnn_global_average_pooling_nwc_f32";
  return step;
}

// y = x * scale + shift per channel (axis 1 of the IR; the last in NHWC), both broadcast.
Step MakeBatchnorm(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  // Folded into a one-weight-per-channel identity, the batchnorm is that weight and a bias.
  const size_t channels = l.weights[0].shape[0];
  std::vector<float> one(channels, 1.0f), bias;
  FoldBatchnorm({b.Weight(l, 0), b.Weight(l, 1), b.Weight(l, 2), b.Weight(l, 3)},
                l.attrs.Float("epsilon"), &one, &bias);
  // Read by the operators at run time, with XNN_EXTRA_BYTES readable after them.
  const size_t padded = channels + XNN_EXTRA_BYTES / sizeof(float);
  auto scale = std::make_shared<std::vector<float>>(padded, 0.0f);
  auto shift = std::make_shared<std::vector<float>>(padded, 0.0f);
  std::copy(one.begin(), one.end(), scale->begin());
  std::copy(bias.begin(), bias.end(), shift->begin());
  const OutputRange range = RangeOf(b.chain());
  const Buffer x = b.Input(0, Layout::kAsStored);
  const Buffer y = b.Output(x.layout);
  const Shape stored = x.StoredShape();
  std::vector<size_t> xs(stored.begin(), stored.end()), cs(stored.size(), 1);
  cs[x.layout == Layout::kNhwc ? 3 : 1] = channels;
  xnn_operator_t mul = nullptr, add = nullptr;
  Check(xnn_create_multiply_nd_f32(-INFINITY, INFINITY, 0, &mul), l, "xnn_create_multiply_nd_f32");
  Step step;
  step.operators.emplace_back(mul);
  Check(xnn_create_add_nd_f32(range.min, range.max, 0, &add), l, "xnn_create_add_nd_f32");
  step.operators.emplace_back(add);
  Check(xnn_setup_multiply_nd_f32(mul, xs.size(), xs.data(), cs.size(), cs.data(), x.f32(),
                                  scale->data(), y.f32(), b.threadpool()),
        l, "xnn_setup_multiply_nd_f32");
  Check(xnn_setup_add_nd_f32(add, xs.size(), xs.data(), cs.size(), cs.data(), y.f32(),
                             shift->data(), y.f32(), b.threadpool()),
        l, "xnn_setup_add_nd_f32");
  step.constants = {scale, shift};
  step.kernel = "xnn_multiply_nd_f32 + xnn_add_nd_f32 (batchnorm as scale and shift)";
  return step;
}

// The bias in the accumulator's units (quantization.h's AccumulatorBias, with its weight scales,
// one per output channel), rounded to the int32 XNNPACK adds; zeros without a bias.
std::vector<int32_t> Int32Bias(const std::vector<float>& bias, const Quantization& input,
                               const std::vector<float>& weight_scales, int64_t channels) {
  std::vector<int32_t> q(static_cast<size_t>(channels), 0);
  const std::vector<float> acc = AccumulatorBias(bias, 1.0f / input.scale, weight_scales);
  for (size_t c = 0; c < acc.size(); ++c) q[c] = static_cast<int32_t>(std::lround(acc[c]));
  return q;
}

// i8: per-channel symmetric weights (qc8), activations with XNNPACK's zero points; the batchnorm
// folded and the activation clamped as in f32, in the output's units.
Step MakeConvQc8(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Attrs& at = l.attrs;
  const std::vector<int64_t> k = at.Ints("kernel"), s = at.Ints("stride"), d = at.Ints("dilation"),
                             p = at.Ints("padding");
  const int64_t groups = at.Int("groups");
  const Shape& in = l.input_shapes[0];
  const int64_t c = in[1], f = l.output_shapes[0][1], cg = c / groups, taps = k[0] * k[1];
  const ConvWeights cw = FoldedConvWeights(b);
  const QuantizedWeights qw = QuantizeWeights(cw.w, f, cg * taps, 127);
  const std::vector<int8_t> ohwi = ToOhwi(qw.values, f, cg, taps);
  // XNNPACK's kernel scale is a level's size, quantization.h's scale its inverse.
  std::vector<float> kernel_scales(qw.scales.size());
  for (size_t o = 0; o < qw.scales.size(); ++o) kernel_scales[o] = 1.0f / qw.scales[o];
  const Buffer x = b.Input(0, Layout::kNhwc, DataType::kQs8);
  const Buffer y = b.Output(Layout::kNhwc, DataType::kQs8);
  const std::vector<int32_t> qbias = Int32Bias(cw.bias, x.quantization, qw.scales, f);
  const OutputRange range = RangeOf(b.chain());
  xnn_operator_t op = nullptr;
  Check(xnn_create_convolution2d_nhwc_qc8(
            U32(p[0]), U32(p[3]), U32(p[2]), U32(p[1]), U32(k[0]), U32(k[1]), U32(s[0]), U32(s[1]),
            U32(d[0]), U32(d[1]), U32(groups), cg, f / groups, c, f, x.quantization.zero_point,
            x.quantization.scale, kernel_scales.data(), ohwi.data(), qbias.data(),
            y.quantization.zero_point, y.quantization.scale, QuantizedMin(range, y.quantization),
            QuantizedMax(range, y.quantization), 0, &op),
        l, "xnn_create_convolution2d_nhwc_qc8");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_convolution2d_nhwc_qc8(op, in[0], in[2], in[3], x.qs8(), y.qs8(), b.threadpool()),
        l, "xnn_setup_convolution2d_nhwc_qc8");
  step.kernel = "xnn_convolution2d_nhwc_qc8";
  if (b.chain().batchnorm) step.kernel += " (batchnorm folded)";
  return step;
}

// i8: XNNPACK of this age has one weight scale per fully connected operator (no qc8 for it).
Step MakeDenseQs8(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const int64_t k = l.input_shapes[0].back(), units = l.output_shapes[0].back();
  std::vector<float> bias;
  if (l.weights.size() > 1) bias = b.Weight(l, 1);
  const QuantizedWeights qw = QuantizeWeights(b.Weight(l, 0), 1, k * units, 127);
  const float kernel_scale = 1.0f / qw.scales[0];
  const Buffer x = b.Input(0, Layout::kLogical, DataType::kQs8);
  const Buffer y = b.Output(Layout::kLogical, DataType::kQs8);
  const std::vector<int32_t> qbias = Int32Bias(
      bias, x.quantization, std::vector<float>(static_cast<size_t>(units), qw.scales[0]), units);
  const OutputRange range = RangeOf(b.chain());
  xnn_operator_t op = nullptr;
  Check(xnn_create_fully_connected_nc_qs8(
            k, units, k, units, x.quantization.zero_point, x.quantization.scale, kernel_scale,
            qw.values.data(), qbias.data(), y.quantization.zero_point, y.quantization.scale,
            QuantizedMin(range, y.quantization), QuantizedMax(range, y.quantization),
            XNN_FLAG_TRANSPOSE_WEIGHTS, &op),
        l, "xnn_create_fully_connected_nc_qs8");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_fully_connected_nc_qs8(op, NumElements(x.shape) / k, x.qs8(), y.qs8(),
                                         b.threadpool()),
        l, "xnn_setup_fully_connected_nc_qs8");
  step.kernel = "xnn_fully_connected_nc_qs8";
  return step;
}

// reduce_mean over H and W of an image is a global average pooling (squeeze-and-excitation).
std::string SpatialMeanRefusal(const ResolvedLayer& l) {
  std::vector<int64_t> axes = l.attrs.Ints("axes");
  const int64_t rank = static_cast<int64_t>(l.input_shapes[0].size());
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  if (rank == 4 && axes == std::vector<int64_t>{2, 3}) return "";
  return "XNNPACK has a mean over an image's H and W only (a global average pooling)";
}

// conv_transpose as XNNPACK's deconvolution: [C, F/g, kh, kw] -> [g][F/g][kh][kw][C/g].
Step MakeDeconv(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Attrs& at = l.attrs;
  const std::vector<int64_t> k = at.Ints("kernel"), s = at.Ints("stride"), d = at.Ints("dilation"),
                             p = at.Ints("padding"), extra = at.Ints("output_padding");
  const int64_t groups = at.Int("groups");
  const Shape& in = l.input_shapes[0];
  const int64_t c = in[1], f = l.output_shapes[0][1], cg = c / groups, fg = f / groups;
  const int64_t taps = k[0] * k[1];
  const std::vector<float> w = b.Weight(l, 0);
  std::vector<float> bias;
  if (l.weights.size() > 1) bias = b.Weight(l, 1);
  std::vector<float> packed(w.size());
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t i = 0; i < cg; ++i) {
      for (int64_t o = 0; o < fg; ++o) {
        for (int64_t t = 0; t < taps; ++t) {
          packed[((g * fg + o) * taps + t) * cg + i] = w[(((g * cg + i) * fg) + o) * taps + t];
        }
      }
    }
  }
  const Buffer x = b.Input(0, Layout::kNhwc);
  const Buffer y = b.Output(Layout::kNhwc);
  xnn_operator_t op = nullptr;
  Check(xnn_create_deconvolution2d_nhwc_f32(
            U32(p[0]), U32(p[3]), U32(p[2]), U32(p[1]), U32(k[0]), U32(k[1]), U32(s[0]), U32(s[1]),
            U32(d[0]), U32(d[1]), U32(groups), cg, fg, c, f, packed.data(),
            bias.empty() ? nullptr : bias.data(), -INFINITY, INFINITY, 0, &op),
        l, "xnn_create_deconvolution2d_nhwc_f32");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_deconvolution2d_nhwc_f32(op, in[0], in[2], in[3], U32(extra[0]), U32(extra[1]),
                                           x.f32(), y.f32(), b.threadpool()),
        l, "xnn_setup_deconvolution2d_nhwc_f32");
  step.kernel = "xnn_deconvolution2d_nhwc_f32";
  return step;
}

// Bilinear resize in NHWC: XNNPACK's half-pixel centres by default (ONNX's half_pixel),
// align_corners and TensorFlow 1's legacy mode (ONNX's asymmetric) by flag.
uint32_t ResizeFlags(const ResolvedLayer& l) {
  const std::string c = l.attrs.Str("coordinates");
  return c == "align_corners" ? XNN_FLAG_ALIGN_CORNERS
         : c == "asymmetric"  ? XNN_FLAG_TENSORFLOW_LEGACY_MODE
                              : 0;
}

Step MakeResize(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Shape &in = l.input_shapes[0], &out = l.output_shapes[0];
  const int64_t c = in[1];
  const Buffer x = b.Input(0, Layout::kNhwc);
  const Buffer y = b.Output(Layout::kNhwc);
  xnn_operator_t op = nullptr;
  Check(xnn_create_resize_bilinear2d_nhwc_f32(c, c, c, ResizeFlags(l), &op), l,
        "xnn_create_resize_bilinear2d_nhwc_f32");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_resize_bilinear2d_nhwc_f32(op, in[0], in[2], in[3], out[2], out[3], x.f32(),
                                             y.f32(), b.threadpool()),
        l, "xnn_setup_resize_bilinear2d_nhwc_f32");
  step.kernel = "xnn_resize_bilinear2d_nhwc_f32";
  return step;
}

std::string ResizeRefusal(const ResolvedLayer& l) {
  if (l.input_shapes[0].size() != 4) return "XNNPACK resizes images (NCHW) only";
  if (l.attrs.Str("mode") != "linear") {
    return "XNNPACK resizes bilinearly only (mode '" + l.attrs.Str("mode") + "')";
  }
  const Shape& out = l.output_shapes[0];
  // pytorch_half_pixel is half_pixel but for an output of one pixel, which it samples at 0.
  if (l.attrs.Str("coordinates") == "pytorch_half_pixel" && (out[2] == 1 || out[3] == 1)) {
    return "XNNPACK samples a one-pixel output at the centre, pytorch_half_pixel at 0";
  }
  return "";
}

std::string FusedActivationRefusal(const ResolvedLayer& l) { return ActivationRefusal(l.attrs); }

}  // namespace

OutputRange RangeOf(const Chain& chain) {
  OutputRange r;
  ActivationChoice a = FusedActivation(chain.host->attrs);
  if (chain.activation) {
    a.kind = ActivationNamed(chain.activation->op);
    if (a.kind == ActivationKind::kClippedRelu) a.clip = chain.activation->attrs.Float("clip");
  }
  if (a.kind == ActivationKind::kRelu || a.kind == ActivationKind::kClippedRelu) r.min = 0;
  if (a.kind == ActivationKind::kClippedRelu) r.max = a.clip;
  r.sigmoid = a.kind == ActivationKind::kSigmoid;
  return r;
}

int8_t QuantizedMin(const OutputRange& range, const Quantization& q) {
  return std::isfinite(range.min) ? q.Quantize(range.min) : int8_t{-128};
}
int8_t QuantizedMax(const OutputRange& range, const Quantization& q) {
  return std::isfinite(range.max) ? q.Quantize(range.max) : int8_t{127};
}

void AddComputeOps(OpTable* table) {
  (*table)["conv2d"] = {MakeConv, FusedActivationRefusal};
  (*table)["dense"] = {MakeDense, FusedActivationRefusal};
  (*table)["max_pool"] = {MakePool<true>, PoolRefusal};
  (*table)["avg_pool"] = {MakePool<false>, PoolRefusal};
  (*table)["global_avg_pool"] = {MakeGlobalAvgPool, NoRefusal};
  (*table)["reduce_mean"] = {MakeGlobalAvgPool, SpatialMeanRefusal};
  (*table)["conv_transpose"] = {MakeDeconv, NoRefusal};
  (*table)["resize"] = {MakeResize, ResizeRefusal};
  (*table)["batchnorm"] = {MakeBatchnorm, DimsRefusal};
}

}  // namespace ntpb::xnnb
