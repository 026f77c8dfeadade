// Inlays the Eigen backend runs on the host like every kernel: the CTC beam-search decoder.
#include "src/backends/common/ctc_beam_search.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

Kernel MakeCtcBeamDecoder(const KernelArgs& a) {
  const ResolvedLayer& l = a.layer;
  const CtcDecoderShape shape =
      CtcDecoderShapeOf(l.input_shapes[0], l.attrs.Str("layout") == "tnc");
  CtcBeamSearch search;
  search.classes = shape.classes;
  const int64_t blank = l.attrs.Int("blank");
  search.blank = blank < 0 ? blank + shape.classes : blank;
  search.beam_width = l.attrs.Int("beam_width");
  search.log_probs = l.attrs.Bool("log_probs");
  const float* in = a.inputs[0];
  float* out = a.output;
  return [=] { CtcDecodeBatch(search, shape, in, out); };
}

}  // namespace

void AddInlayKernels(KernelTable* table) { (*table)["ctc_beam_decoder"] = MakeCtcBeamDecoder; }

}  // namespace ntpb::eigen
