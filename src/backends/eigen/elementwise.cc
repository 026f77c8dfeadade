// Activations (standalone and fused), sqrt/exp/pow, softmax, broadcasting add/sub/mul/div and
// comparisons, and where.
#include <array>
#include <cmath>
#include <memory>

#include "src/backends/common/broadcast.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {

Activation Activation::FromAttrs(const Attrs& attrs) {
  const ActivationChoice choice = FusedActivation(attrs);
  return {choice.kind, choice.clip};
}

void Activation::Apply(float* data, int64_t n) const {
  ArrayMap v(data, n);
  switch (kind) {
    case Kind::kNone:
      break;
    case Kind::kRelu:
      v = v.max(0.0f);
      break;
    case Kind::kClippedRelu:
      v = v.max(0.0f).min(clip);
      break;
    case Kind::kSigmoid:
      v = 1.0f / (1.0f + (-v).exp());
      break;
    case Kind::kTanh:
      v = v.tanh();
      break;
    case Kind::kGelu:
      for (int64_t i = 0; i < n; ++i) {
        data[i] = 0.5f * data[i] * (1.0f + std::erf(data[i] * 0.70710678118654752f));
      }
      break;
    case Kind::kGeluTanh:
      for (int64_t i = 0; i < n; ++i) {
        const float x = data[i];
        data[i] = 0.5f * x * (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
      }
      break;
  }
}

namespace {

Kernel MakeUnary(const KernelArgs& a, Activation act) {
  const int64_t n = NumElements(a.layer.output_shapes[0]);
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] {
    std::copy(x, x + n, y);
    act.Apply(y, n);
  };
}

// relu, sigmoid, ...: the activation table's ops (src/ops/activations.h).
Kernel MakeActivation(const KernelArgs& a) {
  const ActivationChoice choice = ActivationOp(a.layer.op, a.layer.attrs);
  return MakeUnary(a, {choice.kind, choice.clip});
}

// swiglu: act(gate) * value, the gate the first half of each row.
Kernel MakeSwiglu(const KernelArgs& a) {
  const Shape& out = a.layer.output_shapes[0];
  const int64_t f = out.back(), rows = NumElements(out) / f;
  const bool gelu = a.layer.attrs.Str("activation") == "gelu";
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] {
    for (int64_t r = 0; r < rows; ++r) {
      const float* gate = x + r * 2 * f;
      const float* value = gate + f;
      float* dst = y + r * f;
      for (int64_t i = 0; i < f; ++i) {
        const float z = gate[i];
        const float act = gelu ? 0.5f * z * (1.0f + std::erf(z * 0.70710678118654752f))
                               : z / (1.0f + std::exp(-z));
        dst[i] = act * value[i];
      }
    }
  };
}

Kernel MakeSoftmax(const KernelArgs& a) {
  const Shape& s = a.layer.input_shapes[0];
  int64_t axis = a.layer.attrs.Int("axis");
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= s[i];
  for (size_t i = axis + 1; i < s.size(); ++i) inner *= s[i];
  const int64_t len = s[axis];
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * len * inner + i;
        Eigen::Map<const Eigen::ArrayXf, 0, Eigen::InnerStride<>> in(x + base, len,
                                                                     Eigen::InnerStride<>(inner));
        Eigen::Map<Eigen::ArrayXf, 0, Eigen::InnerStride<>> out(y + base, len,
                                                                Eigen::InnerStride<>(inner));
        out = (in - in.maxCoeff()).exp();
        out /= out.sum();
      }
    }
  };
}

// The binary ops: arithmetic, and comparisons giving 1 or 0.
template <char kOp>
float Apply(float a, float b) {
  switch (kOp) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '=':
      return a == b ? 1.0f : 0.0f;
    case '<':
      return a < b ? 1.0f : 0.0f;
    default:  // '>'
      return a > b ? 1.0f : 0.0f;
  }
}

