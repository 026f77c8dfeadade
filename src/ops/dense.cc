// dense (fully connected on the last axis) and matmul (product of two activations).
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferDense(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() >= 2, "inputs",
              "dense needs an input of rank >= 2, got " + ShapeToString(in));
  const int64_t units = ctx.attrs.Int("units");
  ctx.Require(units > 0, "units", "must be positive, got " + std::to_string(units));
  const int64_t k = in.back();
  InferResult r;
  Shape out = in;
  out.back() = units;
  r.outputs = {out};
  r.weights.push_back({"kernel", {k, units}, true, WeightInit::kFanIn, k, true});
  if (ctx.attrs.Bool("bias")) r.weights.push_back({"bias", {units}, true, WeightInit::kFanIn, k});
  return r;
}

int64_t DenseFlops(const OpCostInput& c) {
  const Shape& in = c.inputs[0];
  return CheckedProduct({2, Product(in, 0, in.size() - 1), in.back(), c.outputs[0].back()});
}

InferResult InferMatmul(const InferContext& ctx) {
  const Shape& a = ctx.inputs[0];
  const Shape& b = ctx.inputs[1];
  ctx.Require(
      a.size() >= 2 && b.size() >= 2, "inputs",
      "matmul needs inputs of rank >= 2, got " + ShapeToString(a) + " and " + ShapeToString(b));
  ctx.Require(a.back() == b[b.size() - 2], "inputs",
              "inner dimensions differ: " + ShapeToString(a) + " x " + ShapeToString(b));
  const bool same_batch = a.size() == b.size() && std::equal(a.begin(), a.end() - 2, b.begin());
  ctx.Require(b.size() == 2 || same_batch, "inputs",
              "the second input must be 2-D or have the same batch dimensions: " +
                  ShapeToString(a) + " x " + ShapeToString(b));
  Shape out = a;
  out.back() = b.back();
  return {{out}, {}, {}};
}

int64_t MatmulFlops(const OpCostInput& c) {
  const Shape& a = c.inputs[0];
  return CheckedProduct({2, Product(a, 0, a.size()), c.inputs[1].back()});
}

}  // namespace

void AddDenseOps(std::vector<OpDef>* ops) {
  OpDef dense;
  dense.name = "dense";
  dense.attrs = {RequiredAttr("units", AttrType::kInt, "output features"),
                 OptionalAttr("bias", AttrType::kBool, true, "add a bias vector")};
  for (AttrDef& a : ActivationAttrs()) dense.attrs.push_back(a);
  dense.infer = InferDense;
  dense.flops = DenseFlops;
  dense.summary = "y = act(x W + b) on the last axis: [..., K] -> [..., units]";
  ops->push_back(dense);

  OpDef matmul;
  matmul.name = "matmul";
  matmul.min_inputs = matmul.max_inputs = 2;
  matmul.infer = InferMatmul;
  matmul.flops = MatmulFlops;
  matmul.summary = "product of two activations: [..., M, K] x [..., K, N] -> [..., M, N]";
  ops->push_back(matmul);
}

}  // namespace ntpb::ops
