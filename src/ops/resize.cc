// resize: nearest or bilinear resampling of the H and W axes of NCHW, with ONNX's coordinate
// conventions (PyTorch's interpolate exports as half_pixel / align_corners / asymmetric).
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferResize(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 4, "inputs", "resize needs an NCHW input, got " + ShapeToString(in));
  const auto size = ctx.attrs.Ints("size");
  ctx.Require(
      size[0] > 0 && size[1] > 0, "size",
      "must be positive, got [" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + "]");
  return {{{in[0], in[1], size[0], size[1]}}, {}, {}};
}

// Bilinear: two lerps along W and one along H, 3 multiply-adds (6 FLOPs) per output element;
// nearest only copies.
int64_t ResizeFlops(const OpCostInput& c) {
  return c.attrs.Str("mode") == "linear" ? CheckedProduct({6, NumElements(c.outputs[0])}) : 0;
}

}  // namespace

void AddResizeOps(std::vector<OpDef>* ops) {
  OpDef resize;
  resize.name = "resize";
  resize.attrs = {
      RequiredAttr("size", AttrType::kIntPair, "output [OH, OW]; the scale is OH / H, OW / W"),
      EnumAttr("mode", {"nearest", "linear"}, "nearest", "nearest neighbour or bilinear"),
      EnumAttr("coordinates", {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"},
               "half_pixel", "how an output position maps to the input (ONNX's names)"),
      EnumAttr("nearest_rounding", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
               "round_prefer_floor", "how nearest rounds a mapped position")};
  resize.infer = InferResize;
  resize.flops = ResizeFlops;
  resize.summary = "nearest or bilinear resampling of H and W: [N, C, H, W] -> [N, C, OH, OW]";
  ops->push_back(resize);
}

}  // namespace ntpb::ops
