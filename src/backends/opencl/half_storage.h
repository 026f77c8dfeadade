// f16 runs store tensors as IEEE half on the device (kernels.cl's STORE_HALF): what crosses
// between the host's floats and the device's halves, rounded to nearest even as the Eigen
// reference rounds its f16 values.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ntpb::opencl {

inline void FloatsToHalves(const float* from, int64_t n, std::uint16_t* to) {
  for (int64_t i = 0; i < n; ++i)
    to[i] = Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(from[i]));
}

inline void HalvesToFloats(const std::uint16_t* from, int64_t n, float* to) {
  for (int64_t i = 0; i < n; ++i) {
    to[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(from[i]));
  }
}

inline std::vector<float> RoundedToHalf(std::vector<float> values) {
  for (float& v : values) v = static_cast<float>(Eigen::half(v));
  return values;
}

// `values` as the device stores them: their bytes (element_bytes 4), or halves (2).
inline std::vector<char> StoredBytes(const float* values, int64_t n, int element_bytes) {
  std::vector<char> bytes(static_cast<size_t>(n * element_bytes));
  if (element_bytes == 2) {
    FloatsToHalves(values, n, reinterpret_cast<std::uint16_t*>(bytes.data()));
  } else {
    std::memcpy(bytes.data(), values, bytes.size());
  }
  return bytes;
}

}  // namespace ntpb::opencl
