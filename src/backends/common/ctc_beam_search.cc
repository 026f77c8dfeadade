#include "src/backends/common/ctc_beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace ntpb {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

// A prefix's probability, split by whether its paths end in a blank or in its last label: a
// repeated label only extends the prefix after a blank.
struct Split {
  double blank = kNegInf;
  double label = kNegInf;
  double Total() const { return LogAdd(blank, label); }
};

using Prefix = std::vector<int>;

bool Better(const std::pair<const Prefix, Split>* x, const std::pair<const Prefix, Split>* y) {
  const double a = x->second.Total(), b = y->second.Total();
  if (a != b) return a > b;
  if (x->first.size() != y->first.size()) return x->first.size() < y->first.size();
  return x->first < y->first;
}

}  // namespace

std::vector<int> CtcBeamSearch::Decode(const float* frames, int64_t frames_count,
                                       int64_t frame_stride, double* log_probability) const {
  std::map<Prefix, Split> beams;
  beams[{}].blank = 0.0;  // log 1: the empty prefix, before any frame
  for (int64_t t = 0; t < frames_count; ++t) {
    const float* p = frames + t * frame_stride;
    auto log_p = [&](int64_t c) {
      const double v = p[c];
      return log_probs ? v : (v > 0 ? std::log(v) : kNegInf);
    };
    std::map<Prefix, Split> next;
    for (const auto& [prefix, split] : beams) {
      const double total = split.Total();
      for (int64_t c = 0; c < classes; ++c) {
        const double lp = log_p(c);
        if (lp == kNegInf) continue;
        if (c == blank) {
          next[prefix].blank = LogAdd(next[prefix].blank, total + lp);
          continue;
        }
        const int label = static_cast<int>(c);
        Prefix longer = prefix;
        longer.push_back(label);
        const double bonus = scorer ? scorer->Extend(prefix, label) : 0.0;
        Split& extended = next[longer];
        if (!prefix.empty() && prefix.back() == label) {
          // "aa" needs a blank between the two; without one the repeat stays "a".
          extended.label = LogAdd(extended.label, split.blank + lp + bonus);
          next[prefix].label = LogAdd(next[prefix].label, split.label + lp);
        } else {
          extended.label = LogAdd(extended.label, total + lp + bonus);
        }
      }
    }
    std::vector<const std::pair<const Prefix, Split>*> ranked;
    for (const auto& entry : next) ranked.push_back(&entry);
    const size_t keep = std::min<size_t>(ranked.size(), static_cast<size_t>(beam_width));
    std::partial_sort(ranked.begin(), ranked.begin() + keep, ranked.end(), Better);
    std::map<Prefix, Split> kept;
    for (size_t i = 0; i < keep; ++i) kept.insert(*ranked[i]);
    beams = std::move(kept);
  }
  const std::pair<const Prefix, Split>* best = nullptr;
  for (const auto& entry : beams) {
    if (!best || Better(&entry, best)) best = &entry;
  }
  if (log_probability) *log_probability = best ? best->second.Total() : kNegInf;
  return best ? best->first : Prefix{};
}

CtcDecoderShape CtcDecoderShapeOf(const std::vector<int64_t>& in, bool time_major) {
  return {time_major ? in[0] : in[1], time_major ? in[1] : in[0], in[2], time_major};
}

void CtcDecodeBatch(const CtcBeamSearch& search, const CtcDecoderShape& s, const float* in,
                    float* out) {
  // Item n's frame t: [T, N, C] strides frames by N * C, [N, T, C] by C.
  const int64_t stride = s.time_major ? s.batch * s.classes : s.classes;
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* first = in + n * (s.time_major ? s.classes : s.frames * s.classes);
    const std::vector<int> labels = search.Decode(first, s.frames, stride);
    float* row = out + n * s.frames;
    for (int64_t t = 0; t < s.frames; ++t) {
      row[t] = t < static_cast<int64_t>(labels.size()) ? static_cast<float>(labels[t]) : -1.0f;
    }
  }
}

}  // namespace ntpb
