// Analytic costs against values computed by hand for every op.
#include "ntpbench/analysis.h"

#include <gtest/gtest.h>

#include <set>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "src/topology/op_catalog.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

using nlohmann::json;

struct CostCase {
  std::string label;
  std::string op;
  std::vector<Shape> inputs;
  json attrs;
  Shape output;
  int64_t flops, params, weight_elements;
};

std::ostream& operator<<(std::ostream& os, const CostCase& c) { return os << c.label; }

const std::vector<CostCase>& Cases() {
  // flops: multiply-add = 2. params: trainable weights. weight_elements: all stored weights.
  static const std::vector<CostCase> cases = {
      // 2 rows x 7 in x 5 out x 2; kernel 35 + bias 5
      {"dense", "dense", {{2, 7}}, {{"units", 5}}, {2, 5}, 140, 40, 40},
      // 8 rows x 6 x 3 x 2; no bias
      {"dense_3d", "dense", {{2, 4, 6}}, {{"units", 3}, {"bias", false}}, {2, 4, 3}, 288, 18, 18},
      // 2 x 2*3 x 4 x 5
      {"matmul", "matmul", {{2, 3, 4}, {2, 4, 5}}, {}, {2, 3, 5}, 240, 0, 0},
      // out 4x8x8 = 256 x 3 ch x 9 x 2; 4*3*9 + 4
      {"conv2d",
       "conv2d",
       {{1, 3, 8, 8}},
       {{"filters", 4}, {"kernel", 3}, {"padding", 1}},
       {1, 4, 8, 8},
       13824,
       112,
       112},
      // out 6x4x4 = 96 x 2 ch/group x 9 x 2; 6*2*9 + 6
      {"conv2d_grouped",
       "conv2d",
       {{1, 4, 6, 6}},
       {{"filters", 6}, {"kernel", 3}, {"groups", 2}},
       {1, 6, 4, 4},
       3456,
       114,
       114},
      // out 8x4x4 = 128 x 1 x 9 x 2; 8*9 + 8
      {"conv2d_depthwise",
       "conv2d",
       {{1, 8, 8, 8}},
       {{"filters", 8}, {"kernel", 3}, {"groups", 8}, {"stride", 2}, {"padding", 1}},
       {1, 8, 4, 4},
       2304,
       80,
       80},
      // dilation 2: span 5, (10 - 5)/1 + 1 = 6
      {"conv2d_dilated",
       "conv2d",
       {{1, 1, 10, 10}},
       {{"filters", 1}, {"kernel", 3}, {"dilation", 2}, {"bias", false}},
       {1, 1, 6, 6},
       648,
       9,
       9},
      // same, stride 2 on 7: ceil(7/2) = 4
      {"conv2d_same",
       "conv2d",
       {{1, 2, 7, 7}},
       {{"filters", 3}, {"kernel", 3}, {"stride", 2}, {"padding", "same"}},
       {1, 3, 4, 4},
       1728,
       57,
       57},
      // 18 outputs x 4 window
      {"max_pool", "max_pool", {{1, 2, 6, 6}}, {{"kernel", 2}}, {1, 2, 3, 3}, 72, 0, 0},
      {"avg_pool",
       "avg_pool",
       {{1, 2, 7, 7}},
       {{"kernel", 3}, {"stride", 2}, {"padding", 1}},
       {1, 2, 4, 4},
       288,
       0,
       0},
      {"global_avg_pool", "global_avg_pool", {{2, 3, 4, 5}}, {}, {2, 3}, 120, 0, 0},
      // 2 per element; gamma, beta trainable, mean, variance stored
      {"batchnorm", "batchnorm", {{2, 3, 4, 4}}, {}, {2, 3, 4, 4}, 192, 6, 12},
      // 7 per element; gamma, beta
      {"layernorm", "layernorm", {{2, 3, 8}}, {}, {2, 3, 8}, 336, 16, 16},
      // 4 per element; gamma
      {"rms_norm", "rms_norm", {{2, 3, 8}}, {}, {2, 3, 8}, 192, 8, 8},
      // 2 per output element, half the input's
      {"swiglu", "swiglu", {{2, 3, 10}}, {}, {2, 3, 5}, 60, 0, 0},
      // head size 4; 2 items x 2 heads x 3 x 3 pairs, each 2*4 + 2*4 + 3
      {"attention",
       "attention",
       {{2, 3, 8}, {2, 3, 8}, {2, 3, 8}},
       {{"heads", 2}},
       {2, 3, 8},
       684,
       0,
       0},
      // causal, 2 queries at positions 3 and 4 of 5 keys: 4 + 5 pairs per head
      {"attention_causal_cached",
       "attention",
       {{2, 2, 8}, {2, 5, 8}, {2, 5, 8}},
       {{"heads", 2}, {"causal", true}},
       {2, 2, 8},
       684,
       0,
       0},
      // grouped-query, D 4, Dv 3: 4 heads x (3 + 4 + 5 + 6) pairs, each 2*4 + 2*3 + 3
      {"attention_grouped_query",
       "attention",
       {{1, 4, 16}, {1, 6, 8}, {1, 6, 6}},
       {{"heads", 4}, {"kv_heads", 2}, {"causal", true}},
       {1, 4, 12},
       1224,
       0,
       0},
      // 3 per element
      {"rotary", "rotary", {{2, 3, 8}}, {{"heads", 2}}, {2, 3, 8}, 144, 0, 0},
      // appends 3 rows after 4: moves data, computes nothing
      {"kv_cache", "kv_cache", {{2, 3, 8}}, {{"past", 4}}, {2, 7, 8}, 0, 0, 0},
      {"relu", "relu", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"clipped_relu", "clipped_relu", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"sigmoid", "sigmoid", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"tanh", "tanh", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"gelu", "gelu", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      // 3 per element
      {"softmax", "softmax", {{3, 5}}, {}, {3, 5}, 45, 0, 0},
      {"add", "add", {{2, 3, 4}, {3, 1}}, {}, {2, 3, 4}, 24, 0, 0},
      {"mul", "mul", {{4, 1}, {1, 5}}, {}, {4, 5}, 20, 0, 0},
      {"sub", "sub", {{3, 1}, {2, 3, 4}}, {}, {2, 3, 4}, 24, 0, 0},
      {"div", "div", {{2, 5}, {5}}, {}, {2, 5}, 10, 0, 0},
      {"leaky_relu", "leaky_relu", {{3, 4}}, {{"alpha", 0.1}}, {3, 4}, 12, 0, 0},
      // a range of 4 from axis 1 of [2, 7, 3]: data movement only
      {"slice", "slice", {{2, 7, 3}}, {{"axis", 1}, {"start", 2}, {"size", 4}}, {2, 4, 3}, 0, 0, 0},
      // a [2, 3] value is 6 stored parameters
      {"constant", "constant", {}, {{"shape", {2, 3}}}, {2, 3}, 0, 6, 6},
      {"concat", "concat", {{2, 3, 4}, {2, 2, 4}}, {}, {2, 5, 4}, 0, 0, 0},
      {"reshape", "reshape", {{2, 3, 4}}, {{"shape", {-1, 6}}}, {4, 6}, 0, 0, 0},
      {"flatten", "flatten", {{2, 3, 4, 5}}, {{"axis", 2}}, {6, 20}, 0, 0, 0},
      {"transpose", "transpose", {{2, 3, 4}}, {{"perm", {1, 2, 0}}}, {3, 4, 2}, 0, 0, 0},
      // only the axes of size 1 move: the same bytes in the same order, a view
      {"view_transpose_unit_axes",
       "transpose",
       {{1, 3, 1, 4}},
       {{"perm", {1, 2, 0, 3}}},
       {3, 1, 1, 4},
       0,
       0,
       0},
      // an axis of size 1 moves, and so do two others: data moves
      {"transpose_past_unit_axis",
       "transpose",
       {{1, 3, 4}},
       {{"perm", {0, 2, 1}}},
       {1, 4, 3},
       0,
       0,
       0},
      // 2 dirs x N 2 x T 5 x 2 x 4 gates*4 x (3 + 4); per dir 3*16 + 4*16 + 16
      {"lstm_bidirectional",
       "lstm",
       {{2, 5, 3}},
       {{"units", 4}, {"direction", "bidirectional"}},
       {2, 5, 8},
       4480,
       256,
       256},
      {"lstm", "lstm", {{1, 10, 3}}, {{"units", 4}}, {1, 10, 4}, 2240, 128, 128},
      // 1 dir x 2 x 5 x 2 x 12 x 7; 3*12 + 4*12 + 12 + 4
      {"gru", "gru", {{2, 5, 3}}, {{"units", 4}}, {2, 5, 4}, 1680, 100, 100},
      {"gru_bidirectional",
       "gru",
       {{2, 5, 3}},
       {{"units", 4}, {"direction", "bidirectional"}},
       {2, 5, 8},
       3360,
       200,
       200},
      {"hard_sigmoid", "hard_sigmoid", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"hard_swish", "hard_swish", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"swish", "swish", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"sqrt", "sqrt", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"exp", "exp", {{2, 9}}, {}, {2, 9}, 18, 0, 0},
      {"pow", "pow", {{2, 9}}, {{"exponent", 3.0}}, {2, 9}, 18, 0, 0},
      // Output (3 - 1) * 2 + 2 = 6; 18 input pixels x 4 filters x 2x2 taps x 2; kernel [2, 4, 2, 2]
      {"conv_transpose",
       "conv_transpose",
       {{1, 2, 3, 3}},
       {{"filters", 4}, {"kernel", 2}, {"stride", 2}},
       {1, 4, 6, 6},
       576,
       36,
       36},
      // (3 - 1) * 2 + 3 + 1 - 2 = 6; 36 pixels x 3 filters per group x 9 taps x 2; [4, 3, 3, 3] + 6
      {"conv_transpose_grouped",
       "conv_transpose",
       {{1, 4, 3, 3}},
       {{"filters", 6},
        {"kernel", 3},
        {"stride", 2},
        {"padding", 1},
        {"output_padding", 1},
        {"groups", 2}},
       {1, 6, 6, 6},
       1944,
       114,
       114},
      // As PyTorch's MaxPool2d(3, 2, ceil_mode=True): 8 x 7 -> 4 x 3 (floor: 3 x 3).
      {"max_pool_ceil_mode",
       "max_pool",
       {{1, 2, 8, 7}},
       {{"kernel", 3}, {"stride", 2}, {"ceil_mode", true}},
       {1, 2, 4, 3},
       216,
       0,
       0},
      // 5 padded by 1: a fourth window would start in the end padding, so there are 3.
      {"avg_pool_ceil_mode_no_window_in_padding",
       "avg_pool",
       {{1, 1, 5, 5}},
       {{"kernel", 2}, {"stride", 2}, {"padding", 1}, {"ceil_mode", true}},
       {1, 1, 3, 3},
       36,
       0,
       0},
      {"reduce_mean",
       "reduce_mean",
       {{2, 3, 4, 5}},
       {{"axes", {2, 3}}, {"keepdims", false}},
       {2, 3},
       120,
       0,
       0},
      {"reduce_sum", "reduce_sum", {{2, 3, 4}}, {{"axes", {0, -1}}}, {1, 3, 1}, 24, 0, 0},
      {"reduce_max", "reduce_max", {{2, 5, 3}}, {{"axes", {1}}}, {2, 1, 3}, 30, 0, 0},
      {"pad", "pad", {{2, 3, 4}}, {{"pads", {0, 1, 2, 0, 2, 1}}}, {2, 6, 7}, 0, 0, 0},
      {"resize_nearest", "resize", {{1, 2, 3, 4}}, {{"size", {6, 8}}}, {1, 2, 6, 8}, 0, 0, 0},
      // 3 multiply-adds per output element.
      {"resize_linear",
       "resize",
       {{1, 2, 3, 4}},
       {{"size", {6, 8}}, {"mode", "linear"}},
       {1, 2, 6, 8},
       576,
       0,
       0},
      {"embedding", "embedding", {{2, 5}}, {{"vocab", 7}, {"dim", 3}}, {2, 5, 3}, 0, 21, 21},
      // Comparisons: one per output element.
      {"equal", "equal", {{2, 3, 4}, {3, 1}}, {}, {2, 3, 4}, 24, 0, 0},
      {"less", "less", {{1, 4}, {2, 3, 4}}, {}, {2, 3, 4}, 24, 0, 0},
      {"greater", "greater", {{5}, {5}}, {}, {5}, 5, 0, 0},
      // Selection and broadcasting move data: no arithmetic.
      {"where", "where", {{2, 1, 4}, {2, 3, 4}, {1}}, {}, {2, 3, 4}, 0, 0, 0},
      {"expand", "expand", {{2, 1, 4}}, {{"shape", {3, 2, 3, 4}}}, {3, 2, 3, 4}, 0, 0, 0},
      {"copy", "copy", {{2, 7}}, {}, {2, 7}, 0, 0, 0},
      {"reorder", "reorder", {{1, 2, 3, 3}}, {{"layout", "nhwc"}}, {1, 2, 3, 3}, 0, 0, 0},
      // 1 s at 16 kHz: 98 frames of 400 samples; per frame 400 (window) + 8643 (FFT:
      // 2.5 * 400 * log2 400) + 603 (power) + 10452 (26 bands x 201 bins x 2) + 26 (log) + 1352
      // (26 x 26 x 2) = 21476.
      {"mfcc", "mfcc", {{1, 16000}}, {}, {1, 98, 26}, 98 * 21476, 0, 0},
      {"context_window", "context_window", {{1, 98, 26}}, {}, {1, 98, 494}, 0, 0, 0},
      // T 50, N 2, C 29, beam 8: 2 * 50 * 2 * 29 * 8.
      {"ctc_beam_decoder",
       "ctc_beam_decoder",
       {{50, 2, 29}},
       {{"beam_width", 8}},
       {2, 50},
       46400,
       0,
       0},
  };
  return cases;
}

class OpCost : public ::testing::TestWithParam<CostCase> {};

TEST_P(OpCost, MatchesHandComputedValues) {
  const CostCase& c = GetParam();
  const ResolvedTopology t = Resolve(SingleLayer(c.op, c.inputs, c.attrs), {});
  const ResolvedLayer& l = t.layers[0];
  EXPECT_EQ(l.output_shapes[0], c.output);
  for (Precision p : {f32, bf16, i8}) {
    const Cost cost = LayerCost(l, p);
    EXPECT_EQ(cost.flops, c.flops);
    EXPECT_EQ(cost.params, c.params);
    EXPECT_EQ(cost.weight_bytes, c.weight_elements * ElementBytes(p));
    int64_t in = 0;
    for (const Shape& s : c.inputs) in += NumElements(s);
    const bool view = c.op == "reshape" || c.op == "flatten" || c.label.rfind("view_", 0) == 0;
    EXPECT_EQ(l.is_view, view);
    EXPECT_EQ(cost.input_bytes, view ? 0 : in * ElementBytes(p));
    // A cache writes the rows it appends, its input's (AKvCacheWritesOnlyTheRowsItAppends).
    const int64_t written = c.op == "kv_cache" ? in : NumElements(c.output);
    EXPECT_EQ(cost.output_bytes, view ? 0 : written * ElementBytes(p));
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpCost, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<CostCase>& info) {
                           return info.param.label;
                         });

TEST(OpCostCoverage, EveryOpInTheCatalogHasACase) {
  std::set<std::string> covered;
  for (const CostCase& c : Cases()) covered.insert(c.op);
  for (const OpDef& op : AllOps()) EXPECT_TRUE(covered.count(op.name)) << op.name;
}

TEST(Cost, IntensityIsFlopsPerByteMoved) {
  const ResolvedTopology t = Resolve(SingleLayer("dense", {{2, 7}}, {{"units", 5}}), {});
  // 140 FLOPs / (160 weight + 56 input + 40 output bytes)
  EXPECT_DOUBLE_EQ(LayerCost(t.layers[0], f32).Intensity(), 140.0 / 256.0);
  EXPECT_DOUBLE_EQ(Cost{}.Intensity(), 0.0);
}

// A cache is state: an inference writes only the rows it appends, and the whole cache is live
// from its first step (earlier inferences filled it) to its last.
TEST(Cost, AKvCacheWritesOnlyTheRowsItAppendsAndStaysLive) {
  const ResolvedTopology t = Resolve(SingleLayer("kv_cache", {{2, 3, 8}}, {{"past", 4}}), {});
  const Cost c = LayerCost(t.layers[0], f32);
  EXPECT_EQ(c.input_bytes, 2 * 3 * 8 * 4);
  EXPECT_EQ(c.output_bytes, 2 * 3 * 8 * 4) << "not the cache's 2 x 7 rows";
  const TopologyAnalysis a = Analyze(t, f32);
  EXPECT_EQ(a.kv_cache_bytes_per_token, 8 * 4);
  EXPECT_EQ(a.kv_cache_layers, 1);
  EXPECT_EQ(a.peak_activation_bytes, (2 * 3 * 8 + 2 * 7 * 8) * 4);
  EXPECT_EQ(AnalyzeTensorUses(t).LastUse(t.layers[0].outputs[0]), TensorUses::kForever);
}

// A cache bounded by the model's context refuses past + new rows beyond it, naming the layer
// and field; at the bound it resolves.
TEST(Cost, AKvCacheRefusesRowsBeyondItsCapacity) {
  EXPECT_NO_THROW(
      Resolve(SingleLayer("kv_cache", {{2, 3, 8}}, {{"past", 4}, {"capacity", 7}}), {}));
  try {
    Resolve(SingleLayer("kv_cache", {{2, 3, 8}}, {{"past", 5}, {"capacity", 7}}), {});
    ADD_FAILURE() << "5 + 3 rows in a cache of 7 were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "capacity");
    EXPECT_NE(e.message().find("5 cached + 3 new rows are more than the cache's 7"),
              std::string::npos)
        << e.message();
  }
}

Topology Parse(const std::string& text) { return ParseTopologyJson(text, "liveness.json"); }

TEST(Liveness, PeakCountsLiveTensorsAndFreesDeadOnes) {
  // x, a = relu(x), b = relu(x), c = relu(b); outputs a and c; 40 bytes each.
  const Topology t = Parse(R"({"name": "l", "inputs": [{"name": "x", "shape": [1, 10]}],
    "layers": [{"name": "a", "op": "relu"}, {"name": "b", "op": "relu", "inputs": ["x"]},
               {"name": "c", "op": "relu"}],
    "outputs": ["a", "c"]})");
  const TopologyAnalysis a = Analyze(Resolve(t, {}), f32);
  // step 0: x a; step 1: x a b; step 2: a b c (x is dead, a is an output)
  EXPECT_EQ(a.peak_activation_bytes, 120);
  EXPECT_EQ(a.peak_layer, 1);
  EXPECT_EQ(Analyze(Resolve(t, {}), i8).peak_activation_bytes, 30);
}

