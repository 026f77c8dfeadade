// Every op of the Eigen backend against the naive loop implementation, on small shapes.
#include <gtest/gtest.h>

#include <set>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/op_catalog.h"
#include "ntpbench/random_data.h"
#include "tests/backends/naive_ops.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

using nlohmann::json;

struct OpCase {
  std::string label;
  std::string op;
  std::vector<Shape> inputs;
  json attrs;
};

std::ostream& operator<<(std::ostream& os, const OpCase& c) { return os << c.label; }

const std::vector<OpCase>& Cases() {
  static const std::vector<OpCase> cases = {
      {"dense", "dense", {{3, 7}}, {{"units", 5}}},
      {"dense_3d_relu", "dense", {{2, 4, 6}}, {{"units", 3}, {"activation", "relu"}}},
      {"dense_clipped",
       "dense",
       {{2, 6}},
       {{"units", 4}, {"activation", "clipped_relu"}, {"clip", 0.1}}},
      {"dense_nobias_gelu",
       "dense",
       {{2, 5}},
       {{"units", 4}, {"bias", false}, {"activation", "gelu"}}},
      {"dense_sigmoid", "dense", {{2, 5}}, {{"units", 4}, {"activation", "sigmoid"}}},
      {"dense_tanh", "dense", {{2, 5}}, {{"units", 4}, {"activation", "tanh"}}},
      // Wide enough for the column-split multiply of few-row products (2 threads).
      {"dense_wide_columns_split", "dense", {{2, 20}}, {{"units", 301}, {"activation", "tanh"}}},
      {"matmul", "matmul", {{2, 3, 4}, {2, 4, 5}}, {}},
      {"matmul_shared_rhs", "matmul", {{2, 3, 4}, {4, 2}}, {}},
      {"conv2d", "conv2d", {{2, 3, 7, 6}}, {{"filters", 4}, {"kernel", 3}, {"padding", 1}}},
      {"conv2d_stride_dilation",
       "conv2d",
       {{1, 2, 9, 9}},
       {{"filters", 3}, {"kernel", 3}, {"stride", 2}, {"dilation", 2}, {"padding", {2, 1}}}},
      {"conv2d_rect_kernel",
       "conv2d",
       {{1, 2, 6, 8}},
       {{"filters", 2}, {"kernel", {1, 3}}, {"padding", {0, 1, 0, 2}}, {"activation", "relu"}}},
      {"conv2d_grouped", "conv2d", {{2, 4, 5, 5}}, {{"filters", 6}, {"kernel", 3}, {"groups", 2}}},
      {"conv2d_depthwise",
       "conv2d",
       {{2, 4, 6, 6}},
       {{"filters", 4}, {"kernel", 3}, {"groups", 4}, {"padding", 1}, {"stride", 2}}},
      {"conv2d_depthwise_multiplier",
       "conv2d",
       {{1, 3, 5, 5}},
       {{"filters", 6},
        {"kernel", 3},
        {"groups", 3},
        {"bias", false},
        {"activation", "clipped_relu"},
        {"clip", 0.2}}},
      {"conv2d_depthwise_dilated_padded",
       "conv2d",
       {{1, 2, 9, 8}},
       {{"filters", 2},
        {"kernel", 3},
        {"groups", 2},
        {"dilation", 2},
        {"stride", {1, 3}},
        {"padding", {1, 2, 0, 3}}}},
      // Padding wider than the kernel's reach: some taps see no valid column at all.
      {"conv2d_depthwise_wide_padding",
       "conv2d",
       {{1, 1, 3, 2}},
       {{"filters", 1}, {"kernel", {1, 4}}, {"stride", {1, 2}}, {"padding", {0, 0, 0, 5}}}},
      {"conv2d_pointwise", "conv2d", {{2, 5, 4, 4}}, {{"filters", 3}, {"kernel", 1}}},
      {"conv2d_same",
       "conv2d",
       {{1, 2, 7, 7}},
       {{"filters", 2}, {"kernel", 4}, {"stride", 2}, {"padding", "same"}}},
      {"max_pool", "max_pool", {{2, 3, 7, 7}}, {{"kernel", 3}, {"stride", 2}, {"padding", 1}}},
      {"max_pool_default_stride", "max_pool", {{1, 2, 6, 6}}, {{"kernel", 2}}},
      {"avg_pool", "avg_pool", {{2, 3, 7, 7}}, {{"kernel", 3}, {"stride", 2}, {"padding", 1}}},
      {"avg_pool_include_pad",
       "avg_pool",
       {{1, 2, 5, 5}},
       {{"kernel", 3}, {"stride", 1}, {"padding", 1}, {"count_include_pad", true}}},
      {"global_avg_pool", "global_avg_pool", {{2, 3, 4, 5}}, {}},
      {"batchnorm", "batchnorm", {{2, 3, 4, 4}}, {}},
      {"batchnorm_2d", "batchnorm", {{4, 6}}, {{"epsilon", 0.001}}},
      {"layernorm", "layernorm", {{2, 3, 8}}, {}},
      {"relu", "relu", {{2, 9}}, {}},
      {"clipped_relu", "clipped_relu", {{2, 9}}, {{"clip", 0.5}}},
      {"sigmoid", "sigmoid", {{3, 4}}, {}},
      {"tanh", "tanh", {{3, 4}}, {}},
      {"gelu", "gelu", {{3, 4}}, {}},
      {"gelu_tanh", "gelu", {{3, 4}}, {{"approximate", "tanh"}}},
      {"softmax", "softmax", {{3, 5}}, {}},
      {"softmax_axis1", "softmax", {{2, 4, 3}}, {{"axis", 1}}},
      {"add", "add", {{2, 3, 4}, {2, 3, 4}}, {}},
      {"add_broadcast", "add", {{2, 3, 4}, {3, 1}}, {}},
      {"sub", "sub", {{2, 3, 4}, {2, 3, 4}}, {}},
      {"sub_broadcast", "sub", {{3, 1}, {2, 3, 4}}, {}},
      {"div", "div", {{2, 5}, {2, 5}}, {}},
      {"div_broadcast", "div", {{2, 1, 4}, {3, 1}}, {}},
      {"leaky_relu", "leaky_relu", {{2, 9}}, {{"alpha", 0.2}}},
      {"slice", "slice", {{2, 7, 3}}, {{"axis", 1}, {"start", 2}, {"size", 4}}},
      {"slice_last_axis", "slice", {{2, 3, 5}}, {{"axis", -1}, {"start", 4}, {"size", 1}}},
      {"constant", "constant", {}, {{"shape", {2, 3}}}},
      {"mul", "mul", {{2, 5}, {2, 5}}, {}},
      {"mul_broadcast", "mul", {{2, 1, 4}, {3, 1}}, {}},
      {"concat", "concat", {{2, 3, 4}, {2, 2, 4}}, {}},
      {"concat_last_axis", "concat", {{2, 3}, {2, 1}, {2, 2}}, {{"axis", -1}}},
      {"reshape", "reshape", {{2, 3, 4}}, {{"shape", {4, -1}}}},
      {"flatten", "flatten", {{2, 3, 2, 2}}, {}},
      {"transpose", "transpose", {{2, 3, 4}}, {{"perm", {2, 0, 1}}}},
      {"lstm", "lstm", {{2, 4, 3}}, {{"units", 5}}},
      {"lstm_reverse", "lstm", {{1, 3, 4}}, {{"units", 2}, {"direction", "reverse"}}},
      {"lstm_bidirectional", "lstm", {{2, 5, 3}}, {{"units", 4}, {"direction", "bidirectional"}}},
      {"lstm_wide_columns_split",
       "lstm",
       {{2, 3, 5}},
       {{"units", 40}, {"direction", "bidirectional"}}},
      {"gru", "gru", {{2, 4, 3}}, {{"units", 5}}},
      {"gru_reverse", "gru", {{1, 3, 2}}, {{"units", 3}, {"direction", "reverse"}}},
      {"gru_bidirectional", "gru", {{2, 3, 3}}, {{"units", 2}, {"direction", "bidirectional"}}},
      {"gru_wide_columns_split", "gru", {{1, 3, 4}}, {{"units", 50}}},
      {"copy", "copy", {{2, 7}}, {}},
      {"reorder", "reorder", {{1, 2, 3, 3}}, {{"layout", "nhwc"}}},
  };
  return cases;
}

class EigenOpTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(EigenOpTest, MatchesNaiveLoops) {
  const OpCase& c = GetParam();
  const ResolvedTopology t = Resolve(SingleLayer(c.op, c.inputs, c.attrs), {});
  RunConfig config;
  config.seed = 7;
  config.threads = 2;
  auto exe = FindBackend("eigen")->Compile(t, config);
  exe->Run();

  std::vector<Values> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    inputs.push_back(exe->ReadTensor(name));
    ASSERT_EQ(inputs.back(), RandomInput(config.seed, name, NumElements(c.inputs[i])));
  }
  std::vector<Values> weights;
  for (const WeightSpec& w : t.layers[0].weights) weights.push_back(RandomWeight(7, "layer", w));
  const Values expected = NaiveOp(t.layers[0], inputs, weights);
  const Values actual = exe->ReadTensor("y");
  ASSERT_EQ(actual.size(), static_cast<size_t>(NumElements(t.layers[0].output_shapes[0])));
  EXPECT_LT(MaxRelativeError(actual, expected), 2e-5) << c.label;

  // Running again gives the same numbers (no state leaks between runs).
  exe->Run();
  EXPECT_EQ(exe->ReadTensor("y"), actual);
}

INSTANTIATE_TEST_SUITE_P(AllOps, EigenOpTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           return info.param.label;
                         });

