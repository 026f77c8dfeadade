#include "ntpbench/roofline.h"

#include <algorithm>

namespace ntpb {

const char* MemoryLevelName(MemoryLevel level) {
  switch (level) {
    case MemoryLevel::kL2:
      return "l2";
    case MemoryLevel::kLastLevelCache:
      return "l3";
    case MemoryLevel::kMemory:
      return "memory";
  }
  return "memory";
}

const char* BoundName(const RooflineBound& bound) {
  return bound.memory_bound ? MemoryLevelName(bound.level) : "compute";
}

MemoryLevel LevelFor(int64_t reuse_bytes, const MachinePeaks& peaks) {
  if (reuse_bytes <= 0) return MemoryLevel::kMemory;
  if (peaks.l2_bandwidth_gbs > 0 &&
      reuse_bytes <= peaks.l2_bytes / 2 * std::max(peaks.threads, 1)) {
    return MemoryLevel::kL2;
  }
  if (peaks.cache_bandwidth_gbs > 0 && reuse_bytes <= peaks.cache_bytes / 2) {
    return MemoryLevel::kLastLevelCache;
  }
  return MemoryLevel::kMemory;
}

bool FitsInCache(int64_t working_set, const MachinePeaks& peaks) {
  return LevelFor(working_set, peaks) != MemoryLevel::kMemory;
}

RooflineBound Roofline(const Cost& cost, Precision precision, const MachinePeaks& peaks,
                       int64_t working_set) {
  auto it = peaks.peak_gflops.find(PrecisionName(precision));
  if (it == peaks.peak_gflops.end() || peaks.bandwidth_gbs <= 0) return {};
  const bool rereads = cost.weight_bytes > 0 && cost.weight_traffic_bytes > cost.weight_bytes;
  const MemoryLevel level = LevelFor(
      rereads ? std::min(cost.weight_bytes, working_set > 0 ? working_set : cost.weight_bytes)
              : working_set,
      peaks);
  const double bandwidth = level == MemoryLevel::kL2               ? peaks.l2_bandwidth_gbs
                           : level == MemoryLevel::kLastLevelCache ? peaks.cache_bandwidth_gbs
                                                                   : peaks.bandwidth_gbs;
  const double bytes =
      static_cast<double>(cost.weight_traffic_bytes + cost.input_bytes + cost.output_bytes);
  const double compute_ms = static_cast<double>(cost.flops) / (it->second * 1e9) * 1e3;
  const double memory_ms = bytes / (bandwidth * 1e9) * 1e3;
  const bool memory_bound = memory_ms > compute_ms;
  RooflineBound b;
  b.ms = std::max(compute_ms, memory_ms);
  b.memory_bound = memory_bound;
  b.level = level;
  b.from_cache = memory_bound && level != MemoryLevel::kMemory;
  return b;
}

}  // namespace ntpb
