// add, sub, mul and div of two tensors with NumPy broadcasting.
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferBroadcast(const InferContext& ctx) {
  const Shape& a = ctx.inputs[0];
  const Shape& b = ctx.inputs[1];
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    ctx.Require(da == db || da == 1 || db == 1, "inputs",
                "shapes " + ShapeToString(a) + " and " + ShapeToString(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return {{out}, {}, {}};
}

int64_t OnePerElement(const OpCostInput& c) { return NumElements(c.outputs[0]); }

}  // namespace

void AddBinaryOps(std::vector<OpDef>* ops) {
  const std::pair<const char*, const char*> kOps[] = {
      {"add", "a + b"}, {"sub", "a - b"}, {"mul", "a * b"}, {"div", "a / b"}};
  for (const auto& [name, formula] : kOps) {
    OpDef op;
    op.name = name;
    op.min_inputs = op.max_inputs = 2;
    op.infer = InferBroadcast;
    op.flops = OnePerElement;
    op.summary = std::string(formula) + ", NumPy broadcasting (residual connections, gating)";
    ops->push_back(op);
  }
}

}  // namespace ntpb::ops
