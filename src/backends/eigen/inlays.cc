// Inlays the Eigen backend runs on the host like every kernel: the MFCC front end, the context
// window and the CTC beam-search decoder (speech_inlays.h).
#include "src/backends/common/speech_inlays.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

Kernel MakeMfcc(const KernelArgs& a) {
  const MfccBatch mfcc = MfccBatchOf(a.layer);
  const float* in = a.inputs[0];
  float* out = a.output;
  return [=] { mfcc(in, out); };
}

Kernel MakeContextWindow(const KernelArgs& a) {
  const ContextWindow window = ContextWindowOf(a.layer);
  const float* in = a.inputs[0];
  float* out = a.output;
  return [=] { window(in, out); };
}

Kernel MakeCtcBeamDecoder(const KernelArgs& a) {
  const ResolvedLayer& l = a.layer;
  const CtcDecoderShape shape =
      CtcDecoderShapeOf(l.input_shapes[0], l.attrs.Str("layout") == "tnc");
  const CtcBeamSearch search = CtcBeamSearchOf(l, shape.classes);
  const float* in = a.inputs[0];
  float* out = a.output;
  return [=] { CtcDecodeBatch(search, shape, in, out); };
}

}  // namespace

void AddInlayKernels(KernelTable* table) {
  (*table)["mfcc"] = MakeMfcc;
  (*table)["context_window"] = MakeContextWindow;
  (*table)["ctc_beam_decoder"] = MakeCtcBeamDecoder;
}

}  // namespace ntpb::eigen
