// The region names ntpbench's own counters live under in Google Benchmark's JSON ("net.*",
// "mem.*", "acc.*", "scenario.*", "interference.*", "layer.<step>.*"). The results codec
// (src/results) spells counters with them; topology resolution refuses a marker that would take
// one.
#pragma once

#include <string>

namespace ntpb::region_names {

inline constexpr const char* kNet = "net";
inline constexpr const char* kMem = "mem";
inline constexpr const char* kAcc = "acc";
inline constexpr const char* kLayer = "layer";
inline constexpr const char* kScenario = "scenario";
inline constexpr const char* kInterference = "interference";
inline constexpr const char* kReserved[] = {kNet, kMem, kAcc, kLayer, kScenario, kInterference};

// The reserved region `name` is or starts with ("net", "layer.fc1"), or null.
inline const char* ReservedRegionPrefix(const std::string& name) {
  for (const char* reserved : kReserved) {
    const std::string r = reserved;
    if (name == r || name.rfind(r + ".", 0) == 0) return reserved;
  }
  return nullptr;
}

}  // namespace ntpb::region_names
