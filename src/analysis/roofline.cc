#include "ntpbench/roofline.h"

#include <algorithm>

namespace ntpb {

bool FitsInCache(int64_t working_set, const MachinePeaks& peaks) {
  return working_set > 0 && peaks.cache_bandwidth_gbs > 0 && working_set <= peaks.cache_bytes / 2;
}

RooflineBound Roofline(const Cost& cost, Precision precision, const MachinePeaks& peaks,
                       int64_t working_set) {
  auto it = peaks.peak_gflops.find(PrecisionName(precision));
  if (it == peaks.peak_gflops.end() || peaks.bandwidth_gbs <= 0) return {};
  const bool cached = FitsInCache(working_set, peaks);
  const double bandwidth = cached ? peaks.cache_bandwidth_gbs : peaks.bandwidth_gbs;
  const double bytes =
      static_cast<double>(cost.weight_traffic_bytes + cost.input_bytes + cost.output_bytes);
  const double compute_ms = static_cast<double>(cost.flops) / (it->second * 1e9) * 1e3;
  const double memory_ms = bytes / (bandwidth * 1e9) * 1e3;
  const bool memory_bound = memory_ms > compute_ms;
  return {std::max(compute_ms, memory_ms), memory_bound, memory_bound && cached};
}

}  // namespace ntpb
