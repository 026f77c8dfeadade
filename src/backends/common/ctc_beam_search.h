// CTC prefix beam search (Hannun et al., "First-Pass Large Vocabulary Continuous Speech
// Recognition using Bi-Directional Recurrent DNNs", 2014): the most probable label sequence of
// each batch item under CTC, where a label sequence's probability is the sum over every frame
// path that collapses to it (repeats merged, then blanks removed). Shared by every backend's
// ctc_beam_decoder inlay: it runs on the host.
#pragma once

#include <cstdint>
#include <vector>

namespace ntpb {

// A hook for a language model: the log-score added when `label` extends `prefix` (a character
// n-gram, a word count). Null: no scoring, the acoustic probabilities alone.
class PrefixScorer {
 public:
  virtual ~PrefixScorer() = default;
  virtual double Extend(const std::vector<int>& prefix, int label) const = 0;
};

struct CtcBeamSearch {
  int64_t classes = 0;     // C, the blank among them
  int64_t blank = 0;       // index of the blank in [0, C)
  int64_t beam_width = 1;  // prefixes kept after each frame
  bool log_probs = false;  // inputs are log-probabilities (else probabilities)
  const PrefixScorer* scorer = nullptr;

  // The best label sequence for one batch item: frames[t * frame_stride + c] is class c's
  // (log-)probability at frame t, for t < frames_count. Ties go to the shorter prefix, then the
  // one found first, so the result does not depend on hash order.
  std::vector<int> Decode(const float* frames, int64_t frames_count, int64_t frame_stride,
                          double* log_probability = nullptr) const;
};

// The ctc_beam_decoder inlay over a batch: `in` is [T, N, C] (`time_major`) or [N, T, C]; `out`
// [N, T] gets each item's labels, then -1. The layer's attributes say the rest.
struct CtcDecoderShape {
  int64_t frames = 0, batch = 0, classes = 0;
  bool time_major = true;
};
CtcDecoderShape CtcDecoderShapeOf(const std::vector<int64_t>& input_shape, bool time_major);
void CtcDecodeBatch(const CtcBeamSearch& search, const CtcDecoderShape& shape, const float* in,
                    float* out);

}  // namespace ntpb
