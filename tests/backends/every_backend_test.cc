// Every backend of this build against the Eigen reference, op case by op case, in f32 with the
// same seed (same weights and inputs). A new backend is checked here without a line of test code;
// its own tests add what is particular to it (lower precisions, fusion, layouts).
// Tolerance 1e-4 relative: kernels sum in other orders and use their own exp/tanh.
#include <gtest/gtest.h>

#include <tuple>

#include "ntpbench/backend.h"
#include "tests/backends/op_cases.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

constexpr double kF32Tolerance = 1e-4;

// The backends checked: all but the reference itself.
std::vector<std::string> BackendsUnderTest() {
  std::vector<std::string> out;
  for (const std::string& name : BackendNames()) {
    // hetero runs the others by a placement: tests/backends/hetero_test.cc.
    if (name != "eigen" && !FindBackend(name)->UsesPlacement()) out.push_back(name);
  }
  return out;
}

class BackendOpTest : public ::testing::TestWithParam<std::tuple<std::string, OpCase>> {};

TEST_P(BackendOpTest, MatchesTheEigenReference) {
  const auto& [backend, c] = GetParam();
  // A build with OpenCL run where no driver is installed: nothing to run on (said), not a
  // failure. Any other refusal fails: every backend runs every op.
  if (const Backend* b = FindBackend(backend); b->HasDevices()) {
    std::string why;
    if (b->Devices(&why).empty()) GTEST_SKIP() << backend << " has no device here: " << why;
  }
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  RunConfig config;
  config.seed = 7;
  config.threads = 2;
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
  const std::unique_ptr<Executable> exe = FindBackend(backend)->Compile(t, config);
  reference->Run();
  exe->Run();
  const std::vector<float> expected = reference->ReadTensor("y"), actual = exe->ReadTensor("y");
  ASSERT_EQ(actual.size(), expected.size()) << backend << " " << c.label;
  EXPECT_LT(MaxRelativeError(actual, expected), kF32Tolerance) << backend << " " << c.label;
  exe->Run();  // again: no state carried between inferences
  EXPECT_EQ(exe->ReadTensor("y"), actual) << backend << " " << c.label;
}

INSTANTIATE_TEST_SUITE_P(AllOps, BackendOpTest,
                         ::testing::Combine(::testing::ValuesIn(BackendsUnderTest()),
                                            ::testing::ValuesIn(OpCases())),
                         [](const ::testing::TestParamInfo<BackendOpTest::ParamType>& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param).label;
                         });
// A build with the reference backend alone has nothing to compare.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackendOpTest);

}  // namespace
}  // namespace ntpb::testing
