// reduce_mean, reduce_sum, reduce_max: over a set of axes, keeping them as 1s or dropping them.
#include <algorithm>

#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferReduce(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  std::vector<int64_t> axes = ctx.attrs.Ints("axes");
  ctx.Require(!axes.empty(), "axes", "needs at least one axis");
  std::vector<bool> reduced(in.size(), false);
  for (int64_t& a : axes) {
    a = NormalizeAxis(ctx, a, in.size(), "axes");
    ctx.Require(!reduced[a], "axes", "names axis " + std::to_string(a) + " twice");
    reduced[a] = true;
  }
  std::sort(axes.begin(), axes.end());
  const bool keep = ctx.attrs.Bool("keepdims");
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i])
      out.push_back(in[i]);
    else if (keep)
      out.push_back(1);
  }
  ctx.Require(!out.empty(), "axes",
              "reduces every axis of " + ShapeToString(in) + " away (set keepdims)");
  InferResult r{{out}, {}, {}};
  r.resolved_attrs["axes"] = axes;
  return r;
}

// One add (or max) per input element.
int64_t OnePerInputElement(const OpCostInput& c) { return NumElements(c.inputs[0]); }

}  // namespace

void AddReduceOps(std::vector<OpDef>* ops) {
  const std::pair<const char*, const char*> kOps[] = {
      {"reduce_mean", "mean"}, {"reduce_sum", "sum"}, {"reduce_max", "maximum"}};
  for (const auto& [name, what] : kOps) {
    OpDef op;
    op.name = name;
    op.attrs = {RequiredAttr("axes", AttrType::kIntList, "axes reduced (negative: from the end)"),
                OptionalAttr("keepdims", AttrType::kBool, true, "keep reduced axes as 1")};
    op.infer = InferReduce;
    op.flops = OnePerInputElement;
    op.summary = std::string(what) + " over `axes` (a global mean is reduce_mean over [2, 3])";
    ops->push_back(op);
  }
}

}  // namespace ntpb::ops
