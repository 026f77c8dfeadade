// where: an element-wise choice between two tensors by a condition, NumPy broadcasting over all
// three (attention masks: where(padding, -inf, 0)).
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferWhere(const InferContext& ctx) {
  const Shape ab = BroadcastShapes(ctx, ctx.inputs[1], ctx.inputs[2]);
  return {{BroadcastShapes(ctx, ctx.inputs[0], ab)}, {}, {}};
}

int64_t NoFlops(const OpCostInput&) { return 0; }

}  // namespace

void AddSelectOps(std::vector<OpDef>* ops) {
  OpDef where;
  where.name = "where";
  where.min_inputs = where.max_inputs = 3;
  where.infer = InferWhere;
  where.flops = NoFlops;
  where.summary = "inputs (condition, a, b): a where condition != 0 else b, NumPy broadcasting";
  ops->push_back(where);
}

}  // namespace ntpb::ops
