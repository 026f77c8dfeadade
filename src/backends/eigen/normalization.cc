#include <cmath>

#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

Kernel MakeBatchnorm(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = in[0], c = in[1], inner = NumElements(in) / (n * c);
  const float eps = static_cast<float>(a.layer.attrs.Float("epsilon"));
  const float *x = a.inputs[0], *gamma = a.weights[0], *beta = a.weights[1], *mean = a.weights[2],
              *var = a.weights[3];
  float* y = a.output;
  return [=] {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const float scale = gamma[ch] / std::sqrt(var[ch] + eps);
        const float shift = beta[ch] - mean[ch] * scale;
        const int64_t off = (i * c + ch) * inner;
        ArrayMap(y + off, inner) = ConstArrayMap(x + off, inner) * scale + shift;
      }
    }
  };
}

Kernel MakeLayernorm(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t c = in.back(), rows = NumElements(in) / c;
  const float eps = static_cast<float>(a.layer.attrs.Float("epsilon"));
  const float *x = a.inputs[0], *gamma = a.weights[0], *beta = a.weights[1];
  float* y = a.output;
  return [=] {
    for (int64_t r = 0; r < rows; ++r) {
      ConstArrayMap row(x + r * c, c);
      const float mean = row.mean();
      const float var = (row - mean).square().mean();
      ArrayMap(y + r * c, c) =
          (row - mean) / std::sqrt(var + eps) * ConstArrayMap(gamma, c) + ConstArrayMap(beta, c);
    }
  };
}

Kernel MakeRmsNorm(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t c = in.back(), rows = NumElements(in) / c;
  const float eps = static_cast<float>(a.layer.attrs.Float("epsilon"));
  const float *x = a.inputs[0], *gamma = a.weights[0];
  float* y = a.output;
  return [=] {
    for (int64_t r = 0; r < rows; ++r) {
      ConstArrayMap row(x + r * c, c);
      const float inv = 1.0f / std::sqrt(row.square().mean() + eps);
      ArrayMap(y + r * c, c) = row * inv * ConstArrayMap(gamma, c);
    }
  };
}

}  // namespace

void AddNormalizationKernels(KernelTable* table) {
  (*table)["batchnorm"] = MakeBatchnorm;
  (*table)["layernorm"] = MakeLayernorm;
  (*table)["rms_norm"] = MakeRmsNorm;
}

}  // namespace ntpb::eigen
