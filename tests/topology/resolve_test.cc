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

// The overflow checks refuse only what does not fit 64 bits: the costliest convolution that
// fits (2^62 FLOPs) and a DeepSpeech far larger than anyone runs resolve with exact counts.
TEST(Resolve, LargeCostsThatFitAreExact) {
  const ResolvedTopology conv = Resolve(ParseTopologyJson(R"({"name": "big",
    "inputs": [{"name": "x", "shape": [1, 1, 1, 1]}],
    "layers": [{"name": "c", "op": "conv2d", "filters": 1, "kernel": 32768,
                "padding": [49151, 32767], "bias": false}]})",
                                                          "big.json"),
                                        {});
  EXPECT_EQ(conv.layers[0].output_shapes[0], (Shape{1, 1, 65536, 32768}));
  EXPECT_EQ(conv.layers[0].flops, int64_t{1} << 62);
  const ResolvedTopology speech =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/deepspeech.json")),
              {{"N", 16}, {"T", 10000}, {"n_hidden", 4096}});
  const ResolvedLayer& lstm = speech.layers[speech.LayerIndex("bilstm")];
  // 2 directions x N x T x 2 x 4 gates x h x (input + h).
  EXPECT_EQ(lstm.flops, int64_t{2} * 16 * 10000 * 2 * 4 * 4096 * (4096 + 4096));
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
