// The accuracy delta a lower-precision run reports, against values computed by hand.
#include "src/bench/accuracy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ntpbench/backend.h"
#include "ntpbench/json_format.h"
#include "src/bench/precision_accuracy.h"
#include "tests/test_util.h"

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

namespace ntpb::testing {
namespace {

TEST(PrecisionAccuracy, RmsRelativeErrorIsTheNormOfTheDifferenceOverTheReferences) {
  // ||(0.3, -0.4)|| / ||(3, 4)|| = 0.5 / 5.
  EXPECT_NEAR(bench::RmsRelativeError({3.3f, 3.6f}, {3, 4}), 0.1, 1e-7);
  EXPECT_EQ(bench::RmsRelativeError({1, 2}, {1, 2}), 0);
  EXPECT_TRUE(std::isinf(bench::RmsRelativeError({1, std::nanf("")}, {1, 2})));
  EXPECT_TRUE(std::isinf(bench::RmsRelativeError({1}, {0})));
}

// The f32 reference against itself: nothing lost anywhere, every prediction agrees, and the
// seeded inputs are as many as 64 predictions need (mlp: one row per input).
TEST(PrecisionAccuracy, TheReferenceAgainstItselfLosesNothing) {
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {{"n_hidden", 32}});
  RunConfig config;
  auto exe = FindBackend("eigen")->Compile(t, config);
  exe->Run();
  const std::vector<float> before = exe->ReadTensor(t.outputs[0]);
  std::vector<double> steps;
  const OutputAccuracy a = bench::MeasureAccuracy(t, *exe, config, &steps);
  EXPECT_EQ(a.rms_rel_err, 0);
  EXPECT_EQ(a.logits, "fc3") << "the input of the final softmax";
  EXPECT_EQ(a.logits_rms_rel_err, 0);
  EXPECT_EQ(a.top1_agreement, 1);
  EXPECT_EQ(a.top5_overlap, 1);
  EXPECT_EQ(a.predictions, 64);
  EXPECT_EQ(a.inputs, 64);
  ASSERT_EQ(steps.size(), exe->steps().size());
  for (size_t s = 0; s < steps.size(); ++s) EXPECT_EQ(steps[s], 0) << exe->steps()[s].name;
  EXPECT_EQ(exe->ReadTensor(t.outputs[0]), before) << "the run's own inputs are restored";
  bench::AccuracyBudget few;
  few.max_inputs = 3;
  EXPECT_EQ(bench::MeasureAccuracy(t, *exe, config, nullptr, few).inputs, 3);
}

// bf16 on oneDNN where the machine runs it: every step's error is measured (read right after its
// step, before its memory is reused), small, and the logits lose more than the softmax shows.
TEST(PrecisionAccuracy, EveryStepOfALowerPrecisionIsMeasured) {
  const Backend* onednn = FindBackend("onednn");
  if (!onednn) GTEST_SKIP() << "onednn is not built";
  const ResolvedTopology t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {});
  RunConfig config;
  config.precision = Precision::kBf16;
  const Support support = onednn->Supports(t, config);
  if (!support.ok) GTEST_SKIP() << support.reason;
  auto exe = onednn->Compile(t, config);
  exe->Run();
  std::vector<double> steps;
  const OutputAccuracy a = bench::MeasureAccuracy(t, *exe, config, &steps);
  for (size_t s = 0; s < steps.size(); ++s) {
    if (exe->steps()[s].layer < 0) continue;  // a reorder the backend inserted
    EXPECT_GT(steps[s], 0) << exe->steps()[s].name;
    EXPECT_LT(steps[s], 0.05) << exe->steps()[s].name;
  }
  EXPECT_GT(a.logits_rms_rel_err, 0);
  EXPECT_LT(a.logits_rms_rel_err, 0.05);
  EXPECT_GE(a.top1_agreement, 0.9);
}

}  // namespace
}  // namespace ntpb::testing