Kernel MakeLeakyRelu(const KernelArgs& a) {
  const int64_t n = NumElements(a.layer.output_shapes[0]);
  const float alpha = static_cast<float>(a.layer.attrs.Float("alpha"));
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] {
    ArrayMap(y, n) =
        (ConstArrayMap(x, n) > 0.0f).select(ConstArrayMap(x, n), alpha * ConstArrayMap(x, n));
  };
}

// y = f(x) elementwise, for the unary ops without a fused form.
template <typename F>
Kernel MakeMap(const KernelArgs& a, F f) {
  const int64_t n = NumElements(a.layer.output_shapes[0]);
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] {
    for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  };
}

Kernel MakeHardSigmoid(const KernelArgs& a) {
  const float alpha = static_cast<float>(a.layer.attrs.Float("alpha"));
  const float beta = static_cast<float>(a.layer.attrs.Float("beta"));
  return MakeMap(a, [=](float x) { return std::min(1.0f, std::max(0.0f, alpha * x + beta)); });
}

Kernel MakeHardSwish(const KernelArgs& a) {
  return MakeMap(a, [](float x) { return x * std::min(1.0f, std::max(0.0f, x / 6.0f + 0.5f)); });
}

Kernel MakeSwish(const KernelArgs& a) {
  return MakeMap(a, [](float x) { return x / (1.0f + std::exp(-x)); });
}

Kernel MakeSqrt(const KernelArgs& a) {
  return MakeMap(a, [](float x) { return std::sqrt(x); });
}

Kernel MakeExp(const KernelArgs& a) {
  return MakeMap(a, [](float x) { return std::exp(x); });
}

Kernel MakePow(const KernelArgs& a) {
  const float p = static_cast<float>(a.layer.attrs.Float("exponent"));
  if (p == 2.0f) return MakeMap(a, [](float x) { return x * x; });
  return MakeMap(a, [=](float x) { return std::pow(x, p); });
}

template <char kOp>
Kernel MakeBinary(const KernelArgs& a) {
  const Shape& out = a.layer.output_shapes[0];
  const Shape& sa = a.layer.input_shapes[0];
  const Shape& sb = a.layer.input_shapes[1];
  const int64_t n = NumElements(out);
  const float* pa = a.inputs[0];
  const float* pb = a.inputs[1];
  float* y = a.output;
  constexpr bool kArithmetic = kOp == '+' || kOp == '-' || kOp == '*' || kOp == '/';
  if (kArithmetic && sa == sb) {
    return [=] {
      if (kOp == '+') ArrayMap(y, n) = ConstArrayMap(pa, n) + ConstArrayMap(pb, n);
      if (kOp == '-') ArrayMap(y, n) = ConstArrayMap(pa, n) - ConstArrayMap(pb, n);
      if (kOp == '*') ArrayMap(y, n) = ConstArrayMap(pa, n) * ConstArrayMap(pb, n);
      if (kOp == '/') ArrayMap(y, n) = ConstArrayMap(pa, n) / ConstArrayMap(pb, n);
    };
  }
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(sa, out),
                                                       BroadcastStrides(sb, out)};
  auto index = std::make_shared<std::vector<int64_t>>(out.size(), 0);  // allocated once, here
  return [=] {
    ForEachBroadcast<2>(out, strides, *index, [&](int64_t i, const std::array<int64_t, 2>& o) {
      y[i] = Apply<kOp>(pa[o[0]], pb[o[1]]);
    });
  };
}

Kernel MakeWhere(const KernelArgs& a) {
  const auto& s = a.layer.input_shapes;
  const WhereKernel where(s[0], s[1], s[2], a.layer.output_shapes[0]);
  auto index = std::make_shared<std::vector<int64_t>>(where.out.size(), 0);
  const float *c = a.inputs[0], *x = a.inputs[1], *z = a.inputs[2];
  float* y = a.output;
  return [=] { where(c, x, z, y, *index); };
}

}  // namespace

void AddElementwiseKernels(KernelTable* table) {
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
}

}  // namespace ntpb::eigen