TEST(Liveness, ViewsShareStorage) {
  // r = reshape(x) is x's storage; s = relu(r): x (kept alive through r) and s.
  const Topology t = Parse(R"({"name": "l", "inputs": [{"name": "x", "shape": [2, 5]}],
    "layers": [{"name": "r", "op": "reshape", "shape": [10]}, {"name": "s", "op": "relu"},
               {"name": "u", "op": "relu"}]})");
  const TopologyAnalysis a = Analyze(Resolve(t, {}), f32);
  // step 1: x + s = 80; step 2: s + u = 80 (x dead after step 1)
  EXPECT_EQ(a.peak_activation_bytes, 80);
  EXPECT_EQ(a.layers[0].cost.output_bytes, 0);
}

// Readers and last uses, computed once for the analysis and the backends: a view's readers keep
// its source's storage alive, and a graph output that is a view keeps its source forever.
TEST(TensorUses, ReadersAndLastUsesFollowViewsToTheirStorage) {
  const Topology t = Parse(R"({"name": "l", "inputs": [{"name": "x", "shape": [2, 5]}],
    "layers": [{"name": "a", "op": "relu"}, {"name": "r", "op": "reshape", "shape": [10]},
               {"name": "s", "op": "relu"}, {"name": "u", "op": "add", "inputs": ["a", "a"]},
               {"name": "v", "op": "reshape", "inputs": ["u"], "shape": [10]}],
    "outputs": ["s", "v"]})");
  const TensorUses u = AnalyzeTensorUses(Resolve(t, {}));
  ASSERT_EQ(u.ReadersOf("a").size(), 3u);  // r, and u twice
  EXPECT_EQ(u.ReadersOf("a")[1].layer, 3);
  EXPECT_EQ(u.ReadersOf("a")[2].input, 1);
  EXPECT_TRUE(u.ReadersOf("s").empty());
  EXPECT_EQ(u.storage.at("r"), "a");
  EXPECT_EQ(u.LastUse("x"), 0);
  EXPECT_EQ(u.LastUse("a"), 3);  // read through r by s (2), and by u (3)
  EXPECT_EQ(u.LastUse("r"), 3);  // r is a's storage
  EXPECT_EQ(u.LastUse("s"), TensorUses::kForever);
  EXPECT_EQ(u.LastUse("u"), TensorUses::kForever);  // v, a view of it, is a graph output
  EXPECT_TRUE(u.IsGraphOutput("v"));
  EXPECT_FALSE(u.IsGraphOutput("u"));
}

