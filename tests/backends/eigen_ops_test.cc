// Every op of the Eigen backend against the naive loop implementation, on small shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "src/backends/random_data.h"
#include "src/ops/activations.h"
#include "src/topology/op_catalog.h"
#include "tests/backends/naive_ops.h"
#include "tests/backends/op_cases.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

using nlohmann::json;

class EigenOpTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(EigenOpTest, MatchesNaiveLoops) {
  const OpCase& c = GetParam();
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  RunConfig config;
  config.seed = 7;
  config.threads = 2;
  auto exe = FindBackend("eigen")->Compile(t, config);
  exe->Run();

  std::vector<Values> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    inputs.push_back(exe->ReadTensor(name));
    ASSERT_EQ(inputs.back(), RandomGraphInput(config.seed, t, name, c.inputs[i]));
  }
  if (c.nonnegative_inputs) {
    for (Values& in : inputs)
      for (float& v : in) v *= v;
  }
  const ResolvedLayer& layer = t.layers.back();
  std::vector<Values> weights;
  for (const WeightSpec& w : layer.weights) weights.push_back(RandomWeight(7, "layer", w));
  const std::vector<std::string> outputs = OpCaseOutputs(c);
  std::vector<Values> actual;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Values expected = NaiveOp(layer, inputs, weights, o);
    actual.push_back(exe->ReadTensor(outputs[o]));
    ASSERT_EQ(actual[o].size(), static_cast<size_t>(NumElements(layer.output_shapes[o])));
    EXPECT_LT(MaxRelativeError(actual[o], expected), 2e-5) << c.label << " " << outputs[o];
  }

  // Running again gives the same numbers (no state leaks between runs).
  exe->Run();
  for (size_t o = 0; o < outputs.size(); ++o) EXPECT_EQ(exe->ReadTensor(outputs[o]), actual[o]);
}

INSTANTIATE_TEST_SUITE_P(AllOps, EigenOpTest, ::testing::ValuesIn(OpCases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           return info.param.label;
                         });

TEST(EigenOpCoverage, EveryOpInTheCatalogHasACase) {
  std::set<std::string> covered;
  for (const OpCase& c : OpCases()) covered.insert(c.op);
  for (const OpDef& op : AllOps()) EXPECT_TRUE(covered.count(op.name)) << op.name;
}

// One activation table (src/ops/activations.h): the catalogue's "activation" values, the ops, and
// a fused activation computing what the op of the same name computes.
TEST(ActivationTable, TheCatalogAndTheKernelsFollowIt) {
  std::vector<std::string> fusable;
  for (const ActivationDef& d : Activations()) {
    if (d.fusable) fusable.push_back(d.name);
    if (d.op) {
      EXPECT_NE(FindOp(d.name), nullptr) << d.name;
    }
  }
  for (const char* host : {"dense", "conv2d"}) {
    const OpDef* op = FindOp(host);
    ASSERT_NE(op, nullptr);
    const auto attr = std::find_if(op->attrs.begin(), op->attrs.end(),
                                   [](const AttrDef& a) { return a.name == "activation"; });
    ASSERT_NE(attr, op->attrs.end()) << host;
    EXPECT_EQ(attr->choices, fusable) << host;
  }
  RunConfig config;
  config.seed = 3;
  const ResolvedTopology plain = Resolve(SingleLayer("dense", {{2, 8}}, {{"units", 4}}), {});
  auto plain_exe = FindBackend("eigen")->Compile(plain, config);
  plain_exe->Run();
  const std::vector<float> linear = plain_exe->ReadTensor("y");
  for (const ActivationDef& d : Activations()) {
    if (!d.fusable || !d.op) continue;
    const ResolvedTopology fused =
        Resolve(SingleLayer("dense", {{2, 8}}, {{"units", 4}, {"activation", d.name}}), {});
    auto fused_exe = FindBackend("eigen")->Compile(fused, config);
    fused_exe->Run();
    const ResolvedTopology alone = Resolve(SingleLayer(d.name, {{2, 4}}, {}), {});
    auto alone_exe = FindBackend("eigen")->Compile(alone, config);
    alone_exe->WriteTensor("x0", linear);
    alone_exe->Run();
    EXPECT_EQ(fused_exe->ReadTensor("y"), alone_exe->ReadTensor("y")) << d.name;
  }
  EXPECT_NE(ActivationCodeDefines().find("#define ACT_GELU_TANH 6\n"), std::string::npos);
}

TEST(EigenBackend, RefusesI8WithAReason) {
  const ResolvedTopology t = Resolve(SingleLayer("relu", {{2, 2}}, {}), {});
  RunConfig config;
  config.precision = Precision::kI8;
  const Support s = FindBackend("eigen")->Supports(t, config);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("not i8"), std::string::npos) << s.reason;
  EXPECT_THROW(FindBackend("eigen")->Compile(t, config), Error);
}

// f16 and bf16 are stored values: a step's output is the f32 result rounded to the format
// (round to nearest even), and so is a graph input written later.
TEST(EigenBackend, F16AndBf16RoundWhatTheyStore) {
  const ResolvedTopology t = Resolve(SingleLayer("relu", {{1, 3}}, {}), {});
  // 1 + 2^-9 is an f16 (10-bit mantissa), not a bf16 (7 bits); pi rounds to 3.140625 in both.
  const std::vector<float> in = {1.0f + 1.0f / 512, 3.14159265f, -2.0f};
  for (const auto& [precision, one] :
       {std::pair{Precision::kF16, 1.0f + 1.0f / 512}, std::pair{Precision::kBf16, 1.0f}}) {
    RunConfig config;
    config.precision = precision;
    const auto exe = FindBackend("eigen")->Compile(t, config);
    exe->WriteTensor(t.inputs[0].first, in);
    exe->Run();
    const std::vector<float> out = exe->ReadTensor(t.outputs[0]);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0], one) << PrecisionName(precision);
    EXPECT_EQ(out[1], 3.140625f) << PrecisionName(precision);
    EXPECT_EQ(out[2], 0.0f);
    EXPECT_NE(FindBackend("eigen")->PrecisionPath(precision).find("f32 arithmetic"),
              std::string::npos);
  }
}

// A framework keeps token ids as integers at any precision: an embedding looks up the row it is
// given, not the id rounded to f16 (exact to 2048) or bf16 (exact to 256).
TEST(EigenBackend, TokenIdsStayExactInF16AndBf16) {
  Topology lookup = SingleLayer("embedding", {{1, 3}}, {{"vocab", 5000}, {"dim", 2}});
  lookup.inputs.at(0).integers = IntegerBounds{"0", "5000"};
  const ResolvedTopology t = Resolve(lookup, {});
  const std::vector<float> ids = {257.0f, 2049.0f, 4999.0f};  // none a bf16 or an f16
  RunConfig f32;
  const auto reference = FindBackend("eigen")->Compile(t, f32);
  reference->WriteTensor(t.inputs[0].first, ids);
  reference->Run();
  for (const Precision precision : {Precision::kF16, Precision::kBf16}) {
    RunConfig config;
    config.precision = precision;
    const auto exe = FindBackend("eigen")->Compile(t, config);
    exe->WriteTensor(t.inputs[0].first, ids);
    exe->Run();
    const std::vector<float> want = reference->ReadTensor(t.outputs[0]);
    const std::vector<float> got = exe->ReadTensor(t.outputs[0]);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      // The row's values are rounded as stored weights; the right row is within that rounding.
      EXPECT_NEAR(got[i], want[i], std::abs(want[i]) / 128) << PrecisionName(precision) << " " << i;
    }
  }
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
