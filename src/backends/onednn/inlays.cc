// Inlays oneDNN has no primitive for, run on the host between reorders in f32 whatever the
// precision (speech_inlays.h): the MFCC front end, the context window, the CTC decoder.
#include "src/backends/common/speech_inlays.h"
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;

// A host step from the layer's one input to its output, both plain f32.
template <typename Kernel>
void HostStep(Builder& b, const Kernel& kernel) {
  const ResolvedLayer& l = b.layer();
  const memory in = b.Input(l.inputs[0], PlainDesc(l.input_shapes[0], dt::f32));
  const memory dst = b.HostOutputF32(l.output_shapes[0]);
  b.AddHost([=] {
    kernel(static_cast<const float*>(in.get_data_handle()),
           static_cast<float*>(dst.get_data_handle()));
  });
  b.ConvertHostOutput(dst, l.output_shapes[0]);
}

void BuildMfcc(Builder& b) { HostStep(b, MfccBatchOf(b.layer())); }

void BuildContextWindow(Builder& b) { HostStep(b, ContextWindowOf(b.layer())); }

void BuildCtcBeamDecoder(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const CtcDecoderShape shape =
      CtcDecoderShapeOf(l.input_shapes[0], l.attrs.Str("layout") == "tnc");
  const CtcBeamSearch search = CtcBeamSearchOf(l, shape.classes);
  HostStep(b, [=](const float* in, float* out) { CtcDecodeBatch(search, shape, in, out); });
}

}  // namespace

void AddInlayOps(OpTable* table) {
  (*table)["mfcc"] = BuildMfcc;
  (*table)["context_window"] = BuildContextWindow;
  (*table)["ctc_beam_decoder"] = BuildCtcBeamDecoder;
}

}  // namespace ntpb::onednn
