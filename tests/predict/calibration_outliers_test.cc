// A calibration's second look: a probe point that ran far slower than the other points price its
// steps is found (leave one point out), its samples scaled to a run again, and the probe's drift
// recomputed against the scaled first run.
#include "src/predict/calibration_outliers.h"

#include <gtest/gtest.h>

#include <cmath>

#include "src/predict/step_pricer.h"
#include "tests/predict/mlp_calibration.h"

namespace ntpb::testing {
namespace {

constexpr double kRate = 5e7;  // 50 GFLOP/s
const char kSlow[] = "probe_dense batch=8,n_hidden=512";

TEST(CalibrationOutliers, ACalibrationWhosePointsAgreeHasNoSlowPoint) {
  EXPECT_TRUE(SlowProbePoints(MlpCalibration(kRate, {8}), 1.5).empty());
}

TEST(CalibrationOutliers, FindsThePointThatRanSlowerThanTheOtherPointsPriceIt) {
  LatencyCalibration c = MlpCalibration(kRate, {8});
  ScalePointSamples(&c, kSlow, 4);  // the machine was slow for that point's second
  const std::vector<SlowProbePoint> slow = SlowProbePoints(c, 1.5);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].point, kSlow);
  EXPECT_NEAR(slow[0].Ratio(), 4, 0.6);
  // Its neighbours priced it: the steps' true time, not its own samples'.
  double truth = 0;
  for (const CalibrationSample& s : MlpCalibration(kRate, {8}).samples) {
    if (SamplePoint(s) == kSlow) truth += s.ms;
  }
  EXPECT_NEAR(slow[0].priced_ms, truth, 0.15 * truth);
  EXPECT_NEAR(slow[0].measured_ms, 4 * truth, 1e-9 * truth);

  // Scaled back to a second run, nothing is slow and the other points are untouched.
  ScalePointSamples(&c, kSlow, 0.25);
  EXPECT_TRUE(SlowProbePoints(c, 1.5).empty());
  const LatencyCalibration original = MlpCalibration(kRate, {8});
  ASSERT_EQ(c.samples.size(), original.samples.size());
  for (size_t i = 0; i < c.samples.size(); ++i) {
    EXPECT_NEAR(c.samples[i].ms, original.samples[i].ms, 1e-12) << c.samples[i].source;
  }
}

TEST(CalibrationOutliers, LeavingAPointOutPricesItsStepsFromTheOthers) {
  LatencyCalibration c = MlpCalibration(kRate, {8});
  ScalePointSamples(&c, kSlow, 4);
  const StepPricer pricer(c);
  for (const CalibrationSample& s : c.samples) {
    if (SamplePoint(s) != kSlow || s.features.flops < 1e5) continue;
    const double truth = s.ms / 4;
    // With its own samples the step is priced near them (distance 0 weighs most) ...
    EXPECT_GT(pricer.Price(s.features).ms, 2 * truth) << s.source;
    // ... and without them from the points around it.
    const StepPrice left_out = pricer.Price(s.features, kSlow);
    ASSERT_TRUE(left_out.priced);
    EXPECT_NEAR(left_out.ms, truth, 0.2 * truth) << s.source;
  }
}

TEST(CalibrationOutliers, ADriftIsRecomputedAgainstTheScaledFirstRun) {
  // First run 8 ms (a slow second), last 1 ms: drift -87.5%, reference sqrt(8) ms.
  const ReferenceDrift measured{1.0 / 8 - 1, std::sqrt(8.0)};
  // Run again, the first point took 1.1 ms: scaled by 1.1 / 8.
  const ReferenceDrift corrected = DriftWithFirstRunScaled(measured, 1.1 / 8);
  EXPECT_NEAR(corrected.drift, 1 / 1.1 - 1, 1e-12);
  EXPECT_NEAR(corrected.ms, std::sqrt(1.1), 1e-12);
  const ReferenceDrift unchanged = DriftWithFirstRunScaled(measured, 1);
  EXPECT_NEAR(unchanged.drift, measured.drift, 1e-12);
  EXPECT_NEAR(unchanged.ms, measured.ms, 1e-12);
}

}  // namespace
}  // namespace ntpb::testing
