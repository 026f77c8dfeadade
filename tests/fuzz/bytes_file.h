// For fuzz targets whose reader takes a path: the input's bytes written to a file of this
// process's own (one per target and process), reused for every input.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ntpb::fuzz {

// The file's path, or "" when it cannot be written.
inline std::string BytesFile(const char* stem, const uint8_t* data, size_t size) {
  const std::string path = "/tmp/" + std::string(stem) + "_" + std::to_string(getpid());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

}  // namespace ntpb::fuzz
