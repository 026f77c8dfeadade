// The OpenCL program cache's disk entry: a header (magic, the binary's size, its FNV-1a
// checksum) and the driver's binary. The driver is given only a binary whose size and checksum
// match: PoCL crashes on a truncated one, and the cache folder is only as safe as the disk (a
// killed copy, a full disk, another tool writing there). No OpenCL here: it is fuzzed alone.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace ntpb::opencl {

// FNV-1a, 64 bits: a cache key and a checksum against damage, not a security property.
inline uint64_t Fnv1a(const std::string& text, uint64_t hash = 1469598103934665603ull) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

inline constexpr char kCacheEntryMagic[8] = {'N', 'T', 'P', 'B', 'C', 'L', '1', '\0'};
inline constexpr size_t kCacheEntryHeaderBytes = sizeof kCacheEntryMagic + 2 * sizeof(uint64_t);

inline std::string CacheEntry(const std::string& binary) {
  std::string entry(kCacheEntryMagic, sizeof kCacheEntryMagic);
  const uint64_t fields[2] = {binary.size(), Fnv1a(binary)};
  entry.append(reinterpret_cast<const char*>(fields), sizeof fields);
  return entry + binary;
}

// The binary an entry holds, or "" for anything else (another format, cut short, damaged).
inline std::string BinaryOfCacheEntry(const std::string& entry) {
  if (entry.size() < kCacheEntryHeaderBytes ||
      entry.compare(0, sizeof kCacheEntryMagic, kCacheEntryMagic, sizeof kCacheEntryMagic) != 0) {
    return "";
  }
  uint64_t fields[2];
  std::memcpy(fields, entry.data() + sizeof kCacheEntryMagic, sizeof fields);
  std::string binary = entry.substr(kCacheEntryHeaderBytes);
  if (fields[0] != binary.size() || fields[1] != Fnv1a(binary)) return "";
  return binary;
}

}  // namespace ntpb::opencl
