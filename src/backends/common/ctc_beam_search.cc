#include "src/backends/common/ctc_beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

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

// Prefixes as nodes of a trie (a parent and a last label): extending one is a hash lookup, not
// a copy, and a prefix's identity is its node.
struct Trie {
  struct Node {
    int parent;
    int label;
    int depth;
  };
  std::vector<Node> nodes{{-1, -1, 0}};  // 0: the empty prefix
  std::unordered_map<uint64_t, int> children;

  int Child(int parent, int label) {
    const uint64_t key = (static_cast<uint64_t>(parent) << 32) | static_cast<uint32_t>(label);
    const auto [it, fresh] = children.emplace(key, static_cast<int>(nodes.size()));
    if (fresh) nodes.push_back({parent, label, nodes[parent].depth + 1});
    return it->second;
  }
  std::vector<int> Labels(int node) const {
    std::vector<int> labels(nodes[node].depth);
    for (int n = node, i = nodes[node].depth; n > 0; n = nodes[n].parent)
      labels[--i] = nodes[n].label;
    return labels;
  }
};

using Beam = std::pair<int, Split>;  // a trie node and its probability

}  // namespace

std::vector<int> CtcBeamSearch::Decode(const float* frames, int64_t frames_count,
                                       int64_t frame_stride, double* log_probability) const {
  Trie trie;
  std::vector<Beam> beams = {{0, Split{0.0, kNegInf}}};  // log 1: nothing heard yet
  std::unordered_map<int, Split> next;
  std::vector<Beam> ranked;
  // Higher probability first; ties to the shorter prefix, then the one found first.
  auto better = [&](const Beam& x, const Beam& y) {
    const double a = x.second.Total(), b = y.second.Total();
    if (a != b) return a > b;
    const int da = trie.nodes[x.first].depth, db = trie.nodes[y.first].depth;
    return da != db ? da < db : x.first < y.first;
  };
  std::vector<double> log_p(classes);  // the frame's, once for every prefix
  for (int64_t t = 0; t < frames_count; ++t) {
    const float* p = frames + t * frame_stride;
    for (int64_t c = 0; c < classes; ++c) {
      log_p[c] = log_probs ? p[c] : (p[c] > 0 ? std::log(static_cast<double>(p[c])) : kNegInf);
    }
    next.clear();
    for (const auto& [node, split] : beams) {
      const double total = split.Total();
      const int last = trie.nodes[node].label;
      for (int64_t c = 0; c < classes; ++c) {
        const double lp = log_p[c];
        if (lp == kNegInf) continue;
        if (c == blank) {
          Split& same = next[node];
          same.blank = LogAdd(same.blank, total + lp);
          continue;
        }
        const int label = static_cast<int>(c);
        const int longer = trie.Child(node, label);
        const double bonus = scorer ? scorer->Extend(trie.Labels(node), label) : 0.0;
        if (label == last) {
          // "aa" needs a blank between the two; without one the repeat stays "a".
          Split& extended = next[longer];
          extended.label = LogAdd(extended.label, split.blank + lp + bonus);
          Split& same = next[node];
          same.label = LogAdd(same.label, split.label + lp);
        } else {
          Split& extended = next[longer];
          extended.label = LogAdd(extended.label, total + lp + bonus);
        }
      }
    }
    ranked.assign(next.begin(), next.end());
    const size_t keep = std::min<size_t>(ranked.size(), static_cast<size_t>(beam_width));
    std::partial_sort(ranked.begin(), ranked.begin() + keep, ranked.end(), better);
    beams.assign(ranked.begin(), ranked.begin() + keep);
  }
  const Beam* best = nullptr;
  for (const Beam& b : beams) {
    if (!best || better(b, *best)) best = &b;
  }
  if (log_probability) *log_probability = best ? best->second.Total() : kNegInf;
  return best ? trie.Labels(best->first) : std::vector<int>{};
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
