// reduce_mean, reduce_sum, reduce_max over any set of axes: one pass over the input, each element
// folded into the output element it reduces to (the output's strides are 0 on reduced axes).
#include <algorithm>
#include <array>
#include <limits>
#include <memory>

#include "src/backends/common/broadcast.h"
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
  const int64_t n_out = acc;
  const Shape dims = in;
  const std::array<std::vector<int64_t>, 1> to_output = {out_stride};
  const float* x = a.inputs[0];
  float* y = a.output;
  auto index = std::make_shared<std::vector<int64_t>>(rank, 0);  // allocated once, here
  return [=] {
    std::fill(y, y + n_out,
              kHow == Reduction::kMax ? -std::numeric_limits<float>::infinity() : 0.0f);
    // The input walked in order; each element lands on the output element it reduces to.
    ForEachBroadcast<1>(dims, to_output, *index, [&](int64_t i, const std::array<int64_t, 1>& o) {
      y[o[0]] = kHow == Reduction::kMax ? std::max(y[o[0]], x[i]) : y[o[0]] + x[i];
    });
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
