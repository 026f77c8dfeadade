// reduce_mean, reduce_sum, reduce_max over any set of axes: one pass over the input, each element
// folded into the output element it reduces to (the output's strides are 0 on reduced axes).
#include <algorithm>
#include <limits>
#include <memory>

#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

enum class Reduction { kMean, kSum, kMax };

template <Reduction kHow>
Kernel MakeReduce(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const auto axes = a.layer.attrs.Ints("axes");
  const size_t rank = in.size();
  std::vector<bool> reduced(rank, false);
  for (int64_t ax : axes) reduced[ax] = true;
  std::vector<int64_t> out_stride(rank, 0);
  int64_t acc = 1, count = 1;
  for (size_t i = rank; i-- > 0;) {
    if (reduced[i]) {
      count *= in[i];
    } else {
      out_stride[i] = acc;
      acc *= in[i];
    }
  }
  const int64_t n_in = NumElements(in), n_out = acc;
  const Shape dims = in;
  const float* x = a.inputs[0];
  float* y = a.output;
  auto index = std::make_shared<std::vector<int64_t>>(rank, 0);  // allocated once, here
  return [=] {
    std::fill(y, y + n_out,
              kHow == Reduction::kMax ? -std::numeric_limits<float>::infinity() : 0.0f);
    std::vector<int64_t>& idx = *index;
    std::fill(idx.begin(), idx.end(), 0);
    int64_t o = 0;
    for (int64_t i = 0; i < n_in; ++i) {
      y[o] = kHow == Reduction::kMax ? std::max(y[o], x[i]) : y[o] + x[i];
      for (size_t d = rank; d-- > 0;) {
        o += out_stride[d];
        if (++idx[d] < dims[d]) break;
        o -= out_stride[d] * dims[d];
        idx[d] = 0;
      }
    }
    if (kHow == Reduction::kMean) {
      ArrayMap(y, n_out) *= 1.0f / static_cast<float>(count);
    }
  };
}

}  // namespace

void AddReduceKernels(KernelTable* table) {
  (*table)["reduce_mean"] = MakeReduce<Reduction::kMean>;
  (*table)["reduce_sum"] = MakeReduce<Reduction::kSum>;
  (*table)["reduce_max"] = MakeReduce<Reduction::kMax>;
}

}  // namespace ntpb::eigen
