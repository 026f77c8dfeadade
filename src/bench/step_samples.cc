#include "src/bench/step_samples.h"

#include <algorithm>

#include "src/common/statistics.h"

namespace ntpb::bench {

StepSamples::StepSamples(int64_t iterations, std::size_t steps)
    : steps_(steps),
      rows_(std::max<int64_t>(
          1, std::min({iterations, kMaxRows,
                       static_cast<int64_t>(kMaxCells / std::max<std::size_t>(steps, 1))}))),
      data_(static_cast<std::size_t>(rows_) * steps, 0) {}

SampleSummary StepSamples::Summary(const std::vector<std::size_t>& steps) const {
  if (used_ <= 0 || steps.empty()) return {};
  std::vector<double> sums(static_cast<std::size_t>(used_), 0.0);
  for (std::size_t r = 0; r < sums.size(); ++r) {
    const int64_t* row = data_.data() + r * steps_;
    int64_t sum = 0;
    for (std::size_t s : steps) sum += row[s];
    sums[r] = static_cast<double>(sum);
  }
  const auto [lo, hi] = std::minmax_element(sums.begin(), sums.end());
  SampleSummary out;
  out.min_ns = *lo;
  out.max_ns = *hi;
  out.p50_ns = Percentile(std::move(sums), 50);  // nearest rank, as the network's p50
  return out;
}

}  // namespace ntpb::bench