TEST(EigenOpCoverage, EveryOpInTheCatalogHasACase) {
  std::set<std::string> covered;
  for (const OpCase& c : Cases()) covered.insert(c.op);
  for (const OpDef& op : AllOps()) EXPECT_TRUE(covered.count(op.name)) << op.name;
}

TEST(EigenBackend, RefusesLowerPrecisionsWithAReason) {
  const ResolvedTopology t = Resolve(SingleLayer("relu", {{2, 2}}, {}), {});
  RunConfig config;
  config.precision = Precision::kBf16;
  const Support s = FindBackend("eigen")->Supports(t, config);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("f32 only"), std::string::npos) << s.reason;
  EXPECT_THROW(FindBackend("eigen")->Compile(t, config), Error);
}

TEST(EigenBackend, SameSeedSameOutputsDifferentSeedDifferent) {
  const ResolvedTopology t = Resolve(SingleLayer("dense", {{2, 8}}, {{"units", 4}}), {});
  RunConfig a, b;
  b.seed = a.seed + 1;
  auto e1 = FindBackend("eigen")->Compile(t, a);
  auto e2 = FindBackend("eigen")->Compile(t, a);
  auto e3 = FindBackend("eigen")->Compile(t, b);
  e1->Run();
  e2->Run();
  e3->Run();
  EXPECT_EQ(e1->ReadTensor("y"), e2->ReadTensor("y"));
  EXPECT_NE(e1->ReadTensor("y"), e3->ReadTensor("y"));
}

TEST(EigenBackend, WrittenInputsAreUsed) {
  const ResolvedTopology t = Resolve(SingleLayer("relu", {{1, 4}}, {}), {});
  auto exe = FindBackend("eigen")->Compile(t, RunConfig{});
  exe->WriteTensor("x0", {-1.0f, 2.0f, -3.0f, 4.0f});
  exe->Run();
  EXPECT_EQ(exe->ReadTensor("y"), (std::vector<float>{0.0f, 2.0f, 0.0f, 4.0f}));
  EXPECT_THROW(exe->WriteTensor("x0", {1.0f}), Error);
  EXPECT_THROW(exe->ReadTensor("nope"), Error);
}

}  // namespace
}  // namespace ntpb::testing
