// Inlays: copy, layout reorder, and the two ends of a speech pipeline: the MFCC front end (with
// DeepSpeech's context window, an op of its own) and the CTC beam-search decoder.
#include <cmath>

#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferSame(const InferContext& ctx) { return {{ctx.inputs[0]}, {}, {}}; }
int64_t NoFlops(const OpCostInput&) { return 0; }

// mfcc: [N, samples] float PCM -> [N, T, cepstra], T frames of `window_ms`
// every `step_ms` (torchaudio.transforms.MFCC with n_fft = win_length, center=False).
struct MfccSizes {
  int64_t window = 0, step = 0, bins = 0;
};
MfccSizes MfccSizesOf(const Attrs& a) {
  const int64_t rate = a.Int("sample_rate");
  return {rate * a.Int("window_ms") / 1000, rate * a.Int("step_ms") / 1000,
          rate * a.Int("window_ms") / 1000 / 2 + 1};
}

InferResult InferMfcc(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 2, "inputs",
              "expected audio [N, samples], got rank " + std::to_string(in.size()));
  const int64_t rate = ctx.attrs.Int("sample_rate");
  ctx.Require(rate >= 1000 && rate <= 384000, "sample_rate", "a sample rate in Hz, 1000 to 384000");
  for (const char* ms : {"window_ms", "step_ms"}) {
    const int64_t v = ctx.attrs.Int(ms);
    ctx.Require(v >= 1 && v <= 1000 && rate * v % 1000 == 0, ms,
                std::string(ms) + " must be 1 to 1000 and a whole number of samples");
  }
  const MfccSizes s = MfccSizesOf(ctx.attrs);
  ctx.Require(s.window >= 4, "window_ms", "a window of at least 4 samples");
  const int64_t mels = ctx.attrs.Int("mels"), cepstra = ctx.attrs.Int("cepstra");
  ctx.Require(mels >= 1 && mels < s.bins, "mels",
              "between 1 and the " + std::to_string(s.bins - 1) + " frequency bins");
  ctx.Require(cepstra >= 1 && cepstra <= mels, "cepstra", "between 1 and mels");
  const double high = ctx.attrs.Float("high_hz"), low = ctx.attrs.Float("low_hz");
  ctx.Require(low >= 0 && high > low && high <= rate / 2.0, "high_hz",
              "0 <= low_hz < high_hz <= sample_rate / 2");
  ctx.Require(in[1] >= s.window, "inputs",
              "the audio (" + std::to_string(in[1]) + " samples) is shorter than one window (" +
                  std::to_string(s.window) + ")");
  return {{{in[0], 1 + (in[1] - s.window) / s.step, cepstra}}, {}, {}};
}

// Per frame: the window (1 per sample), a real FFT (2.5 W log2 W), the power spectrum (3 per
// bin), the filterbank (2 per mel and bin), the log (1 per mel), the DCT (2 per cepstrum and mel);
// normalising, 5 per coefficient (mean, deviation, scale).
int64_t MfccFlops(const OpCostInput& c) {
  const MfccSizes s = MfccSizesOf(c.attrs);
  const int64_t mels = c.attrs.Int("mels"), cepstra = c.attrs.Int("cepstra");
  const auto fft = static_cast<int64_t>(2.5 * s.window * std::log2(static_cast<double>(s.window)));
  const int64_t frame = s.window + fft + 3 * s.bins + 2 * mels * s.bins + mels +
                        2 * cepstra * mels + (c.attrs.Bool("normalize") ? 5 * cepstra : 0);
  return CheckedProduct({c.outputs[0][0], c.outputs[0][1], frame});
}

// context_window: [N, T, F] -> [N, T, (2 context + 1) F], each step with its neighbours (zeros
// past either end), as DeepSpeech feeds its first layer.
InferResult InferContextWindow(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 3, "inputs",
              "expected [N, T, F], got rank " + std::to_string(in.size()));
  const int64_t context = ctx.attrs.Int("context");
  ctx.Require(context >= 0 && context <= 1000, "context", "0 to 1000 steps each side");
  return {{{in[0], in[1], CheckedProduct({2 * context + 1, in[2]})}}, {}, {}};
}

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

  OpDef mfcc;
  mfcc.name = "mfcc";
  mfcc.kind = OpKind::kInlay;
  mfcc.attrs = {OptionalAttr("sample_rate", AttrType::kInt, 16000, "Hz"),
                OptionalAttr("window_ms", AttrType::kInt, 25, "frame length, also the FFT size"),
                OptionalAttr("step_ms", AttrType::kInt, 10, "frame step"),
                OptionalAttr("mels", AttrType::kInt, 26, "mel filterbank bands"),
                OptionalAttr("cepstra", AttrType::kInt, 26, "coefficients kept (DCT-II outputs)"),
                OptionalAttr("low_hz", AttrType::kFloat, 0.0, "lowest filterbank frequency"),
                OptionalAttr("high_hz", AttrType::kFloat, 8000.0,
                             "highest filterbank frequency (at most sample_rate / 2)"),
                OptionalAttr("normalize", AttrType::kBool, false,
                             "each coefficient to zero mean, unit variance over the utterance")};
  mfcc.infer = InferMfcc;
  mfcc.flops = MfccFlops;
  mfcc.summary =
      "MFCC front end: audio [N, samples] -> [N, T, cepstra] (Hamming window, power spectrum, "
      "HTK mel filterbank, log, orthonormal DCT-II; torchaudio.transforms.MFCC's numbers)";
  ops->push_back(mfcc);

  OpDef context;
  context.name = "context_window";
  context.kind = OpKind::kInlay;
  context.attrs = {OptionalAttr("context", AttrType::kInt, 9, "steps each side (DeepSpeech: 9)")};
  context.infer = InferContextWindow;
  context.flops = NoFlops;
  context.summary =
      "[N, T, F] -> [N, T, (2 context + 1) F]: each step with its neighbours, zeros past the ends";
  ops->push_back(context);

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
  ctc.discrete_output = true;
  ctc.summary =
      "CTC prefix beam search: per-frame class probabilities [T, N, C] -> the best label "
      "sequence per batch item [N, T], padded with -1 (repeats merged, blanks removed)";
  ops->push_back(ctc);
}

}  // namespace ntpb::ops
