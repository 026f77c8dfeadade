#include "ntpbench/resolve.h"

#include <gtest/gtest.h>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

TEST(Resolve, BindsParamsWithOverridesAndDefaultsNToOne) {
  const Topology t = ReadTopologyJsonFile(SourcePath("topologies/deepspeech.json"));
  const ResolvedTopology defaults = Resolve(t, {});
  EXPECT_EQ(defaults.params.at("N"), 1);
  EXPECT_EQ(defaults.params.at("T"), 100);
  EXPECT_EQ(defaults.shapes.at("bilstm"), (Shape{1, 100, 4096}));
  const ResolvedTopology set = Resolve(t, {{"N", 4}, {"T", 20}, {"n_hidden", 1024}});
  EXPECT_EQ(set.shapes.at("fc1"), (Shape{4, 20, 1024}));
  EXPECT_EQ(set.shapes.at("bilstm"), (Shape{4, 20, 2048}));
  EXPECT_EQ(set.shapes.at("probs"), (Shape{4, 20, 29}));
  EXPECT_EQ(set.layers[3].attrs.Int("units"), 1024);
}

TEST(Resolve, OrdersLayersTopologicallyKeepingFileOrderOtherwise) {
  const Topology t = ParseTopologyJson(R"({"name": "o",
    "inputs": [{"name": "x", "shape": [1, 4]}],
    "layers": [
      {"name": "c", "op": "add", "inputs": ["a", "b"]},
      {"name": "b", "op": "relu", "inputs": ["a"]},
      {"name": "a", "op": "relu", "inputs": ["x"]},
      {"name": "d", "op": "tanh", "inputs": ["x"]}
    ], "outputs": ["c", "d"]})",
                                       "o.json");
  const ResolvedTopology r = Resolve(t, {});
  std::vector<std::string> order;
  for (const ResolvedLayer& l : r.layers) order.push_back(l.name);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(r.LayerIndex("c"), 2);
  EXPECT_EQ(r.LayerIndex("zz"), -1);
}

TEST(Resolve, WorksOutPaddingAndPoolStride) {
  const ResolvedTopology r =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {{"N", 2}});
  const ResolvedLayer& conv2 = r.layers[r.LayerIndex("conv2")];
  EXPECT_EQ(conv2.attrs.Ints("padding"), (std::vector<int64_t>{0, 0, 1, 1}));  // same, 8 -> 4
  EXPECT_EQ(conv2.output_shapes[0], (Shape{2, 16, 4, 4}));
  const ResolvedLayer& pool = r.layers[r.LayerIndex("pool")];
  EXPECT_EQ(pool.attrs.Ints("stride"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r.layers[r.LayerIndex("conv1")].attrs.Ints("kernel"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(r.layers[r.LayerIndex("dw")].attrs.Int("groups"), 8);
}

TEST(Resolve, RegistrationMarkersAreCheckedLikeFileMarkers) {
  const ResolvedTopology r = Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {});
  const auto markers = ResolveMarkers(r, {{"head", "fc3", "probs"}, {"all", "fc1", "probs"}});
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[0].first, 2);
  EXPECT_EQ(markers[0].last, 3);
  EXPECT_THROW(ResolveMarkers(r, {{"x", "fc1", "nope"}}), Error);
  EXPECT_THROW(ResolveMarkers(r, {{"x", "fc1", "fc2"}, {"y", "fc2", "fc3"}}), Error);
  EXPECT_THROW(ResolveMarkers(r, {{"x", "fc1", "fc2"}, {"x", "fc1", "fc2"}}), Error);
}

}  // namespace
}  // namespace ntpb::testing
