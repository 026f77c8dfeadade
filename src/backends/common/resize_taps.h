// Where each output row (or column) of a resize reads the input: ONNX Resize's
// coordinate_transformation_mode and nearest_mode for one axis, shared by every backend's kernel
// so that they agree on the semantics (and the oneDNN backend can tell when its resampling
// primitive computes the same thing).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ntpb {

struct ResizeTap {
  int64_t lo, hi;
  float weight_hi;  // linear: (1 - w) * x[lo] + w * x[hi]; nearest: x[lo]
};

inline std::vector<ResizeTap> ResizeTaps(int64_t in, int64_t out, const std::string& coordinates,
                                         bool linear, const std::string& rounding) {
  const double scale = static_cast<double>(out) / static_cast<double>(in);
  std::vector<ResizeTap> taps(out);
  for (int64_t o = 0; o < out; ++o) {
    double x = 0;
    if (coordinates == "half_pixel") x = (o + 0.5) / scale - 0.5;
    if (coordinates == "pytorch_half_pixel") x = out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
    if (coordinates == "align_corners")
      x = out > 1 ? o * static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
    if (coordinates == "asymmetric") x = o / scale;
    if (linear) {
      x = std::clamp(x, 0.0, static_cast<double>(in - 1));
      const int64_t lo = static_cast<int64_t>(std::floor(x));
      taps[o] = {lo, std::min(lo + 1, in - 1), static_cast<float>(x - lo)};
      continue;
    }
    double r = 0;
    if (rounding == "floor") r = std::floor(x);
    if (rounding == "ceil") r = std::ceil(x);
    if (rounding == "round_prefer_floor")
      r = x - std::floor(x) == 0.5 ? std::floor(x) : std::round(x);
    if (rounding == "round_prefer_ceil")
      r = x - std::floor(x) == 0.5 ? std::ceil(x) : std::round(x);
    const int64_t i = std::clamp<int64_t>(static_cast<int64_t>(r), 0, in - 1);
    taps[o] = {i, i, 0.0f};
  }
  return taps;
}

// One plane [h, w] -> [ty.size(), tx.size()] through the taps of each axis.
inline void ResizePlane(const float* image, int64_t w, float* dst, const std::vector<ResizeTap>& ty,
                        const std::vector<ResizeTap>& tx, bool linear) {
  const int64_t ow = static_cast<int64_t>(tx.size());
  for (size_t oy = 0; oy < ty.size(); ++oy, dst += ow) {
    const float* r0 = image + ty[oy].lo * w;
    const float* r1 = image + ty[oy].hi * w;
    for (int64_t ox = 0; ox < ow; ++ox) {
      const ResizeTap& t = tx[ox];
      if (!linear) {
        dst[ox] = r0[t.lo];
        continue;
      }
      const float top = r0[t.lo] + t.weight_hi * (r0[t.hi] - r0[t.lo]);
      const float bottom = r1[t.lo] + t.weight_hi * (r1[t.hi] - r1[t.lo]);
      dst[ox] = top + ty[oy].weight_hi * (bottom - top);
    }
  }
}

}  // namespace ntpb
