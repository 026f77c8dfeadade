// The oneDNN backend against the Eigen reference: every op case, and every shipped topology
// tensor by tensor, with the same seed (same weights and inputs). f32 tolerance: 1e-4 relative
// (oneDNN's kernels sum in other orders and use their own exp/tanh approximations).
#include <gtest/gtest.h>

#include <set>

#include "ntpbench/backend.h"
#include "ntpbench/json_format.h"
#include "ntpbench/op_catalog.h"
#include "tests/backends/op_cases.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

constexpr double kF32Tolerance = 1e-4;

class OnednnOpTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(OnednnOpTest, MatchesTheEigenReference) {
  const OpCase& c = GetParam();
  const ResolvedTopology t = Resolve(SingleLayer(c.op, c.inputs, c.attrs), {});
  RunConfig config;
  config.seed = 7;
  config.threads = 2;
  auto reference = FindBackend("eigen")->Compile(t, config);
  auto exe = FindBackend("onednn")->Compile(t, config);
  reference->Run();
  exe->Run();
  const std::vector<float> expected = reference->ReadTensor("y"), actual = exe->ReadTensor("y");
  ASSERT_EQ(actual.size(), expected.size());
  EXPECT_LT(MaxRelativeError(actual, expected), kF32Tolerance) << c.label;
  exe->Run();  // again: no state carried between inferences
  EXPECT_EQ(exe->ReadTensor("y"), actual);
}

INSTANTIATE_TEST_SUITE_P(AllOps, OnednnOpTest, ::testing::ValuesIn(OpCases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           return info.param.label;
                         });

TEST(OnednnBackend, HasABuilderForEveryOp) {
  std::set<std::string> covered;
  for (const OpCase& c : OpCases()) covered.insert(c.op);
  for (const OpDef& op : AllOps()) EXPECT_TRUE(covered.count(op.name)) << op.name;
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {});
  EXPECT_TRUE(FindBackend("onednn")->Supports(t, RunConfig{}).ok);
  RunConfig bf16;
  bf16.precision = Precision::kBf16;
  EXPECT_FALSE(FindBackend("onednn")->Supports(t, bf16).ok);
}

class OnednnTopology : public ::testing::TestWithParam<TopologyCase> {};

TEST_P(OnednnTopology, EveryTensorMatchesTheEigenReference) {
  const TopologyCase& c = GetParam();
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/" + c.file)), c.params);
  RunConfig config;
  config.seed = 3;
  auto reference = FindBackend("eigen")->Compile(t, config);
  auto exe = FindBackend("onednn")->Compile(t, config);
  reference->Run();
  exe->Run();
  for (const ResolvedLayer& l : t.layers) {
    EXPECT_LT(MaxRelativeError(exe->ReadTensor(l.outputs[0]), reference->ReadTensor(l.outputs[0])),
              kF32Tolerance)
        << "layer " << l.name;
  }
  // Layout reorders the backend inserted are steps of their own, marked as inlays.
  for (const StepInfo& s : exe->steps()) {
    if (s.layer < 0) {
      EXPECT_TRUE(s.inlay && s.op == "reorder") << s.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, OnednnTopology, ::testing::ValuesIn(ShippedTopologyCases()),
                         [](const ::testing::TestParamInfo<TopologyCase>& info) {
                           return TopologyCaseName(info.param);
                         });

}  // namespace
}  // namespace ntpb::testing
