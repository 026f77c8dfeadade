// Inlays oneDNN has no primitive for, run on the host between reorders: the CTC beam-search
// decoder (its scores read in f32 whatever the precision).
#include "src/backends/common/ctc_beam_search.h"
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;

void BuildCtcBeamDecoder(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in_shape = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const memory in = b.Input(l.inputs[0], PlainDesc(in_shape, dt::f32));
  const memory dst = b.HostOutputF32(out);
  const CtcDecoderShape shape = CtcDecoderShapeOf(in_shape, l.attrs.Str("layout") == "tnc");
  CtcBeamSearch search;
  search.classes = shape.classes;
  const int64_t blank = l.attrs.Int("blank");
  search.blank = blank < 0 ? blank + shape.classes : blank;
  search.beam_width = l.attrs.Int("beam_width");
  search.log_probs = l.attrs.Bool("log_probs");
  b.AddHost([=] {
    CtcDecodeBatch(search, shape, static_cast<const float*>(in.get_data_handle()),
                   static_cast<float*>(dst.get_data_handle()));
  });
  b.ConvertHostOutput(dst, out);
}

}  // namespace

void AddInlayOps(OpTable* table) { (*table)["ctc_beam_decoder"] = BuildCtcBeamDecoder; }

}  // namespace ntpb::onednn
