// libFuzzer target: any bytes as an OpenCL program-cache entry. What the reader accepts must be
// exactly what an entry of that binary is (so a damaged entry never reaches the driver).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "src/backends/opencl/program_cache_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string entry(reinterpret_cast<const char*>(data), size);
  const std::string binary = ntpb::opencl::BinaryOfCacheEntry(entry);
  if (!binary.empty() && ntpb::opencl::CacheEntry(binary) != entry) std::abort();
  return 0;
}
