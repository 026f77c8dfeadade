// Activations (standalone and fused), sqrt/exp/pow, softmax, and broadcasting add/sub/mul/div.
#include <cmath>
#include <memory>

#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {

Activation Activation::FromAttrs(const Attrs& attrs) {
  Activation act;
  if (!attrs.Has("activation")) return act;
  const std::string name = attrs.Str("activation");
  if (name == "relu") act.kind = Kind::kRelu;
  if (name == "clipped_relu") act.kind = Kind::kClippedRelu;
  if (name == "sigmoid") act.kind = Kind::kSigmoid;
  if (name == "tanh") act.kind = Kind::kTanh;
  if (name == "gelu") act.kind = Kind::kGelu;
  if (attrs.Has("clip")) act.clip = static_cast<float>(attrs.Float("clip"));
  return act;
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

template <Activation::Kind kKind>
Kernel MakeActivation(const KernelArgs& a) {
  Activation act;
  act.kind = kKind;
  if (a.layer.attrs.Has("clip")) act.clip = static_cast<float>(a.layer.attrs.Float("clip"));
  if (kKind == Activation::Kind::kGelu && a.layer.attrs.Str("approximate") == "tanh") {
    act.kind = Activation::Kind::kGeluTanh;
  }
  return MakeUnary(a, act);
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

template <char kOp>
float Apply(float a, float b) {
  return kOp == '+' ? a + b : kOp == '-' ? a - b : kOp == '*' ? a * b : a / b;
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
  if (sa == sb) {
    return [=] {
      if (kOp == '+') ArrayMap(y, n) = ConstArrayMap(pa, n) + ConstArrayMap(pb, n);
      if (kOp == '-') ArrayMap(y, n) = ConstArrayMap(pa, n) - ConstArrayMap(pb, n);
      if (kOp == '*') ArrayMap(y, n) = ConstArrayMap(pa, n) * ConstArrayMap(pb, n);
      if (kOp == '/') ArrayMap(y, n) = ConstArrayMap(pa, n) / ConstArrayMap(pb, n);
    };
  }
  // General broadcasting: per output axis, the stride of each input (0 where broadcast).
  const size_t rank = out.size();
  auto strides = [&](const Shape& s) {
    std::vector<int64_t> st(rank, 0);
    int64_t acc = 1;
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t axis = rank - 1 - i;
      const int64_t d = s[s.size() - 1 - i];
      st[axis] = d == 1 ? 0 : acc;
      acc *= d;
    }
    return st;
  };
  const std::vector<int64_t> st_a = strides(sa), st_b = strides(sb);
  const Shape dims = out;
  auto index = std::make_shared<std::vector<int64_t>>(rank, 0);  // allocated once, here
  return [=] {
    std::vector<int64_t>& idx = *index;
    std::fill(idx.begin(), idx.end(), 0);
    int64_t ia = 0, ib = 0;
    for (int64_t i = 0; i < n; ++i) {
      y[i] = Apply<kOp>(pa[ia], pb[ib]);
      for (size_t d = rank; d-- > 0;) {
        ia += st_a[d];
        ib += st_b[d];
        if (++idx[d] < dims[d]) break;
        ia -= st_a[d] * dims[d];
        ib -= st_b[d] * dims[d];
        idx[d] = 0;
      }
    }
  };
}

}  // namespace

void AddElementwiseKernels(KernelTable* table) {
  (*table)["relu"] = MakeActivation<Activation::Kind::kRelu>;
  (*table)["clipped_relu"] = MakeActivation<Activation::Kind::kClippedRelu>;
  (*table)["sigmoid"] = MakeActivation<Activation::Kind::kSigmoid>;
  (*table)["tanh"] = MakeActivation<Activation::Kind::kTanh>;
  (*table)["gelu"] = MakeActivation<Activation::Kind::kGelu>;
  (*table)["softmax"] = MakeSoftmax;
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
}

}  // namespace ntpb::eigen
