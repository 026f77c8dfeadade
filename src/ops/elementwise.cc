// Unary elementwise ops (activations, sqrt, exp, pow by a constant), softmax and the gated
// activation of transformer MLPs (swiglu).
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferSame(const InferContext& ctx) { return {{ctx.inputs[0]}, {}, {}}; }
int64_t OnePerElement(const OpCostInput& c) { return NumElements(c.outputs[0]); }
int64_t ThreePerElement(const OpCostInput& c) { return 3 * NumElements(c.outputs[0]); }

InferResult InferSoftmax(const InferContext& ctx) {
  NormalizeAxis(ctx, ctx.attrs.Int("axis"), ctx.inputs[0].size(), "axis");
  return {{ctx.inputs[0]}, {}, {}};
}

InferResult InferSwiglu(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(
      in.back() % 2 == 0, "inputs",
      "swiglu halves the last axis into gate and value; " + ShapeToString(in) + " has an odd one");
  Shape out = in;
  out.back() /= 2;
  return {{out}, {}, {}};
}
// The activation and the product: two per output element.
int64_t TwoPerOutput(const OpCostInput& c) { return 2 * NumElements(c.outputs[0]); }

OpDef Unary(const std::string& name, const std::string& summary) {
  OpDef op;
  op.name = name;
  op.infer = InferSame;
  op.flops = OnePerElement;
  op.summary = summary;
  return op;
}

}  // namespace

void AddElementwiseOps(std::vector<OpDef>* ops) {
  ops->push_back(Unary("relu", "max(x, 0)"));
  OpDef clipped = Unary("clipped_relu", "min(max(x, 0), clip)");
  clipped.attrs = {OptionalAttr("clip", AttrType::kFloat, 20.0, "upper bound")};
  clipped.attrs[0].at_least = 0;
  ops->push_back(clipped);
  OpDef leaky = Unary("leaky_relu", "x if x > 0, else alpha * x");
  leaky.attrs = {OptionalAttr("alpha", AttrType::kFloat, 0.01, "slope for x < 0")};
  ops->push_back(leaky);
  ops->push_back(Unary("sigmoid", "1 / (1 + exp(-x))"));
  ops->push_back(Unary("tanh", "tanh(x)"));
  OpDef gelu = Unary("gelu", "x * Phi(x) (erf form, or the tanh approximation)");
  gelu.attrs = {EnumAttr("approximate", {"none", "tanh"}, "none", "tanh approximation")};
  ops->push_back(gelu);
  OpDef hard_sigmoid = Unary("hard_sigmoid", "max(0, min(1, alpha * x + beta))");
  hard_sigmoid.attrs = {OptionalAttr("alpha", AttrType::kFloat, 0.2, "slope"),
                        OptionalAttr("beta", AttrType::kFloat, 0.5, "offset")};
  ops->push_back(hard_sigmoid);
  ops->push_back(Unary("hard_swish", "x * max(0, min(1, x / 6 + 1 / 2)) (MobileNet v3)"));
  ops->push_back(Unary("swish", "x * sigmoid(x) (SiLU; EfficientNet)"));
  ops->push_back(Unary("sqrt", "square root"));
  ops->push_back(Unary("exp", "e^x"));
  OpDef pow = Unary("pow", "x^exponent");
  pow.attrs = {RequiredAttr("exponent", AttrType::kFloat, "constant exponent")};
  ops->push_back(pow);

  OpDef softmax;
  softmax.name = "softmax";
  softmax.attrs = {OptionalAttr("axis", AttrType::kInt, -1, "axis normalized over")};
  softmax.infer = InferSoftmax;
  softmax.flops = ThreePerElement;
  softmax.summary = "exp(x - max) / sum(exp(x - max)) along axis";
  ops->push_back(softmax);

  OpDef swiglu;
  swiglu.name = "swiglu";
  swiglu.attrs = {EnumAttr("activation", {"silu", "gelu"}, "silu",
                           "of the gate: silu (SwiGLU, Llama) or gelu (GeGLU)")};
  swiglu.infer = InferSwiglu;
  swiglu.flops = TwoPerOutput;
  swiglu.summary =
      "gated activation of a transformer MLP: [..., 2F] = [gate | value] -> act(gate) * value "
      "[..., F] (one dense layer computes both halves)";
  ops->push_back(swiglu);
}

}  // namespace ntpb::ops
