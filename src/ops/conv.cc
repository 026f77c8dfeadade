// conv2d: stride, padding, dilation and groups (depthwise and grouped conv are this op); and
// conv_transpose, its adjoint (the upsampling convolution of decoders).
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferConv2d(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 4, "inputs", "conv2d needs an NCHW input, got " + ShapeToString(in));
  const int64_t c = in[1], filters = ctx.attrs.Int("filters"), groups = ctx.attrs.Int("groups");
  const auto kernel = ctx.attrs.Ints("kernel"), stride = ctx.attrs.Ints("stride"),
             dilation = ctx.attrs.Ints("dilation");
  ctx.Require(filters > 0, "filters", "must be positive, got " + std::to_string(filters));
  ctx.Require(groups > 0, "groups", "must be positive, got " + std::to_string(groups));
  ctx.Require(c % groups == 0, "groups",
              std::to_string(c) + " input channels are not divisible by " + std::to_string(groups) +
                  " groups");
  ctx.Require(filters % groups == 0, "groups",
              std::to_string(filters) + " filters are not divisible by " + std::to_string(groups) +
                  " groups");
  const auto pad = ResolvePadding(ctx, in[2], in[3], kernel, stride, dilation);
  const int64_t oh =
      WindowOutput(ctx, in[2], pad[0], pad[2], kernel[0], stride[0], dilation[0], "kernel");
  const int64_t ow =
      WindowOutput(ctx, in[3], pad[1], pad[3], kernel[1], stride[1], dilation[1], "kernel");
  InferResult r;
  r.outputs = {{in[0], filters, oh, ow}};
  const int64_t fan_in = c / groups * kernel[0] * kernel[1];
  r.weights.push_back(
      {"kernel", {filters, c / groups, kernel[0], kernel[1]}, true, WeightInit::kFanIn, fan_in});
  if (ctx.attrs.Bool("bias"))
    r.weights.push_back({"bias", {filters}, true, WeightInit::kFanIn, fan_in});
  r.resolved_attrs["padding"] = pad;
  return r;
}

int64_t Conv2dFlops(const OpCostInput& c) {
  const Shape& in = c.inputs[0];
  const auto kernel = c.attrs.Ints("kernel");
  return CheckedProduct(
      {2, NumElements(c.outputs[0]), in[1] / c.attrs.Int("groups"), kernel[0], kernel[1]});
}

InferResult InferConvTranspose(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 4, "inputs",
              "conv_transpose needs an NCHW input, got " + ShapeToString(in));
  const int64_t c = in[1], filters = ctx.attrs.Int("filters"), groups = ctx.attrs.Int("groups");
  const auto kernel = ctx.attrs.Ints("kernel"), stride = ctx.attrs.Ints("stride"),
             dilation = ctx.attrs.Ints("dilation"), extra = ctx.attrs.Ints("output_padding");
  ctx.Require(filters > 0, "filters", "must be positive, got " + std::to_string(filters));
  ctx.Require(groups > 0 && c % groups == 0 && filters % groups == 0, "groups",
              std::to_string(c) + " input channels and " + std::to_string(filters) +
                  " filters are not both divisible by " + std::to_string(groups) + " groups");
  ctx.Require(ctx.attrs.json().at("padding").is_array(), "padding",
              "conv_transpose takes explicit padding (p, [ph, pw] or [top, left, bottom, right])");
  // Bounds the arithmetic below as conv2d's are (kernel, stride, dilation up to 2^24).
  const auto pad = ResolvePadding(ctx, in[2], in[3], kernel, stride, dilation);
  Shape out = {in[0], filters, 0, 0};
  for (int i = 0; i < 2; ++i) {
    ctx.Require(extra[i] >= 0 && (extra[i] < stride[i] || extra[i] < dilation[i]), "output_padding",
                "must be smaller than the stride or the dilation");
    ctx.Require(pad[i] >= 0 && pad[i + 2] >= 0, "padding", "padding must not be negative");
    // The adjoint of a conv2d from this output to the input: (in - 1) * s + span - padding.
    const int64_t size = (in[2 + i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 +
                         extra[i] - pad[i] - pad[i + 2];
    ctx.Require(
        size > 0, "padding",
        "leaves no output (" + std::to_string(size) + ") along axis " + std::to_string(2 + i));
    out[2 + i] = size;
  }
  InferResult r;
  r.outputs = {out};
  const int64_t fan_in = filters / groups * kernel[0] * kernel[1];  // as PyTorch counts it
  r.weights.push_back(
      {"kernel", {c, filters / groups, kernel[0], kernel[1]}, true, WeightInit::kFanIn, fan_in});
  if (ctx.attrs.Bool("bias"))
    r.weights.push_back({"bias", {filters}, true, WeightInit::kFanIn, fan_in});
  r.resolved_attrs["padding"] = pad;
  return r;
}

// Every input pixel meets every tap of its group's filters.
int64_t ConvTransposeFlops(const OpCostInput& c) {
  const auto kernel = c.attrs.Ints("kernel");
  return CheckedProduct({2, NumElements(c.inputs[0]),
                         c.attrs.Int("filters") / c.attrs.Int("groups"), kernel[0], kernel[1]});
}

}  // namespace

void AddConvOps(std::vector<OpDef>* ops) {
  OpDef conv;
  conv.name = "conv2d";
  conv.attrs = {RequiredAttr("filters", AttrType::kInt, "output channels"),
                RequiredAttr("kernel", AttrType::kIntPair, "kernel size k or [kh, kw]"),
                OptionalAttr("stride", AttrType::kIntPair, 1, "stride s or [sh, sw]"),
                OptionalAttr("padding", AttrType::kPadding, 0,
                             "p, [ph, pw], [top, left, bottom, right], \"same\" or \"valid\""),
                OptionalAttr("dilation", AttrType::kIntPair, 1, "dilation d or [dh, dw]"),
                OptionalAttr("groups", AttrType::kInt, 1,
                             "channel groups; groups = channels = filters is depthwise"),
                OptionalAttr("bias", AttrType::kBool, true, "add a bias per filter")};
  for (AttrDef& a : ActivationAttrs()) conv.attrs.push_back(a);
  conv.infer = InferConv2d;
  conv.flops = Conv2dFlops;
  conv.summary = "2-D convolution, NCHW: [N, C, H, W] -> [N, filters, OH, OW]";
  ops->push_back(conv);

  OpDef transpose;
  transpose.name = "conv_transpose";
  transpose.attrs = {
      RequiredAttr("filters", AttrType::kInt, "output channels"),
      RequiredAttr("kernel", AttrType::kIntPair, "kernel size k or [kh, kw]"),
      OptionalAttr("stride", AttrType::kIntPair, 1, "upsampling stride s or [sh, sw]"),
      OptionalAttr("padding", AttrType::kPadding, 0,
                   "cropped from the output: p, [ph, pw] or [top, left, bottom, right]"),
      OptionalAttr("output_padding", AttrType::kIntPair, 0, "added at the end of the output"),
      OptionalAttr("dilation", AttrType::kIntPair, 1, "dilation d or [dh, dw]"),
      OptionalAttr("groups", AttrType::kInt, 1, "channel groups"),
      OptionalAttr("bias", AttrType::kBool, true, "add a bias per filter")};
  transpose.infer = InferConvTranspose;
  transpose.flops = ConvTransposeFlops;
  transpose.summary =
      "transposed 2-D convolution, NCHW: [N, C, H, W] -> [N, filters, (H-1)*s + k - pads, ...]";
  ops->push_back(transpose);
}

}  // namespace ntpb::ops
