#include "src/baseline/suite_drift.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "src/common/statistics.h"

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
  // Each benchmark's reference is the median of all the others: one sort, then each median
  // read off the sorted list with that benchmark's own entry skipped (n log n, not n^2 log n:
  // ten thousand benchmarks compare in milliseconds).
  std::vector<std::pair<double, DriftReference*>> sorted;
  for (auto& [name, d] : out) sorted.push_back({std::log(d.ratio), &d});
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t others = sorted.empty() ? 0 : sorted.size() - 1;
  if (static_cast<int>(others) < min_references || others == 0) return out;
  for (size_t k = 0; k < sorted.size(); ++k) {
    auto at = [&](size_t i) { return sorted[i < k ? i : i + 1].first; };
    const double median = others % 2 ? at(others / 2) : 0.5 * (at(others / 2 - 1) + at(others / 2));
    sorted[k].second->references = static_cast<int>(others);
    sorted[k].second->reference = std::exp(median);
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
