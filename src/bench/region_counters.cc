#include "src/bench/region_counters.h"

#include <algorithm>
#include <map>

#include "src/bench/step_timer.h"

namespace ntpb::bench {

RegionCounters::RegionCounters(std::unique_ptr<CounterSet> counters, std::vector<Region> regions,
                               std::vector<StepCounts> step_counts, std::size_t steps)
    : counters_(std::move(counters)),
      regions_(std::move(regions)),
      step_counts_(std::move(step_counts)),
      sample_at_(steps + 1, 0),
      samples_((steps + 1) * counters_->metrics().size(), 0.0),
      sums_(regions_.size() * counters_->metrics().size(), 0.0) {
  for (const Region& r : regions_) {
    sample_at_[r.first_step] = 1;
    sample_at_[r.end_step] = 1;
  }
}

void RegionCounters::Start() {
  std::fill(sums_.begin(), sums_.end(), 0.0);
  counters_->Start();
}

int64_t RegionCounters::RunCounted(Executable& executable) {
  const std::size_t m = counters_->metrics().size();
  const std::size_t n = sample_at_.size() - 1;
  const bool steps = counters_->wants_steps();
  const int64_t start = NowNanoseconds();
  if (sample_at_[0]) counters_->Read(&samples_[0]);
  for (std::size_t i = 0; i < n; ++i) {
    executable.RunStep(i);
    executable.Wait();
    if (steps) counters_->OnStep(step_counts_[i]);
    if (sample_at_[i + 1]) counters_->Read(&samples_[(i + 1) * m]);
  }
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    const double* begin = &samples_[regions_[r].first_step * m];
    const double* end = &samples_[regions_[r].end_step * m];
    double* sum = &sums_[r * m];
    for (std::size_t k = 0; k < m; ++k) sum[k] += end[k] - begin[k];
  }
  return NowNanoseconds() - start;
}

namespace {

// Ratios reported when both inputs were measured.
struct Derived {
  const char* name;
  std::vector<const char*> numerator;
  const char* denominator;
};

const std::vector<Derived>& DerivedMetrics() {
  static const std::vector<Derived> d = {
      {"ipc", {"PAPI_TOT_INS"}, "PAPI_TOT_CYC"},
      {"l1_miss_rate", {"PAPI_L1_DCM"}, "PAPI_L1_DCA"},
      {"l2_miss_rate", {"PAPI_L2_TCM"}, "PAPI_L2_TCA"},
      {"l3_miss_rate", {"PAPI_L3_TCM"}, "PAPI_L3_TCA"},
      {"bytes_per_flop", {"sde_bytes_read", "sde_bytes_written"}, "sde_flops"},
  };
  return d;
}

}  // namespace

void RegionCounters::Report(double iterations, RunMeasurement* out) const {
  const auto& names = counters_->metrics();
  const std::size_t m = names.size();
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    std::map<std::string, double> values;
    for (std::size_t k = 0; k < m; ++k) values[names[k]] = sums_[r * m + k] / iterations;
    for (const Derived& d : DerivedMetrics()) {
      auto den = values.find(d.denominator);
      double num = 0;
      bool have = den != values.end() && den->second > 0;
      for (const char* part : d.numerator) {
        auto it = values.find(part);
        have = have && it != values.end();
        if (have) num += it->second;
      }
      if (have) values[d.name] = num / den->second;
    }
    const Region& region = regions_[r];
    std::map<std::string, double>& into = region.of == Region::kNet ? out->net.counters
                                          : region.of == Region::kMarker
                                              ? out->markers.at(region.index).measure.counters
                                              : out->steps.at(region.index).measure.counters;
    for (const auto& [name, value] : values) into[name] = value;
  }
}

}  // namespace ntpb::bench
