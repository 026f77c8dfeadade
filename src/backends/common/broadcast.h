// NumPy broadcasting walked element by element (the Eigen reduction walks its input the same
// way), and the kernels built on it that every backend shares (where, expand): one definition of
// the semantics, as for resize's taps.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ntpbench/shape.h"

namespace ntpb {

// For each axis of `out`, the step in `in` (row-major) per output step: 0 along an axis `in`
// broadcasts (size 1 or missing in front).
inline std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t step = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t axis = out.size() - 1 - i;
    const int64_t d = in[in.size() - 1 - i];
    strides[axis] = d == 1 ? 0 : step;
    step *= d;
  }
  return strides;
}

// Visits every element of `out` in row-major order with the offset of each of K inputs;
// `index` is scratch of out.size() (allocated by the caller, once).
template <size_t K, typename Visit>
void ForEachBroadcast(const Shape& out, const std::array<std::vector<int64_t>, K>& strides,
                      std::vector<int64_t>& index, Visit visit) {
  std::fill(index.begin(), index.end(), 0);
  std::array<int64_t, K> offset{};
  const int64_t n = NumElements(out);
  for (int64_t i = 0; i < n; ++i) {
    visit(i, offset);
    for (size_t d = out.size(); d-- > 0;) {
      for (size_t k = 0; k < K; ++k) offset[k] += strides[k][d];
      if (++index[d] < out[d]) break;
      for (size_t k = 0; k < K; ++k) offset[k] -= strides[k][d] * out[d];
      index[d] = 0;
    }
  }
}

// y = condition != 0 ? a : b, each input broadcast to `out`.
struct WhereKernel {
  Shape out;
  std::array<std::vector<int64_t>, 3> strides;
  WhereKernel(const Shape& condition, const Shape& a, const Shape& b, const Shape& out_shape)
      : out(out_shape),
        strides{BroadcastStrides(condition, out_shape), BroadcastStrides(a, out_shape),
                BroadcastStrides(b, out_shape)} {}
  void operator()(const float* condition, const float* a, const float* b, float* y,
                  std::vector<int64_t>& index) const {
    ForEachBroadcast<3>(out, strides, index, [&](int64_t i, const std::array<int64_t, 3>& o) {
      y[i] = condition[o[0]] != 0.0f ? a[o[1]] : b[o[2]];
    });
  }
};

// y = x broadcast to `out` (ONNX Expand).
struct ExpandKernel {
  Shape out;
  std::array<std::vector<int64_t>, 1> strides;
  ExpandKernel(const Shape& in, const Shape& out_shape)
      : out(out_shape), strides{BroadcastStrides(in, out_shape)} {}
  void operator()(const float* x, float* y, std::vector<int64_t>& index) const {
    ForEachBroadcast<1>(out, strides, index,
                        [&](int64_t i, const std::array<int64_t, 1>& o) { y[i] = x[o[0]]; });
  }
};

}  // namespace ntpb
