// The shared Eigen reference run (src/backends/reference_run.h): computed once per topology and
// config, and the same numbers as running the eigen backend directly.
#include "src/backends/reference_run.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ntpbench/json_format.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

TEST(EigenReference, IsComputedOnceAndMatchesADirectRun) {
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {});
  RunConfig config;
  config.seed = 5;
  config.threads = 2;
  const auto first = EigenReference(t, config);
  config.precision = Precision::kI8;  // the reference is f32 whatever the run's precision
  EXPECT_EQ(EigenReference(t, config).get(), first.get());

  config.precision = Precision::kF32;
  auto direct = FindBackend("eigen")->Compile(t, config);
  direct->Run();
  for (const std::string& out : t.outputs) {
    EXPECT_EQ(first->outputs.at(out), direct->ReadTensor(out)) << out;
  }
  for (const ResolvedLayer& l : t.layers) {
    const std::vector<float> v = direct->ReadTensor(l.outputs[0]);
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    EXPECT_EQ(first->ranges.at(l.outputs[0]), std::make_pair(*lo, *hi)) << l.name;
  }
  EXPECT_TRUE(first->ranges.count("image"));  // graph inputs too

  // Another seed, or the same layers with another attribute, is another reference.
  config.seed = 6;
  EXPECT_NE(EigenReference(t, config).get(), first.get());
  config.seed = 5;
  Topology changed = ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json"));
  for (Layer& l : changed.layers) {
    if (l.name == "pool") l.attrs["kernel"] = 1;
  }
  const ResolvedTopology other = Resolve(changed, {});
  const auto other_run = EigenReference(other, config);
  EXPECT_NE(other_run.get(), first.get());
  EXPECT_NE(other_run->outputs.at("probs"), first->outputs.at("probs"));
}

// Weights given by the source (an ONNX model's initializers): other values, another reference,
// even when the old values' storage is freed and the new ones land at the same address.
TEST(EigenReference, TellsTopologiesApartByTheirGivenWeights) {
  RunConfig config;
  config.threads = 2;
  auto with_kernel = [&](float value) {
    Topology t = SingleLayer("dense", {{1, 4}}, {{"units", 2}, {"bias", false}});
    t.layers[0].weights["kernel"] = {{4, 2}, std::make_shared<const std::vector<float>>(8, value)};
    return EigenReference(Resolve(t, {}), config)->outputs.at("y");
  };
  const std::vector<float> ones = with_kernel(1.0f), twos = with_kernel(2.0f);
  ASSERT_EQ(ones.size(), 2u);
  for (size_t i = 0; i < ones.size(); ++i) EXPECT_FLOAT_EQ(twos[i], 2 * ones[i]);
  EXPECT_EQ(with_kernel(1.0f), ones);
}

}  // namespace
}  // namespace ntpb::testing
