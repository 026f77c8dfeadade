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
  // What is read between two reads of the same bytes: the working set from one inference to the
  // next; for re-read weights, one pass over the
  // largest re-read tensor where the cost knows it (work that takes its re-read tensors one at
  // a time, as the onednn backend's recurrences take an LSTM's directions), else its weights.
  const bool rereads_known = rereads && cost.reread_tensor_bytes > 0;
  const int64_t reuse =
      !rereads ? working_set
      : rereads_known
          ? cost.reread_tensor_bytes
          : std::min(cost.weight_bytes, working_set > 0 ? working_set : cost.weight_bytes);
  const MemoryLevel level = LevelFor(reuse, peaks);
  const double bandwidth = level == MemoryLevel::kL2               ? peaks.l2_bandwidth_gbs
                           : level == MemoryLevel::kLastLevelCache ? peaks.cache_bandwidth_gbs
                                                                   : peaks.bandwidth_gbs;
  const double bytes =
      static_cast<double>(cost.weight_traffic_bytes + cost.input_bytes + cost.output_bytes);
  // Re-read tensors larger than the cache: each pass can find what the pass before read last
  // still there, up to the half of the last-level cache LevelFor counts as holding bytes (the
  // onednn recurrence, reading in alternating order, ran at 1.25-2.17x the DRAM read with 32-64
  // MiB a step, as if 15-21 MiB of a 32 MiB L3 were served each step).
  double cached = 0;
  if (rereads_known && level == MemoryLevel::kMemory && peaks.cache_bandwidth_gbs > 0 &&
      peaks.cache_bytes > 0) {
    const double kept = std::min(static_cast<double>(peaks.cache_bytes / 2),
                                 static_cast<double>(cost.reread_tensor_bytes));
    const double reread = static_cast<double>(cost.weight_traffic_bytes - cost.weight_bytes);
    cached = std::clamp(reread * kept / static_cast<double>(cost.reread_tensor_bytes), 0.0, bytes);
  }
  const double compute_ms = static_cast<double>(cost.flops) / (it->second * 1e9) * 1e3;
  double memory_ms = (bytes - cached) / (bandwidth * 1e9) * 1e3;
  if (cached > 0) memory_ms += cached / (peaks.cache_bandwidth_gbs * 1e9) * 1e3;
  const bool memory_bound = memory_ms > compute_ms;
  RooflineBound b;
  b.ms = std::max(compute_ms, memory_ms);
  b.memory_bound = memory_bound;
  b.level = level;
  b.from_cache = memory_bound && level != MemoryLevel::kMemory;
  return b;
}

}  // namespace ntpb
