#include "src/common/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace ntpb {
namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(HugePages, LargeBuffersStartOnAHugePageAndSmallOnesOnACacheLine) {
  const auto large = NewHugePageArray<float>(kHugePageBytes / sizeof(float) + 1);
  EXPECT_EQ(Address(large.get()) % kHugePageBytes, 0u);
  const auto small = NewHugePageArray<float>(100);
  EXPECT_EQ(Address(small.get()) % 64, 0u);
  const auto empty = NewHugePageArray<float>(0);  // a read-only stream's unused arrays
  EXPECT_NE(empty.get(), nullptr);
}

TEST(HugePages, VectorsKeepTheirValuesThroughCopiesAndGrowth) {
  std::vector<float, HugePageAllocator<float>> v(3 * kHugePageBytes / sizeof(float));
  EXPECT_EQ(Address(v.data()) % kHugePageBytes, 0u);
  std::iota(v.begin(), v.end(), 0.0f);
  const std::vector<float, HugePageAllocator<float>> copy = v;
  v.push_back(-1.0f);
  EXPECT_EQ(v[12345], 12345.0f);
  EXPECT_EQ(v.back(), -1.0f);
  EXPECT_EQ(copy.size() + 1, v.size());
  EXPECT_EQ(copy[777], 777.0f);
}

}  // namespace
}  // namespace ntpb
