// Activations, sqrt/exp/pow, softmax, swiglu, the broadcasting binary ops and comparisons,
// where, and the reductions: one ATen call each (ATen broadcasts as NumPy does, as the IR).
#include "src/backends/torch/steps.h"
#include "src/ops/activations.h"

namespace ntpb::torchb {
namespace {

// y = f(x) for a unary op.
template <typename F>
Step Unary(const StepArgs& a, F f, const char* kernel) {
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = f(*x); }, kernel};
}

// relu, sigmoid, ...: the activation table's ops (src/ops/activations.h).
Step MakeActivation(const StepArgs& a) {
  const ActivationChoice act = ActivationOp(a.layer.op, a.layer.attrs);
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  switch (act.kind) {
    case ActivationKind::kRelu:
      return {[=] { *y = at::relu(*x); }, "aten::relu"};
    case ActivationKind::kClippedRelu: {
      const double clip = act.clip;
      return {[=] { *y = at::clamp(*x, 0.0, clip); }, "aten::clamp"};
    }
    case ActivationKind::kSigmoid:
      return {[=] { *y = at::sigmoid(*x); }, "aten::sigmoid"};
    case ActivationKind::kTanh:
      return {[=] { *y = at::tanh(*x); }, "aten::tanh"};
    case ActivationKind::kGeluTanh:
      return {[=] { *y = at::gelu(*x, "tanh"); }, "aten::gelu"};
    default:
      return {[=] { *y = at::gelu(*x); }, "aten::gelu"};
  }
}

Step MakeSwiglu(const StepArgs& a) {
  const int64_t f = a.layer.output_shapes[0].back();
  const bool gelu = a.layer.attrs.Str("activation") == "gelu";
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] {
            const at::Tensor gate = x->narrow(-1, 0, f), value = x->narrow(-1, f, f);
            *y = at::mul(gelu ? at::gelu(gate) : at::silu(gate), value);
          },
          gelu ? "aten::gelu + aten::mul" : "aten::silu + aten::mul"};
}

Step MakeSoftmax(const StepArgs& a) {
  const int64_t axis = a.layer.attrs.Int("axis");
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = at::softmax(*x, axis); }, "aten::softmax"};
}

Step MakeLeakyRelu(const StepArgs& a) {
  const double alpha = a.layer.attrs.Float("alpha");
  return Unary(
      a, [=](const at::Tensor& x) { return at::leaky_relu(x, alpha); }, "aten::leaky_relu");
}

// torch's hardsigmoid fixes alpha 1/6 and beta 1/2; ONNX's HardSigmoid defaults to 0.2, 0.5.
Step MakeHardSigmoid(const StepArgs& a) {
  const double alpha = a.layer.attrs.Float("alpha"), beta = a.layer.attrs.Float("beta");
  return Unary(
      a, [=](const at::Tensor& x) { return at::clamp(x * alpha + beta, 0.0, 1.0); },
      "aten::mul + aten::add + aten::clamp");
}

Step MakeHardSwish(const StepArgs& a) {
  return Unary(
      a, [](const at::Tensor& x) { return at::hardswish(x); }, "aten::hardswish");
}
Step MakeSwish(const StepArgs& a) {
  return Unary(
      a, [](const at::Tensor& x) { return at::silu(x); }, "aten::silu");
}
Step MakeSqrt(const StepArgs& a) {
  return Unary(
      a, [](const at::Tensor& x) { return at::sqrt(x); }, "aten::sqrt");
}
Step MakeExp(const StepArgs& a) {
  return Unary(
      a, [](const at::Tensor& x) { return at::exp(x); }, "aten::exp");
}
Step MakePow(const StepArgs& a) {
  const double p = a.layer.attrs.Float("exponent");
  return Unary(
      a, [=](const at::Tensor& x) { return at::pow(x, p); }, "aten::pow");
}

// The binary ops; comparisons give 1 or 0 in the run's type.
template <char kOp>
Step MakeBinary(const StepArgs& a) {
  const at::Tensor *p = a.inputs[0], *q = a.inputs[1];
  at::Tensor* y = a.output;
  switch (kOp) {
    case '+':
      return {[=] { *y = at::add(*p, *q); }, "aten::add"};
    case '-':
      return {[=] { *y = at::sub(*p, *q); }, "aten::sub"};
    case '*':
      return {[=] { *y = at::mul(*p, *q); }, "aten::mul"};
    case '/':
      return {[=] { *y = at::div(*p, *q); }, "aten::div"};
    case '=':
      return {[=] { *y = at::eq(*p, *q); }, "aten::eq"};
    case '<':
      return {[=] { *y = at::lt(*p, *q); }, "aten::lt"};
    default:
      return {[=] { *y = at::gt(*p, *q); }, "aten::gt"};
  }
}

Step MakeWhere(const StepArgs& a) {
  const at::Tensor *c = a.inputs[0], *p = a.inputs[1], *q = a.inputs[2];
  at::Tensor* y = a.output;
  return {[=] { *y = at::where(*c != 0, *p, *q); }, "aten::ne + aten::where"};
}

enum class Reduction { kMean, kSum, kMax };

// Reduced over `axes`, then shaped as resolved (the IR's keepdims is in the output's shape).
template <Reduction kHow>
Step MakeReduce(const StepArgs& a) {
  const std::vector<int64_t> axes = a.layer.attrs.Ints("axes");
  const Shape out = a.layer.output_shapes[0];
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  switch (kHow) {
    case Reduction::kMean:
      return {[=] { *y = at::mean(*x, axes).reshape(out); }, "aten::mean"};
    case Reduction::kSum:
      return {[=] { *y = at::sum(*x, axes).reshape(out); }, "aten::sum"};
    default:
      return {[=] { *y = at::amax(*x, axes).reshape(out); }, "aten::amax"};
  }
}

}  // namespace

void AddElementwiseSteps(StepTable* table) {
  for (const ActivationDef& d : Activations()) {
    if (d.op) (*table)[d.name] = MakeActivation;
  }
  (*table)["softmax"] = MakeSoftmax;
  (*table)["swiglu"] = MakeSwiglu;
  (*table)["leaky_relu"] = MakeLeakyRelu;
  (*table)["hard_sigmoid"] = MakeHardSigmoid;
  (*table)["hard_swish"] = MakeHardSwish;
  (*table)["swish"] = MakeSwish;
  (*table)["sqrt"] = MakeSqrt;
  (*table)["exp"] = MakeExp;
  (*table)["pow"] = MakePow;
  (*table)["add"] = MakeBinary<'+'>;
  (*table)["sub"] = MakeBinary<'-'>;
  (*table)["mul"] = MakeBinary<'*'>;
  (*table)["div"] = MakeBinary<'/'>;
  (*table)["equal"] = MakeBinary<'='>;
  (*table)["less"] = MakeBinary<'<'>;
  (*table)["greater"] = MakeBinary<'>'>;
  (*table)["where"] = MakeWhere;
  (*table)["reduce_mean"] = MakeReduce<Reduction::kMean>;
  (*table)["reduce_sum"] = MakeReduce<Reduction::kSum>;
  (*table)["reduce_max"] = MakeReduce<Reduction::kMax>;
}

}  // namespace ntpb::torchb
