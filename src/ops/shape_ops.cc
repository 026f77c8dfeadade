// Ops that move or relabel data without arithmetic: pad, expand, slice, constant, concat,
// reshape, flatten, transpose.
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

int64_t NoFlops(const OpCostInput&) { return 0; }

InferResult InferConcat(const InferContext& ctx) {
  const Shape& first = ctx.inputs[0];
  const int axis = NormalizeAxis(ctx, ctx.attrs.Int("axis"), first.size(), "axis");
  Shape out = first;
  out[axis] = 0;
  for (const Shape& s : ctx.inputs) {
    bool ok = s.size() == first.size();
    for (size_t i = 0; ok && i < s.size(); ++i)
      ok = static_cast<int>(i) == axis || s[i] == first[i];
    ctx.Require(ok, "inputs",
                "shapes " + ShapeToString(first) + " and " + ShapeToString(s) +
                    " differ outside axis " + std::to_string(axis));
    out[axis] += s[axis];
  }
  return {{out}, {}, {}};
}

InferResult InferReshape(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  Shape out = ctx.attrs.Ints("shape");
  ctx.Require(!out.empty(), "shape", "needs at least one dimension");
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      ctx.Require(infer_at < 0, "shape", "only one dimension may be -1");
      infer_at = static_cast<int>(i);
    } else {
      ctx.Require(out[i] > 0, "shape",
                  "dimensions must be positive or -1, got " + ShapeToString(out));
      known *= out[i];
    }
  }
  const int64_t total = NumElements(in);
  if (infer_at >= 0) {
    ctx.Require(total % known == 0, "shape",
                "cannot reshape " + ShapeToString(in) + " into " + ShapeToString(out));
    out[infer_at] = total / known;
  }
  ctx.Require(NumElements(out) == total, "shape",
              "cannot reshape " + ShapeToString(in) + " (" + std::to_string(total) +
                  " elements) into " + ShapeToString(out));
  InferResult r{{out}, {}, {}};
  r.resolved_attrs["shape"] = out;
  return r;
}

InferResult InferFlatten(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  const int64_t axis = ctx.attrs.Int("axis");
  ctx.Require(axis >= 0 && axis <= static_cast<int64_t>(in.size()), "axis",
              "axis " + std::to_string(axis) + " is out of range for " + ShapeToString(in));
  return {{{Product(in, 0, axis), Product(in, axis, in.size())}}, {}, {}};
}

InferResult InferTranspose(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  const auto perm = ctx.attrs.Ints("perm");
  ctx.Require(perm.size() == in.size(), "perm",
              "needs " + std::to_string(in.size()) + " axes for input " + ShapeToString(in));
  std::vector<bool> seen(in.size());
  Shape out(in.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    ctx.Require(perm[i] >= 0 && perm[i] < static_cast<int64_t>(in.size()) && !seen[perm[i]], "perm",
                "is not a permutation of 0.." + std::to_string(in.size() - 1));
    seen[perm[i]] = true;
    out[i] = in[perm[i]];
  }
  InferResult result{{out}, {}, {}};
  // Axes of size 1 hold no order: if the others keep theirs, no element moves (DeepSpeech's
  // [N, T, C] <-> [T, N, C] at batch 1, which a reorder copied at a few GB/s).
  int64_t last = -1;
  result.view = true;
  for (const int64_t axis : perm) {
    if (in[axis] == 1) continue;
    result.view = result.view && axis > last;
    last = axis;
  }
  return result;
}

InferResult InferSlice(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  const int axis = NormalizeAxis(ctx, ctx.attrs.Int("axis"), in.size(), "axis");
  const int64_t start = ctx.attrs.Int("start"), size = ctx.attrs.Int("size");
  ctx.Require(start >= 0 && start < in[axis], "start",
              std::to_string(start) + " is outside axis " + std::to_string(axis) + " of " +
                  ShapeToString(in));
  ctx.Require(size > 0 && size <= in[axis] - start, "size",
              std::to_string(size) + " elements from " + std::to_string(start) +
                  " do not fit axis " + std::to_string(axis) + " of " + ShapeToString(in));
  Shape out = in;
  out[axis] = size;
  InferResult r{{out}, {}, {}};
  r.resolved_attrs["axis"] = axis;
  return r;
}

InferResult InferConstant(const InferContext& ctx) {
  const Shape shape = ctx.attrs.Ints("shape");
  for (int64_t d : shape) {
    ctx.Require(d > 0, "shape", "dimensions must be positive, got " + ShapeToString(shape));
  }
  InferResult r{{shape}, {}, {}};
  r.weights.push_back({"value", shape, ctx.attrs.Bool("parameter"), WeightInit::kFanIn, 1});
  return r;
}

