#include "src/bench/accuracy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ntpb {

AccuracyDelta CompareOutputs(const std::vector<float>& actual,
                             const std::vector<float>& reference) {
  if (actual.size() != reference.size()) {
    throw std::invalid_argument("CompareOutputs: " + std::to_string(actual.size()) + " vs " +
                                std::to_string(reference.size()) + " values");
  }
  AccuracyDelta d;
  const double inf = std::numeric_limits<double>::infinity();
  double dot = 0, aa = 0, rr = 0, diff = 0, scale = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], r = reference[i];
    if (std::isnan(a) || std::isnan(r)) return {inf, 0, inf};
    d.max_rel_err = std::max(d.max_rel_err, std::abs(a - r) / std::max(1.0, std::abs(r)));
    diff = std::max(diff, std::abs(a - r));
    scale = std::max(scale, std::abs(r));
    dot += a * r;
    aa += a * a;
    rr += r * r;
  }
  d.norm_rel_err = diff == 0 ? 0 : diff / std::max(scale, 1e-30);
  if (aa > 0 && rr > 0) {
    d.cosine = dot / std::sqrt(aa * rr);
  } else {
    d.cosine = aa == rr ? 1.0 : 0.0;  // both all zeros: identical
  }
  return d;
}

}  // namespace ntpb
