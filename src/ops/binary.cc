// Two tensors with NumPy broadcasting: arithmetic (add, sub, mul, div) and comparisons (equal,
// less, greater: 1 where true, else 0, as a float like every tensor).
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferBroadcast(const InferContext& ctx) {
  return {{BroadcastShapes(ctx, ctx.inputs[0], ctx.inputs[1])}, {}, {}};
}

int64_t OnePerElement(const OpCostInput& c) { return NumElements(c.outputs[0]); }

}  // namespace

void AddBinaryOps(std::vector<OpDef>* ops) {
  const std::pair<const char*, const char*> kOps[] = {
      {"add", "a + b, NumPy broadcasting (residual connections, gating)"},
      {"sub", "a - b, NumPy broadcasting"},
      {"mul", "a * b, NumPy broadcasting (gating, scaling)"},
      {"div", "a / b, NumPy broadcasting"},
      {"equal", "1 where a == b else 0, NumPy broadcasting (padding masks: ids == 0)"},
      {"less", "1 where a < b else 0, NumPy broadcasting"},
      {"greater", "1 where a > b else 0, NumPy broadcasting"}};
  for (const auto& [name, summary] : kOps) {
    OpDef op;
    op.name = name;
    op.min_inputs = op.max_inputs = 2;
    op.infer = InferBroadcast;
    op.flops = OnePerElement;
    op.summary = summary;
    ops->push_back(op);
  }
}

}  // namespace ntpb::ops
