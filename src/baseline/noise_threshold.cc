#include "src/baseline/noise_threshold.h"

#include <algorithm>
#include <cmath>

#include "src/baseline/suite_drift.h"

namespace ntpb {

std::map<std::string, NoiseThreshold> DeriveNoiseThresholds(const std::vector<RunResults>& sessions,
                                                            double default_threshold, double factor,
                                                            int min_references) {
  std::map<std::string, NoiseThreshold> out;
  if (sessions.size() < 2) return out;
  for (const auto& [name, r] : sessions[0].benchmarks) {
    if (!IsCalibrationBenchmark(name) && r.skipped.empty()) out[name] = {};
  }
  for (size_t s = 1; s < sessions.size(); ++s) {
    const auto drift =
        EstimateDrift(sessions[0].benchmarks, sessions[s].benchmarks, min_references);
    for (auto it = out.begin(); it != out.end();) {
      auto d = drift.find(it->first);
      if (d == drift.end()) {  // not in every session: no estimate
        it = out.erase(it);
        continue;
      }
      const double change = std::abs(d->second.ratio / d->second.reference - 1);
      it->second.noise = std::max(it->second.noise, change);
      ++it;
    }
  }
  for (auto& [name, t] : out) {
    const double wanted = std::ceil(100 * factor * t.noise) / 100;
    t.threshold = std::min(1.0, std::max(default_threshold, wanted));
  }
  return out;
}

}  // namespace ntpb
