#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

Kernel MakeDense(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t k = in.back(), units = a.layer.output_shapes[0].back();
  const int64_t m = NumElements(in) / k;
  const float* x = a.inputs[0];
  const float* w = a.weights[0];
  const float* b = a.weights.size() > 1 ? a.weights[1] : nullptr;
  float* y = a.output;
  const Activation act = Activation::FromAttrs(a.layer.attrs);
  return [=] {
    MatrixMap out(y, m, units);
    out.noalias() = ConstMatrixMap(x, m, k) * ConstMatrixMap(w, k, units);
    if (b) out.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b, units);
    act.Apply(y, m * units);
  };
}

Kernel MakeMatmul(const KernelArgs& a) {
  const Shape& sa = a.layer.input_shapes[0];
  const Shape& sb = a.layer.input_shapes[1];
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const int64_t batch = NumElements(sa) / (m * k);
  const bool shared_b = sb.size() == 2;
  const float* pa = a.inputs[0];
  const float* pb = a.inputs[1];
  float* y = a.output;
  return [=] {
    for (int64_t i = 0; i < batch; ++i) {
      MatrixMap(y + i * m * n, m, n).noalias() =
          ConstMatrixMap(pa + i * m * k, m, k) *
          ConstMatrixMap(pb + (shared_b ? 0 : i * k * n), k, n);
    }
  };
}

}  // namespace

void AddDenseKernels(KernelTable* table) {
  (*table)["dense"] = MakeDense;
  (*table)["matmul"] = MakeMatmul;
}

}  // namespace ntpb::eigen
