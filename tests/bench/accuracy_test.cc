// The accuracy delta a lower-precision run reports, against values computed by hand.
#include "src/bench/accuracy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ntpb::testing {
namespace {

TEST(AccuracyDelta, IdenticalOutputsHaveNoError) {
  const AccuracyDelta d = CompareOutputs({1, -2, 3}, {1, -2, 3});
  EXPECT_EQ(d.max_rel_err, 0);
  EXPECT_DOUBLE_EQ(d.cosine, 1);
}

TEST(AccuracyDelta, RelativeAboveOneAbsoluteBelow) {
  // |10.5 - 10| / 10 = 0.05; |0.3 - 0.2| / 1 = 0.1 (absolute below 1).
  EXPECT_DOUBLE_EQ(CompareOutputs({10.5f, 0.2f}, {10, 0.2f}).max_rel_err, 0.05);
  EXPECT_NEAR(CompareOutputs({10, 0.3f}, {10, 0.2f}).max_rel_err, 0.1, 1e-7);
}

// Relative to the output's scale: the largest difference over the largest reference value.
TEST(AccuracyDelta, NormWiseErrorIsRelativeToTheOutputsScale) {
  // max |diff| = 0.1 (at 0.2 -> 0.3), max |reference| = 10.
  EXPECT_NEAR(CompareOutputs({10, 0.3f}, {10, 0.2f}).norm_rel_err, 0.01, 1e-7);
  EXPECT_EQ(CompareOutputs({1, -2, 3}, {1, -2, 3}).norm_rel_err, 0);
  EXPECT_TRUE(std::isinf(CompareOutputs({1, std::nanf("")}, {1, 2}).norm_rel_err));
}

TEST(AccuracyDelta, CosineOfOrthogonalAndOppositeOutputs) {
  EXPECT_NEAR(CompareOutputs({1, 0}, {0, 1}).cosine, 0, 1e-12);
  EXPECT_NEAR(CompareOutputs({1, 2}, {-1, -2}).cosine, -1, 1e-12);
  EXPECT_NEAR(CompareOutputs({3, 4}, {4, 3}).cosine, 24.0 / 25.0, 1e-12);
  EXPECT_DOUBLE_EQ(CompareOutputs({0, 0}, {0, 0}).cosine, 1);
  EXPECT_DOUBLE_EQ(CompareOutputs({0, 0}, {0, 1}).cosine, 0);
}

TEST(AccuracyDelta, NanIsTheWorstAndSizesMustMatch) {
  const AccuracyDelta d = CompareOutputs({1, std::nanf("")}, {1, 2});
  EXPECT_TRUE(std::isinf(d.max_rel_err));
  EXPECT_EQ(d.cosine, 0);
  EXPECT_THROW(CompareOutputs({1}, {1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace ntpb::testing