TEST(Markers, SumTheirLayers) {
  const Topology t = ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json"));
  const ResolvedTopology r = Resolve(t, {{"N", 2}});
  const TopologyAnalysis a = Analyze(r, f32, ResolveMarkers(r, {{"all", "conv1", "probs"}}));
  ASSERT_EQ(a.markers.size(), 3u);
  EXPECT_EQ(a.markers[0].name, "stem");
  EXPECT_EQ(a.markers[0].cost.flops,
            a.layers[0].cost.flops + a.layers[1].cost.flops + a.layers[2].cost.flops);
  EXPECT_EQ(a.markers[2].name, "all");
  EXPECT_EQ(a.markers[2].cost.flops, a.total.flops);
  EXPECT_EQ(a.markers[2].cost.params, a.total.params);
}

TEST(FusedCost, IntermediatesStayInRegistersButAResidualOperandIsRead) {
  // c = conv(x) [1,2,4,4]; b = batchnorm(c); r = relu(b); s = add(r, x); t = relu(s).
  const Topology t = Parse(R"({"name": "f", "inputs": [{"name": "x", "shape": [1, 2, 4, 4]}],
    "layers": [{"name": "c", "op": "conv2d", "filters": 2, "kernel": 1, "bias": false},
               {"name": "b", "op": "batchnorm"}, {"name": "r", "op": "relu"},
               {"name": "s", "op": "add", "inputs": ["r", "x"]}, {"name": "t", "op": "relu"}]})");
  const TopologyAnalysis a = Analyze(Resolve(t, {}), f32);
  const int64_t tensor = 32 * 4;          // every tensor: 32 f32 values
  const Cost chain = FusedCost(a, 0, 2);  // c + b + r
  EXPECT_EQ(chain.input_bytes, tensor);
  EXPECT_EQ(chain.output_bytes, tensor);
  EXPECT_EQ(chain.flops, a.layers[0].cost.flops + a.layers[1].cost.flops + a.layers[2].cost.flops);
  EXPECT_EQ(chain.weight_bytes, a.layers[0].cost.weight_bytes + a.layers[1].cost.weight_bytes);
  const Cost all = FusedCost(a, 0, 4);  // ... + s + t: s also reads x
  EXPECT_EQ(all.input_bytes, 2 * tensor);
  EXPECT_EQ(all.output_bytes, tensor);
  EXPECT_EQ(FusedCost(a, 3, 0).input_bytes, a.layers[3].cost.input_bytes);  // nothing fused
}

