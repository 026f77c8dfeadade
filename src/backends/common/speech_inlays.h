// The host side of the speech inlays, shared by every backend: the MFCC front end configured from
// a layer's attributes, DeepSpeech's context window, and the CTC decoder's settings.
#pragma once

#include <algorithm>
#include <memory>

#include "ntpbench/resolve.h"
#include "src/backends/common/ctc_beam_search.h"
#include "src/backends/common/mfcc.h"

namespace ntpb {

inline MfccConfig MfccConfigOf(const ResolvedLayer& l) {
  MfccConfig c;
  c.sample_rate = l.attrs.Int("sample_rate");
  c.window = c.sample_rate * l.attrs.Int("window_ms") / 1000;
  c.step = c.sample_rate * l.attrs.Int("step_ms") / 1000;
  c.mels = l.attrs.Int("mels");
  c.cepstra = l.attrs.Int("cepstra");
  c.low_hz = l.attrs.Float("low_hz");
  c.high_hz = l.attrs.Float("high_hz");
  c.normalize = l.attrs.Bool("normalize");
  return c;
}

// The mfcc layer over its batch: in [N, samples], out [N, T, cepstra].
struct MfccBatch {
  std::shared_ptr<const MfccFrontEnd> front_end;
  int64_t batch = 0, samples = 0, frame_values = 0;
  void operator()(const float* in, float* out) const {
    for (int64_t i = 0; i < batch; ++i) {
      front_end->Compute(in + i * samples, samples, out + i * frame_values);
    }
  }
};

inline MfccBatch MfccBatchOf(const ResolvedLayer& l) {
  return {std::make_shared<const MfccFrontEnd>(MfccConfigOf(l)), l.input_shapes[0][0],
          l.input_shapes[0][1], l.output_shapes[0][1] * l.output_shapes[0][2]};
}

// [N, T, F] -> [N, T, (2c + 1) F], zeros past the ends.
struct ContextWindow {
  int64_t batch = 0, steps = 0, features = 0, context = 0;
  void operator()(const float* in, float* out) const {
    const int64_t width = (2 * context + 1) * features;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t t = 0; t < steps; ++t) {
        float* row = out + (n * steps + t) * width;
        for (int64_t d = -context; d <= context; ++d) {
          float* slot = row + (d + context) * features;
          const int64_t source = t + d;
          if (source < 0 || source >= steps) {
            std::fill(slot, slot + features, 0.0f);
          } else {
            const float* from = in + (n * steps + source) * features;
            std::copy(from, from + features, slot);
          }
        }
      }
    }
  }
};

inline ContextWindow ContextWindowOf(const ResolvedLayer& l) {
  const Shape& s = l.input_shapes[0];
  return {s[0], s[1], s[2], l.attrs.Int("context")};
}

inline CtcBeamSearch CtcBeamSearchOf(const ResolvedLayer& l, int64_t classes) {
  CtcBeamSearch search;
  search.classes = classes;
  const int64_t blank = l.attrs.Int("blank");
  search.blank = blank < 0 ? blank + classes : blank;
  search.beam_width = l.attrs.Int("beam_width");
  search.log_probs = l.attrs.Bool("log_probs");
  return search;
}

}  // namespace ntpb
