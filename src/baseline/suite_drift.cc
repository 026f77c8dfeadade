#include "src/baseline/suite_drift.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "src/baseline/statistics.h"

namespace ntpb {
namespace {

// Median of ratios, taken on their logarithms so +25% and -20% weigh the same.
double MedianRatio(std::vector<double> log_ratios) {
  return log_ratios.empty() ? 1.0 : std::exp(Median(std::move(log_ratios)));
}

double DriftOf(const std::map<std::string, DriftReference>& drift, bool calibration) {
  std::vector<double> logs;
  for (const auto& [name, d] : drift) {
    if (IsCalibrationBenchmark(name) == calibration) logs.push_back(std::log(d.ratio));
  }
  return MedianRatio(std::move(logs));
}

}  // namespace

std::map<std::string, DriftReference> EstimateDrift(
    const std::map<std::string, BenchmarkResult>& baseline,
    const std::map<std::string, BenchmarkResult>& run, int min_references) {
  std::map<std::string, DriftReference> out;
  for (const auto& [name, base] : baseline) {
    auto it = run.find(name);
    if (it == run.end() || base.real_time_ms.empty() || it->second.real_time_ms.empty() ||
        !base.skipped.empty() || !it->second.skipped.empty()) {
      continue;
    }
    const double b = Median(base.real_time_ms), n = Median(it->second.real_time_ms);
    if (b > 0 && n > 0) out[name].ratio = n / b;
  }
  for (auto& [name, d] : out) {
    std::vector<double> others;
    for (const auto& [other, o] : out) {
      if (other != name) others.push_back(std::log(o.ratio));
    }
    if (static_cast<int>(others.size()) < min_references) continue;
    d.references = static_cast<int>(others.size());
    d.reference = MedianRatio(std::move(others));
  }
  return out;
}

double SuiteDrift(const std::map<std::string, DriftReference>& drift) {
  return DriftOf(drift, false);
}

double CalibrationDrift(const std::map<std::string, DriftReference>& drift) {
  return DriftOf(drift, true);
}

}  // namespace ntpb