int64_t ConvAndDenseFlops(const TopologyAnalysis& a) {
  int64_t flops = 0;
  for (const LayerAnalysis& l : a.layers)
    flops += (l.op == "conv2d" || l.op == "dense") ? l.cost.flops : 0;
  return flops;
}

TEST(ShippedTopologies, ParameterCountsMatchTheReferenceModels) {
  const auto resnet =
      Analyze(Resolve(ReadTopologyJsonFile(SourcePath("topologies/resnet50.json")), {}), f32);
  EXPECT_EQ(resnet.total.params, 25557032);  // torchvision resnet50
  EXPECT_NEAR(ConvAndDenseFlops(resnet) / 1e9, 8.178, 0.001);
  const auto mobilenet =
      Analyze(Resolve(ReadTopologyJsonFile(SourcePath("topologies/mobilenet_v2.json")), {}), f32);
  EXPECT_EQ(mobilenet.total.params, 3504872);  // torchvision mobilenet_v2
  EXPECT_NEAR(ConvAndDenseFlops(mobilenet) / 1e9, 0.6015, 0.0005);
  const auto mlp =
      Analyze(Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {}), f32);
  EXPECT_EQ(mlp.total.params, 784 * 1024 + 1024 + 1024 * 1024 + 1024 + 1024 * 10 + 10);
}

