// batchnorm (inference, running statistics, channel axis 1), layernorm and rms_norm (last axis).
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferBatchnorm(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() >= 2, "inputs",
              "batchnorm needs a rank >= 2 input, got " + ShapeToString(in));
  const int64_t c = in[1];
  InferResult r;
  r.outputs = {in};
  r.weights = {{"gamma", {c}, true, WeightInit::kOnes, 1},
               {"beta", {c}, true, WeightInit::kZeros, 1},
               {"mean", {c}, false, WeightInit::kZeros, 1},
               {"variance", {c}, false, WeightInit::kVariance, 1}};
  return r;
}

InferResult InferLayernorm(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  const int64_t c = in.back();
  InferResult r;
  r.outputs = {in};
  r.weights = {{"gamma", {c}, true, WeightInit::kOnes, 1},
               {"beta", {c}, true, WeightInit::kZeros, 1}};
  return r;
}

InferResult InferRmsNorm(const InferContext& ctx) {
  InferResult r;
  r.outputs = {ctx.inputs[0]};
  r.weights = {{"gamma", {ctx.inputs[0].back()}, true, WeightInit::kOnes, 1}};
  return r;
}

int64_t BatchnormFlops(const OpCostInput& c) { return 2 * NumElements(c.inputs[0]); }
int64_t LayernormFlops(const OpCostInput& c) { return 7 * NumElements(c.inputs[0]); }
// Square and sum, then scale by 1/rms and by gamma.
int64_t RmsNormFlops(const OpCostInput& c) { return 4 * NumElements(c.inputs[0]); }

}  // namespace

void AddNormalizationOps(std::vector<OpDef>* ops) {
  OpDef bn;
  bn.name = "batchnorm";
  bn.attrs = {OptionalAttr("epsilon", AttrType::kFloat, 1e-5, "added to the variance")};
  bn.attrs[0].greater_than = 0;
  bn.infer = InferBatchnorm;
  bn.flops = BatchnormFlops;
  bn.summary = "inference batch normalization over axis 1 with running mean and variance";
  ops->push_back(bn);

  OpDef ln;
  ln.name = "layernorm";
  ln.attrs = {OptionalAttr("epsilon", AttrType::kFloat, 1e-5, "added to the variance")};
  ln.attrs[0].greater_than = 0;
  ln.infer = InferLayernorm;
  ln.flops = LayernormFlops;
  ln.summary = "layer normalization over the last axis, with gamma and beta";
  ops->push_back(ln);

  OpDef rms;
  rms.name = "rms_norm";
  rms.attrs = {OptionalAttr("epsilon", AttrType::kFloat, 1e-6, "added to the mean square")};
  rms.attrs[0].greater_than = 0;
  rms.infer = InferRmsNorm;
  rms.flops = RmsNormFlops;
  rms.summary = "x / sqrt(mean(x^2) + epsilon) * gamma over the last axis (Llama's RMSNorm)";
  ops->push_back(rms);
}

}  // namespace ntpb::ops
