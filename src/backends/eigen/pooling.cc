#include <algorithm>
#include <limits>

#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

template <bool kMax>
Kernel MakeWindowPool(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto k = a.layer.attrs.Ints("kernel"), s = a.layer.attrs.Ints("stride"),
             p = a.layer.attrs.Ints("padding");
  const bool include_pad = !kMax && a.layer.attrs.Bool("count_include_pad");
  const int64_t planes = in[0] * in[1], h = in[2], w = in[3], oh = out[2], ow = out[3];
  const float* x = a.inputs[0];
  float* y = a.output;
  const int threads = a.threads;
  return [=] {
#pragma omp parallel for num_threads(threads)
    for (int64_t pl = 0; pl < planes; ++pl) {
      const float* image = x + pl * h * w;
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t y0 = oy * s[0] - p[0], x0 = ox * s[1] - p[1];
          const int64_t ya = std::max<int64_t>(y0, 0), yb = std::min<int64_t>(y0 + k[0], h);
          const int64_t xa = std::max<int64_t>(x0, 0), xb = std::min<int64_t>(x0 + k[1], w);
          float acc = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
          for (int64_t iy = ya; iy < yb; ++iy) {
            for (int64_t ix = xa; ix < xb; ++ix) {
              acc = kMax ? std::max(acc, image[iy * w + ix]) : acc + image[iy * w + ix];
            }
          }
          if (!kMax) acc /= static_cast<float>(include_pad ? k[0] * k[1] : (yb - ya) * (xb - xa));
          y[(pl * oh + oy) * ow + ox] = acc;
        }
      }
    }
  };
}

Kernel MakeGlobalAvgPool(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t planes = in[0] * in[1], area = in[2] * in[3];
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] {
    Eigen::Map<Eigen::VectorXf>(y, planes) = ConstMatrixMap(x, planes, area).rowwise().mean();
  };
}

}  // namespace

void AddPoolingKernels(KernelTable* table) {
  (*table)["max_pool"] = MakeWindowPool<true>;
  (*table)["avg_pool"] = MakeWindowPool<false>;
  (*table)["global_avg_pool"] = MakeGlobalAvgPool;
}

}  // namespace ntpb::eigen