// The transformers against the reference models' own counts, and a decoder's KV cache.
TEST(ShippedTopologies, TransformerCountsMatchTheReferenceModels) {
  auto analyze = [](const char* file, const ParamEnv& params = {}, Precision p = f32) {
    return Analyze(Resolve(ReadTopologyJsonFile(SourcePath(file)), params), p);
  };
  const auto llama = analyze("topologies/llama.json");
  EXPECT_EQ(llama.total.params, 1100048384);  // TinyLlama-1.1B
  // 22 layers x (k + v) x 4 key/value heads x 64 x 4 bytes.
  EXPECT_EQ(llama.kv_cache_bytes_per_token, 22 * 2 * 4 * 64 * 4);
  EXPECT_EQ(llama.kv_cache_layers, 44);  // keys and values of 22 blocks
  EXPECT_EQ(analyze("topologies/llama.json", {{"layers", 3}}, bf16).kv_cache_bytes_per_token,
            3 * 2 * 4 * 64 * 2);
  // i8 runs keep their caches in f32 (no backend quantizes keys and values).
  EXPECT_EQ(analyze("topologies/llama.json", {{"layers", 3}}, i8).kv_cache_bytes_per_token,
            3 * 2 * 4 * 64 * 4);
  // torchvision vit_b_16: 86,567,656 parameters.
  EXPECT_EQ(analyze("topologies/vit.json").total.params, 86567656);
  // Hugging Face's bert-base-uncased (109,482,240) less its 512 - 128 unused positions and its
  // token-type table (2 x 768).
  const auto bert = analyze("topologies/bert.json");
  EXPECT_EQ(bert.total.params, 109482240 - (512 - 128) * 768 - 2 * 768);
  EXPECT_EQ(bert.kv_cache_layers, 0);  // an encoder caches nothing
  // Causal attention counts the pairs it attends: half the square and the diagonal.
  const auto gpt2 = analyze("topologies/gpt2.json", {{"prompt", 64}, {"layers", 1}});
  for (const LayerAnalysis& l : gpt2.layers) {
    if (l.op == "attention") {
      EXPECT_EQ(l.cost.flops, 12 * (64 * 65 / 2) * (2 * 64 + 2 * 64 + 3));
    }
  }
}

