#include "src/common/statistics.h"

#include <gtest/gtest.h>

namespace ntpb {
namespace {

TEST(MannWhitney, ExactForSmallSamplesWithoutTies) {
  // Complete separation of 3 vs 3: U = 0, P(U <= 0) = 1 / C(6, 3) = 1/20, two-sided 0.1.
  const auto r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 0.1);
  EXPECT_DOUBLE_EQ(r.min_p_value, 0.1);
  // 4 vs 4 separated: 2 / C(8, 4) = 2/70.
  EXPECT_NEAR(MannWhitneyU({1, 2, 3, 4}, {5, 6, 7, 8}).p_value, 2.0 / 70, 1e-12);
  // Symmetric: U of the other sample is n1*n2 - U, same p.
  const auto flipped = MannWhitneyU({4, 5, 6}, {1, 2, 3});
  EXPECT_DOUBLE_EQ(flipped.u, 9);
  EXPECT_DOUBLE_EQ(flipped.p_value, 0.1);
  // One swap in 3 vs 3: U = 1, P(U <= 1) = 2/20, two-sided 0.2.
  EXPECT_DOUBLE_EQ(MannWhitneyU({1, 2, 4}, {3, 5, 6}).p_value, 0.2);
  // Interleaved: ranks 1, 3, 5 -> U = 3; null counts for U = 0..3 are 1, 1, 2, 3:
  // P(U <= 3) = 7/20, two-sided 0.7.
  EXPECT_DOUBLE_EQ(MannWhitneyU({1, 3, 5}, {2, 4, 6}).u, 3);
  EXPECT_DOUBLE_EQ(MannWhitneyU({1, 3, 5}, {2, 4, 6}).p_value, 0.7);
}

TEST(MannWhitney, TiesUseTheCorrectedNormalApproximation) {
  // Pooled 1 2 2 2 3 4: ranks 1, 3, 3, 3, 5, 6; R1 = 7, U = 1.
  // var = 9/12 * (7 - 24/30) = 4.65; z = (3.5 - 0.5)/sqrt(4.65) = 1.39122; p = erfc(z/sqrt 2).
  const auto r = MannWhitneyU({1, 2, 2}, {2, 3, 4});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 1);
  EXPECT_NEAR(r.p_value, 0.164154, 1e-5);
  // All values equal: no evidence.
  EXPECT_DOUBLE_EQ(MannWhitneyU({5, 5, 5}, {5, 5, 5}).p_value, 1.0);
}

TEST(MannWhitney, TinySamplesCannotBeSignificant) {
  EXPECT_DOUBLE_EQ(MannWhitneyU({1}, {2}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(MannWhitneyU({1}, {2}).min_p_value, 1.0);
  EXPECT_DOUBLE_EQ(MannWhitneyU({}, {1, 2}).p_value, 1.0);
  // 2 vs 2 can at best reach 2/6.
  EXPECT_NEAR(MannWhitneyU({1, 2}, {3, 4}).min_p_value, 1.0 / 3, 1e-12);
  // 5 vs 5 can reach 2/252 < 0.05.
  EXPECT_NEAR(MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).p_value, 2.0 / 252, 1e-12);
}

TEST(MannWhitney, LargeSamplesUseTheApproximation) {
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(i + 100);
  }
  const auto r = MannWhitneyU(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_LT(r.p_value, 1e-9);
}

TEST(Median, OddEvenEmpty) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({}), 0);
}

}  // namespace
// 10^5 repetitions a side: the statistic's products (n1 * n2 = 10^10) must not overflow. A 2x
// regression is certain; two samples of one distribution are not told apart.
TEST(MannWhitney, LargeSamplesStayExact) {
  std::vector<double> a, b, c;
  for (int i = 0; i < 100000; ++i) {
    const double x = 1.0 + (i % 977) * 1e-3;  // spread, with ties
    a.push_back(x);
    b.push_back(2 * x);
    c.push_back(x + ((i * 7919) % 1000 == 0 ? 1e-4 : 0));
  }
  const MannWhitneyResult regression = MannWhitneyU(a, b);
  EXPECT_EQ(regression.u, 0);
  EXPECT_LT(regression.p_value, 1e-100);
  const MannWhitneyResult same = MannWhitneyU(a, c);
  EXPECT_GT(same.p_value, 0.05);
  EXPECT_NEAR(same.u, 1e10 / 2, 1e10 * 0.01);
}

}  // namespace ntpb
