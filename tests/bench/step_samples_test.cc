#include "src/bench/step_samples.h"

#include <gtest/gtest.h>

namespace ntpb::testing {
namespace {

// Rows are kept up to the cap; a region's summary is over the sum of its steps per iteration,
// the median by nearest rank as the network's p50.
TEST(StepSamples, SummarisesEachRegionOverTheKeptIterations) {
  bench::StepSamples samples(5, 2);
  const int64_t times[5][2] = {{10, 1}, {30, 2}, {20, 9}, {50, 1}, {40, 1}};
  for (int64_t i = 0; i < 5; ++i) {
    int64_t* row = samples.Row(i);
    ASSERT_NE(row, nullptr);
    row[0] = times[i][0];
    row[1] = times[i][1];
  }
  EXPECT_EQ(samples.Row(5), nullptr) << "beyond the iterations asked for";
  samples.Kept(5);
  const bench::SampleSummary first = samples.Summary({0});
  EXPECT_EQ(first.p50_ns, 30);
  EXPECT_EQ(first.min_ns, 10);
  EXPECT_EQ(first.max_ns, 50);
  const bench::SampleSummary both = samples.Summary({0, 1});  // 11, 32, 29, 51, 41
  EXPECT_EQ(both.p50_ns, 32);
  EXPECT_EQ(both.min_ns, 11);
  EXPECT_EQ(both.max_ns, 51);
  EXPECT_EQ(samples.Summary({}).max_ns, 0) << "a marker with no steps";
  // Fewer iterations kept than rows: only those count.
  samples.Kept(2);
  EXPECT_EQ(samples.Summary({0}).max_ns, 30);
}

TEST(StepSamples, KeepsAtMostItsCellsWhateverTheIterations) {
  const std::size_t steps = 1000;
  bench::StepSamples samples(int64_t{1} << 40, steps);
  const int64_t rows = static_cast<int64_t>(bench::StepSamples::kMaxCells / steps);
  EXPECT_NE(samples.Row(rows - 1), nullptr);
  EXPECT_EQ(samples.Row(rows), nullptr);
  samples.Kept(int64_t{1} << 40);
  EXPECT_EQ(samples.used(), rows);
}

}  // namespace
}  // namespace ntpb::testing
