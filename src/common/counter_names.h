// The names of ntpbench's own counters in Google Benchmark's JSON (and so in baselines, reports
// and compare.py): one vocabulary for the code that writes them (bench) and the code that reads
// them (baseline, report). A region's counters are "<region>.<metric>"; the network's region is
// "net", each step's "layer.<step>", a marker's its name; "mem" and "acc" hold the memory
// signature and the accuracy delta. A user's marker may not take one of those region names.
#pragma once

#include <string>

namespace ntpb::counter_names {

// Regions.
inline constexpr const char* kNet = "net";
inline constexpr const char* kMem = "mem";
inline constexpr const char* kAcc = "acc";
inline constexpr const char* kLayer = "layer";
inline constexpr const char* kReservedRegions[] = {kNet, kMem, kAcc, kLayer};

// Metrics of every timed region (net, layers, markers).
inline constexpr const char* kMs = "ms";
inline constexpr const char* kTimeShare = "time_share";
inline constexpr const char* kGflops = "gflops";
inline constexpr const char* kFusedLayers = "fused_layers";  // a layer region: layers it holds

// "<region>.<metric>".
inline std::string Of(const std::string& region, const std::string& metric) {
  return region + "." + metric;
}
// The region of an executed step: "layer.<step>".
inline std::string LayerRegion(const std::string& step) { return std::string(kLayer) + "." + step; }
inline bool IsLayerCounter(const std::string& counter) {
  return counter.rfind(std::string(kLayer) + ".", 0) == 0;
}

// The network.
inline constexpr const char* kNetSamplesPerSecond = "net.samples_per_second";
inline constexpr const char* kNetGflops = "net.gflops";
inline constexpr const char* kNetFlops = "net.flops";
inline constexpr const char* kNetParams = "net.params";
inline constexpr const char* kNetP50Ms = "net.p50_ms";
inline constexpr const char* kNetP90Ms = "net.p90_ms";
inline constexpr const char* kNetP99Ms = "net.p99_ms";
inline constexpr const char* kNetAllocs = "net.allocs";           // the memory source's
inline constexpr const char* kNetAllocBytes = "net.alloc_bytes";  // counters of the net region

// The memory signature.
inline constexpr const char* kMemWeightBytes = "mem.weight_bytes";
inline constexpr const char* kMemPeakActivationBytes = "mem.peak_activation_bytes";
inline constexpr const char* kMemWorkspaceBytes = "mem.workspace_bytes";
inline constexpr const char* kMemActivationBytes = "mem.activation_bytes";
inline constexpr const char* kMemPeakRssBytes = "mem.peak_rss_bytes";

// Outputs against the Eigen f32 reference.
inline constexpr const char* kAccMaxRelErr = "acc.max_rel_err";
inline constexpr const char* kAccCosine = "acc.cosine";

// The reserved region `name` is or starts with ("net", "layer.fc1"), or null.
inline const char* ReservedRegionPrefix(const std::string& name) {
  for (const char* reserved : kReservedRegions) {
    const std::string r = reserved;
    if (name == r || name.rfind(r + ".", 0) == 0) return reserved;
  }
  return nullptr;
}

}  // namespace ntpb::counter_names
