// A convolution layer's geometry from its resolved shapes and attributes, shared by the
// backends that compute convolutions themselves (Eigen, OpenCL).
#pragma once

#include <cstdint>

#include "ntpbench/resolve.h"

namespace ntpb {

struct ConvGeometry {
  int64_t n, c, h, w, f, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, groups;
};

inline ConvGeometry ConvGeometryOf(const ResolvedLayer& l) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation"),
             p = l.attrs.Ints("padding");
  return {in[0], in[1], in[2], in[3], out[1], out[2], out[3], k[0],
          k[1],  s[0],  s[1],  d[0],  d[1],   p[0],   p[1],   l.attrs.Int("groups")};
}

}  // namespace ntpb
