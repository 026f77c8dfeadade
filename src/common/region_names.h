// The region names ntpbench's own counters take as their prefix (net.flops, mem.weight_bytes,
// acc.cosine, layer.<step>.ms, ...). A user's marker may not take one, or it would overwrite
// the network's totals in the JSON and the table.
#pragma once

#include <string>

namespace ntpb {

inline constexpr const char* kReservedRegionNames[] = {"net", "mem", "acc", "layer"};

// The reserved name `name` is or starts with ("net", "layer.fc1"), or null.
inline const char* ReservedRegionPrefix(const std::string& name) {
  for (const char* reserved : kReservedRegionNames) {
    const std::string r = reserved;
    if (name == r || name.rfind(r + ".", 0) == 0) return reserved;
  }
  return nullptr;
}

}  // namespace ntpb
