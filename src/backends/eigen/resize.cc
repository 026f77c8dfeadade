// resize: each output row and column is mapped to the input once, when the kernel is built
// (resize_taps.h); running it only gathers and blends.
#include "src/backends/common/resize_taps.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

Kernel MakeResize(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const bool linear = a.layer.attrs.Str("mode") == "linear";
  const std::string coordinates = a.layer.attrs.Str("coordinates");
  const std::string rounding = a.layer.attrs.Str("nearest_rounding");
  const std::vector<ResizeTap> ty = ResizeTaps(in[2], out[2], coordinates, linear, rounding);
  const std::vector<ResizeTap> tx = ResizeTaps(in[3], out[3], coordinates, linear, rounding);
  const int64_t planes = in[0] * in[1], h = in[2], w = in[3], oh = out[2], ow = out[3];
  const float* x = a.inputs[0];
  float* y = a.output;
  const int threads = a.threads;
  return [=] {
#pragma omp parallel for num_threads(threads)
    for (int64_t p = 0; p < planes; ++p) {
      ResizePlane(x + p * h * w, w, y + p * oh * ow, ty, tx, linear);
    }
  };
}

}  // namespace

void AddResizeKernels(KernelTable* table) { (*table)["resize"] = MakeResize; }

}  // namespace ntpb::eigen
