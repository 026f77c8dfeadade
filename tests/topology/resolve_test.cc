#include "ntpbench/resolve.h"

#include <gtest/gtest.h>

#include <algorithm>

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

// `when` leaves a layer out: its readers read its first input, markers shrink to what is kept.
TEST(Resolve, WhenLeavesLayersOutAndPassesTheirInputOn) {
  const Topology t = ParseTopologyJson(R"({"name": "w", "params": {"mode": 0},
    "inputs": [{"name": "x", "shape": [1, 8]}],
    "layers": [{"name": "a", "op": "relu"},
               {"name": "b", "op": "dense", "units": 4, "when": "mode == 1"},
               {"name": "c", "op": "dense", "units": 8, "when": "mode != 2"},
               {"name": "d", "op": "add", "inputs": ["c", "a"], "when": "mode == 1"}],
    "outputs": ["d"],
    "markers": [{"name": "m", "start": "b", "end": "c"}, {"name": "gone", "start": "b",
                 "end": "b"}]})",
                                       "w.json");
  const ResolvedTopology zero = Resolve(t, {});
  ASSERT_EQ(zero.layers.size(), 2u);
  EXPECT_EQ(zero.layers[1].name, "c");
  EXPECT_EQ(zero.layers[1].inputs, (std::vector<std::string>{"a"}));
  EXPECT_EQ(zero.outputs, (std::vector<std::string>{"c"}));  // d left out: its input c
  ASSERT_EQ(zero.markers.size(), 1u);
  EXPECT_EQ(zero.markers[0].name, "m");
  EXPECT_EQ(zero.layers[zero.markers[0].first].name, "c");
  const ResolvedTopology two = Resolve(t, {{"mode", 2}});
  ASSERT_EQ(two.layers.size(), 1u);
  EXPECT_EQ(two.outputs, (std::vector<std::string>{"a"}));  // through d, c and b
  EXPECT_TRUE(two.markers.empty());
  const ResolvedTopology one = Resolve(t, {{"mode", 1}});
  EXPECT_EQ(one.layers.size(), 4u);
  EXPECT_EQ(one.shapes.at("d"), (Shape{1, 8}));
}

TEST(Resolve, WhenErrorsNameTheLayerAndField) {
  const Topology t = ParseTopologyJson(R"({"name": "w",
    "inputs": [{"name": "x", "shape": [1, 8]}],
    "layers": [{"name": "a", "op": "relu", "when": "missing == 1"}]})",
                                       "w.json");
  try {
    Resolve(t, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "w.json: layer 'a', field 'when': unknown param 'missing' in expression \"missing "
              "== 1\"");
  }
}

// The shipped backbone: one param picks standard, depthwise-separable or grouped convolutions.
TEST(Resolve, BackboneConvTypeSwitchesEveryKxKConvolution) {
  const Topology t = ReadTopologyJsonFile(SourcePath("topologies/backbone.json"));
  auto layer_names = [](const ResolvedTopology& r) {
    std::vector<std::string> names;
    for (const ResolvedLayer& l : r.layers) names.push_back(l.name);
    return names;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  const ResolvedTopology standard = Resolve(t, {{"size", 64}});
  const ResolvedTopology separable = Resolve(t, {{"size", 64}, {"conv_type", 1}});
  const ResolvedTopology grouped = Resolve(t, {{"size", 64}, {"conv_type", 2}});
  EXPECT_TRUE(has(layer_names(standard), "stage3.conv2"));
  EXPECT_FALSE(has(layer_names(standard), "stage3.conv2_dw"));
  EXPECT_TRUE(has(layer_names(separable), "stage3.conv2_dw"));
  EXPECT_TRUE(has(layer_names(separable), "stage3.conv2_pw"));
  EXPECT_FALSE(has(layer_names(separable), "stage3.conv2"));
  EXPECT_TRUE(has(layer_names(grouped), "stage3.conv2_g"));
  EXPECT_EQ(layer_names(separable).size(), layer_names(standard).size() + 8);
  EXPECT_EQ(layer_names(grouped).size(), layer_names(standard).size());
  // Same output either way; the k x k convolutions' weights: C*F*k*k, C*k*k + C*F, C*F*k*k/g.
  for (const ResolvedTopology* r : {&standard, &separable, &grouped}) {
    EXPECT_EQ(r->shapes.at(r->outputs[0]), (Shape{1, 1000}));
    EXPECT_EQ(r->markers.size(), 4u);
  }
  auto weights = [](const ResolvedTopology& r, const std::string& layer) {
    int64_t n = 0;
    for (const ResolvedLayer& l : r.layers) {
      if (l.name == layer) n += NumElements(l.weights.at(0).shape);
    }
    return n;
  };
  EXPECT_EQ(weights(standard, "stage2.conv2"), 128 * 128 * 9);
  EXPECT_EQ(weights(separable, "stage2.conv2_dw") + weights(separable, "stage2.conv2_pw"),
            128 * 9 + 128 * 128);
  EXPECT_EQ(weights(grouped, "stage2.conv2_g"), 128 * 128 * 9 / 4);
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
