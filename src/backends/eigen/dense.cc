#include <algorithm>

#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {

void MultiplyRowMajor(const float* a, const float* b, float* out, int64_t m, int64_t k, int64_t n,
                      int threads) {
  using Strided = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
  using ConstStrided = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
  if (m >= 16 || threads <= 1 || n < 64 * threads) {
    MatrixMap(out, m, n).noalias() = ConstMatrixMap(a, m, k) * ConstMatrixMap(b, k, n);
    return;
  }
  // Column blocks rounded to 16 floats (one cache line) so threads never share a line.
  const int64_t block = ((n + threads - 1) / threads + 15) / 16 * 16;
#pragma omp parallel for num_threads(threads)
  for (int t = 0; t < threads; ++t) {
    const int64_t first = t * block;
    const int64_t cols = std::min<int64_t>(block, n - first);
    if (cols <= 0) continue;
    Strided(out + first, m, cols, Eigen::OuterStride<>(n)).noalias() =
        ConstMatrixMap(a, m, k) * ConstStrided(b + first, k, cols, Eigen::OuterStride<>(n));
  }
}

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
  const int threads = a.threads;
  return [=] {
    MultiplyRowMajor(x, w, y, m, k, units, threads);
    MatrixMap out(y, m, units);
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
