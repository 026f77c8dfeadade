// Inlays: copy, layout reorder, and the CTC beam-search decoder that ends a speech pipeline.
// Later inlays (MFCC) are added here the same way.
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferSame(const InferContext& ctx) { return {{ctx.inputs[0]}, {}, {}}; }
int64_t NoFlops(const OpCostInput&) { return 0; }

// ctc_beam_decoder: [T, N, C] (or [N, T, C]) per-frame class probabilities -> [N, T] labels,
// each row the best label sequence, padded with -1.
InferResult InferCtcBeamDecoder(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 3, "inputs",
              "expected per-frame class scores of rank 3, got rank " + std::to_string(in.size()));
  const bool tnc = ctx.attrs.Str("layout") == "tnc";
  const int64_t t = tnc ? in[0] : in[1], n = tnc ? in[1] : in[0], c = in[2];
  ctx.Require(c >= 2, "inputs", "needs a blank and at least one label (C >= 2)");
  const int64_t blank = ctx.attrs.Int("blank");
  ctx.Require(
      blank >= -c && blank < c, "blank",
      "blank index " + std::to_string(blank) + " outside [-C, C) for C = " + std::to_string(c));
  const int64_t beam = ctx.attrs.Int("beam_width");
  ctx.Require(beam >= 1 && beam <= 4096, "beam_width", "beam width must be 1 to 4096");
  return {{{n, t}}, {}, {}};
}

// Per frame, each kept prefix is extended by every class: a log-add and a compare each.
int64_t CtcBeamDecoderFlops(const OpCostInput& c) {
  const Shape& in = c.inputs[0];
  return CheckedProduct({2, in[0], in[1], in[2], c.attrs.Int("beam_width")});
}

}  // namespace

void AddInlayOps(std::vector<OpDef>* ops) {
  OpDef copy;
  copy.name = "copy";
  copy.kind = OpKind::kInlay;
  copy.infer = InferSame;
  copy.flops = NoFlops;
  copy.summary = "copies a tensor (host/device transfer on device backends)";
  ops->push_back(copy);

  OpDef reorder;
  reorder.name = "reorder";
  reorder.kind = OpKind::kInlay;
  reorder.attrs = {EnumAttr("layout", {"plain", "nchw", "nhwc", "ntc", "tnc", "blocked"}, "plain",
                            "memory layout the data is moved into")};
  reorder.infer = InferSame;
  reorder.flops = NoFlops;
  reorder.summary = "layout conversion: same logical values, data moved into another memory layout";
  ops->push_back(reorder);

  OpDef ctc;
  ctc.name = "ctc_beam_decoder";
  ctc.kind = OpKind::kInlay;
  ctc.attrs = {
      OptionalAttr("beam_width", AttrType::kInt, 16, "prefixes kept after each frame"),
      OptionalAttr("blank", AttrType::kInt, -1,
                   "index of the CTC blank among the C classes; negative counts from the end"),
      EnumAttr("layout", {"tnc", "ntc"}, "tnc", "[T, N, C] (time major) or [N, T, C]"),
      OptionalAttr("log_probs", AttrType::kBool, false,
                   "the inputs are log-probabilities (log_softmax), not probabilities")};
  ctc.infer = InferCtcBeamDecoder;
  ctc.flops = CtcBeamDecoderFlops;
  ctc.summary =
      "CTC prefix beam search: per-frame class probabilities [T, N, C] -> the best label "
      "sequence per batch item [N, T], padded with -1 (repeats merged, blanks removed)";
  ops->push_back(ctc);
}

}  // namespace ntpb::ops
