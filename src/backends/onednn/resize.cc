// resize as oneDNN's resampling primitive where it computes what the IR asks (bilinear with
// half-pixel coordinates; nearest where oneDNN's rounding picks the same input rows and columns,
// as for every integer upscale), else as a gather on the host over the shared taps
// (resize_taps.h), in f32 between reorders.
#include <cmath>

#include "src/backends/common/resize_taps.h"
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;

// Whether oneDNN's resampling reads the same taps along one axis: its source position is
// (o + 0.5) * in / out - 0.5, clamped to the input; nearest rounds it half away from zero.
bool OnednnAgrees(int64_t in, int64_t out, const ResolvedLayer& l) {
  const bool linear = l.attrs.Str("mode") == "linear";
  const std::string coordinates = l.attrs.Str("coordinates");
  if (linear) {
    return coordinates == "half_pixel" || (coordinates == "pytorch_half_pixel" && out > 1);
  }
  const auto taps = ResizeTaps(in, out, coordinates, false, l.attrs.Str("nearest_rounding"));
  for (int64_t o = 0; o < out; ++o) {
    const float x =
        (static_cast<float>(o) + 0.5f) * static_cast<float>(in) / static_cast<float>(out) - 0.5f;
    const int64_t i = std::min<int64_t>(std::max<int64_t>(std::lround(x), 0), in - 1);
    if (i != taps[o].lo) return false;
  }
  return true;
}

void BuildResize(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const bool linear = l.attrs.Str("mode") == "linear";
  if (OnednnAgrees(in[2], out[2], l) && OnednnAgrees(in[3], out[3], l)) {
    const memory src = b.Input(l.inputs[0]);  // any layout
    const memory::desc dst_any(Dims(out), src.get_desc().data_type(), memory::format_tag::any);
    dnnl::resampling_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        linear ? dnnl::algorithm::resampling_linear : dnnl::algorithm::resampling_nearest,
        src.get_desc(), dst_any);
    dnnl::resampling_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
    const memory dst = b.NewOutput(pd.dst_desc());
    b.AddPrimitive(pd, dnnl::resampling_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    return;
  }
  const std::string coordinates = l.attrs.Str("coordinates");
  const std::string rounding = l.attrs.Str("nearest_rounding");
  const std::vector<ResizeTap> ty = ResizeTaps(in[2], out[2], coordinates, linear, rounding);
  const std::vector<ResizeTap> tx = ResizeTaps(in[3], out[3], coordinates, linear, rounding);
  const memory src = b.Input(l.inputs[0], PlainDesc(in, dt::f32));
  const memory dst = b.HostOutputF32(out);
  const int64_t planes = in[0] * in[1], h = in[2], w = in[3], oh = out[2], ow = out[3];
  b.AddHost([=] {
    const float* x = static_cast<const float*>(src.get_data_handle());
    float* y = static_cast<float*>(dst.get_data_handle());
    for (int64_t p = 0; p < planes; ++p) {
      ResizePlane(x + p * h * w, w, y + p * oh * ow, ty, tx, linear);
    }
  });
  b.ConvertHostOutput(dst, out);
}

}  // namespace

void AddResizeOps(OpTable* table) { (*table)["resize"] = BuildResize; }

}  // namespace ntpb::onednn