InferResult InferExpand(const InferContext& ctx) {
  const Shape shape = ctx.attrs.Ints("shape");
  for (int64_t d : shape) {
    ctx.Require(d > 0, "shape", "dimensions must be positive, got " + ShapeToString(shape));
  }
  return {{BroadcastShapes(ctx, ctx.inputs[0], shape, "shape")}, {}, {}};
}

InferResult InferPad(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  const auto pads = ctx.attrs.Ints("pads");
  const size_t rank = in.size();
  ctx.Require(pads.size() == 2 * rank, "pads",
              "needs " + std::to_string(2 * rank) + " values (every axis's start, then every " +
                  "axis's end) for input " + ShapeToString(in));
  Shape out = in;
  for (size_t i = 0; i < rank; ++i) {
    ctx.Require(pads[i] >= 0 && pads[rank + i] >= 0, "pads",
                "must not be negative (cropping is a slice)");
    // Integer attributes are within the dimension limit (resolve.h): the sum cannot overflow.
    out[i] = in[i] + pads[i] + pads[rank + i];
  }
  return {{out}, {}, {}};
}

}  // namespace

void AddShapeOps(std::vector<OpDef>* ops) {
  OpDef pad;
  pad.name = "pad";
  pad.attrs = {RequiredAttr("pads", AttrType::kIntList,
                            "[start_0, ..., start_(r-1), end_0, ..., end_(r-1)], as in ONNX"),
               OptionalAttr("value", AttrType::kFloat, 0.0, "the value padded with")};
  pad.infer = InferPad;
  pad.flops = NoFlops;
  pad.summary = "surrounds the input with a constant";
  ops->push_back(pad);

  OpDef expand;
  expand.name = "expand";
  expand.attrs = {RequiredAttr("shape", AttrType::kIntList,
                               "the shape broadcast to (NumPy rules, as ONNX Expand)")};
  expand.infer = InferExpand;
  expand.flops = NoFlops;
  expand.summary = "repeats the input along its axes of size 1 (and new leading axes)";
  ops->push_back(expand);

  OpDef slice;
  slice.name = "slice";
  slice.attrs = {RequiredAttr("axis", AttrType::kInt, "axis cut along"),
                 RequiredAttr("start", AttrType::kInt, "first index kept"),
                 RequiredAttr("size", AttrType::kInt, "number of indices kept")};
  slice.infer = InferSlice;
  slice.flops = NoFlops;
  slice.summary = "a contiguous range along one axis (ONNX Split is one slice per part)";
  ops->push_back(slice);

  OpDef constant;
  constant.name = "constant";
  constant.min_inputs = constant.max_inputs = 0;
  constant.attrs = {RequiredAttr("shape", AttrType::kIntList, "shape of the value"),
                    OptionalAttr("parameter", AttrType::kBool, true,
                                 "a trainable parameter (false: a computed constant such as an "
                                 "attention scale, not counted in params)")};
  constant.infer = InferConstant;
  constant.flops = NoFlops;
  constant.summary = "a fixed tensor (weight 'value'), e.g. a constant operand of add or mul";
  ops->push_back(constant);

  OpDef concat;
  concat.name = "concat";
  concat.max_inputs = -1;
  concat.attrs = {OptionalAttr("axis", AttrType::kInt, 1, "axis joined along")};
  concat.infer = InferConcat;
  concat.flops = NoFlops;
  concat.summary = "joins inputs along axis";
  ops->push_back(concat);

  OpDef reshape;
  reshape.name = "reshape";
  reshape.attrs = {RequiredAttr("shape", AttrType::kIntList, "new shape; one entry may be -1")};
  reshape.infer = InferReshape;
  reshape.flops = NoFlops;
  reshape.is_view = true;
  reshape.summary = "same data, new shape (a view: no copy)";
  ops->push_back(reshape);

  OpDef flatten;
  flatten.name = "flatten";
  flatten.attrs = {OptionalAttr("axis", AttrType::kInt, 1, "first axis folded into the second")};
  flatten.infer = InferFlatten;
  flatten.flops = NoFlops;
  flatten.is_view = true;
  flatten.summary = "[d0..d(axis-1), d(axis)..] -> [prod before axis, prod from axis] (a view)";
  ops->push_back(flatten);

  OpDef transpose;
  transpose.name = "transpose";
  transpose.attrs = {
      RequiredAttr("perm", AttrType::kIntList, "output axis i is input axis perm[i]")};
  transpose.infer = InferTranspose;
  transpose.flops = NoFlops;
  transpose.summary = "permutes axes (moves data, unless only axes of size 1 move: a view)";
  ops->push_back(transpose);
}

}  // namespace ntpb::ops