TEST(ShippedTopologies, DeepSpeechCountsEveryStepAndBothDirections) {
  const Topology t = ReadTopologyJsonFile(SourcePath("topologies/deepspeech.json"));
  const ResolvedTopology r = Resolve(t, {});
  EXPECT_EQ(r.shapes.at("features"), (Shape{1, 100, 494}));
  const TopologyAnalysis a = Analyze(r, f32);
  const int64_t h = 2048, steps = 100;
  const int64_t lstm = 2 /*dirs*/ * steps * 2 * 4 * h * (h + h);
  EXPECT_EQ(a.layers[3].name, "bilstm");
  EXPECT_EQ(a.layers[3].cost.flops, lstm);
  EXPECT_EQ(a.layers[3].cost.params, 2 * (4 * h * h + 4 * h * h + 4 * h));
  const int64_t dense = steps * 2 * (494 * h + 2 * h * h + 2 * h * h + h * 29);
  EXPECT_EQ(ConvAndDenseFlops(a) + lstm, dense + lstm);
  EXPECT_EQ(ConvAndDenseFlops(a) + lstm, 16991436800);  // 169.9 M per step
  EXPECT_EQ(a.total.params, 84981789);
  // Batch and params scale it: N 4, T 50, n_hidden 1024.
  const TopologyAnalysis b = Analyze(Resolve(t, {{"N", 4}, {"T", 50}, {"n_hidden", 1024}}), f32);
  EXPECT_EQ(b.layers[3].cost.flops, int64_t{2} * 4 * 50 * 2 * 4 * 1024 * 2048);
}

}  // namespace
}  // namespace ntpb::testing
