// Every backend of this build against the Eigen reference, op case by op case, in f32 with the
// same seed (same weights and inputs). A new backend is checked here without a line of test code;
// its own tests add what is particular to it (lower precisions, fusion, layouts).
// Tolerance 1e-4 relative: kernels sum in other orders and use their own exp/tanh.
#include <gtest/gtest.h>

#include <array>
#include <tuple>

#include "ntpbench/backend.h"
#include "ntpbench/json_format.h"
#include "src/bench/accuracy.h"
#include "src/bench/generation.h"
#include "src/topology/numeric_outputs.h"
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
  // failure. Any other refusal fails: every backend runs every op, but an engine of a fixed
  // operator set (XNNPACK), whose own tests say which ops it must run.
  const Backend* b = FindBackend(backend);
  if (b->HasDevices()) {
    std::string why;
    if (b->Devices(&why).empty()) GTEST_SKIP() << backend << " has no device here: " << why;
  }
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  RunConfig config;
  config.seed = 7;
  config.threads = 2;
  if (const Support s = b->Supports(t, config); !s.ok && !b->RunsEveryOp()) {
    GTEST_SKIP() << backend << " has no operator for it: " << s.reason;
  }
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
  const std::unique_ptr<Executable> exe = FindBackend(backend)->Compile(t, config);
  reference->Run();
  exe->Run();
  for (const std::string& y : OpCaseOutputs(c)) {
    const std::vector<float> expected = reference->ReadTensor(y), actual = exe->ReadTensor(y);
    ASSERT_EQ(actual.size(), expected.size()) << backend << " " << c.label << " " << y;
    EXPECT_LT(MaxRelativeError(actual, expected), kF32Tolerance)
        << backend << " " << c.label << " " << y;
    exe->Run();  // again: no state carried between inferences
    EXPECT_EQ(exe->ReadTensor(y), actual) << backend << " " << c.label << " " << y;
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, BackendOpTest,
                         ::testing::Combine(::testing::ValuesIn(BackendsUnderTest()),
                                            ::testing::ValuesIn(OpCases())),
                         [](const ::testing::TestParamInfo<BackendOpTest::ParamType>& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param).label;
                         });
// A build with the reference backend alone has nothing to compare.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackendOpTest);

// Every shipped topology, whole, at toy sizes: its outputs against the reference's, in f32 and
// in bf16 where the backend runs it (bf16 against the f32 reference: 8 significant bits per
// stored value, compounded over the layers, as the per-backend bf16 tests bound it).
class BackendTopologyTest : public ::testing::TestWithParam<std::tuple<std::string, TopologyCase>> {
};

TEST_P(BackendTopologyTest, OutputsMatchTheEigenReference) {
  const auto& [backend, c] = GetParam();
  const Backend* b = FindBackend(backend);
  if (b->HasDevices()) {
    std::string why;
    if (b->Devices(&why).empty()) GTEST_SKIP() << backend << " has no device here: " << why;
  }
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/" + c.file)), c.params);
  RunConfig config;
  config.seed = 5;
  config.threads = 2;
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
  reference->Run();
  for (const auto& [precision, tolerance, cosine] :
       {std::tuple{Precision::kF32, 1e-3, 0.99999}, std::tuple{Precision::kBf16, 5e-2, 0.99}}) {
    config.precision = precision;
    config.placement.clear();
    const Backend* runner = b;
    // An engine of a fixed operator set runs a topology with layers it lacks as users do:
    // through hetero, those layers on the reference (in f32: in a precision it does not run at
    // all, every layer would fall back, checking nothing of it).
    if (!b->RunsEveryOp() && precision == Precision::kF32 && !b->Supports(t, config).ok) {
      config.placement = {{"default", backend}, {"fallback", "eigen"}};
      runner = FindBackend("hetero");
    }
    if (const Support s = runner->Supports(t, config); !s.ok) {
      EXPECT_NE(precision, Precision::kF32) << backend << " refuses " << c.file << ": " << s.reason;
      continue;
    }
    const std::unique_ptr<Executable> exe = runner->Compile(t, config);
    exe->Run();
    for (const std::string& out : NumericOutputs(t)) {
      const AccuracyDelta d = CompareOutputs(exe->ReadTensor(out), reference->ReadTensor(out));
      EXPECT_LT(d.max_rel_err, tolerance)
          << backend << " " << PrecisionName(precision) << " " << out;
      EXPECT_GT(d.cosine, cosine) << backend << " " << PrecisionName(precision) << " " << out;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, BackendTopologyTest,
                         ::testing::Combine(::testing::ValuesIn(BackendsUnderTest()),
                                            ::testing::ValuesIn(ShippedTopologyCases())),
                         [](const ::testing::TestParamInfo<BackendTopologyTest::ParamType>& info) {
                           return std::get<0>(info.param) + "_" +
                                  TopologyCaseName(std::get<1>(info.param));
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackendTopologyTest);

// A generation as --scenario generate runs it (src/bench/generation.h): a prefill of the prompt,
// the caches handed to the decode step's executable, then each decode step at its position with
// the token chosen before. Its logits must be the last position's of one pass over the prompt
// and every token decoded so far: what the caches hold, where each step appends, which keys the
// attention reads and the rotary positions, all shifted at run time, are checked at once.
// `heads`: {hidden, heads, kv_heads}; `tolerance`: the logits' relative error allowed.
void CheckDecodeSteps(const std::string& backend, const std::string& file, Precision precision,
                      std::array<int64_t, 3> heads, double tolerance) {
  const Backend* b = FindBackend(backend);
  if (b->HasDevices()) {
    std::string why;
    if (b->Devices(&why).empty()) GTEST_SKIP() << backend << " has no device here: " << why;
  }
  const Topology topology = ReadTopologyJsonFile(SourcePath("topologies/" + file));
  const ParamEnv base = {
      {"N", 2},    {"hidden", heads[0]}, {"heads", heads[1]}, {"kv_heads", heads[2]},
      {"ffn", 48}, {"vocab", 50},        {"layers", 2},       {"prompt", 5},
      {"gen", 3},  {"context", 64}};
  ParamEnv params;
  for (const auto& [name, value] : base) {
    if (topology.params.count(name) || name == "N") params[name] = value;
  }
  const ResolvedTopology asked = Resolve(topology, params);
  const bench::GenerationShape shape = bench::GenerationShapeOf(asked);
  RunConfig config;
  config.seed = 11;
  config.threads = 2;
  config.precision = precision;
  const ResolvedTopology prefill_t = Resolve(topology, bench::PrefillParams(params, shape));
  const ResolvedTopology decode_t = Resolve(topology, bench::DecodeParams(params, shape));
  for (const ResolvedTopology* part : {&prefill_t, &decode_t}) {
    if (const Support s = b->Supports(*part, config); !s.ok) GTEST_SKIP() << s.reason;
  }
  const auto prefill = b->Compile(prefill_t, config);
  const auto decode = b->Compile(decode_t, config);
  try {
    decode->SetPositionShift(-1);
    decode->SetPositionShift(0);
  } catch (const Error& e) {
    GTEST_SKIP() << backend << " cannot decode at a run-time position: " << e.what();
  }
  // Tokens: the prompt's, then what greedy decoding picks, N = 2 sequences of their own.
  std::vector<std::vector<float>> sequence(2);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t i = 0; i < shape.prompt; ++i) {
      sequence[n].push_back(static_cast<float>((7 * n + 3 * i + 1) % 50));
    }
  }
  auto flatten = [&](int64_t from, int64_t count) {
    std::vector<float> ids;
    for (const auto& s : sequence) {
      for (int64_t t = from; t < from + count; ++t) ids.push_back(s[t]);
    }
    return ids;
  };
  bench::WriteTokens(prefill_t, *prefill, flatten(0, shape.prompt), 0);
  prefill->Run();
  const std::string out = prefill_t.outputs[0];
  std::vector<float> logits = prefill->ReadTensor(out);
  bench::HandOverCaches(prefill_t, *prefill, decode_t, *decode);
  for (int64_t step = 0; step < shape.gen; ++step) {
    const std::vector<float> next = bench::GreedyTokens(logits, 2);
    for (int64_t n = 0; n < 2; ++n) sequence[n].push_back(next[n]);
    const int64_t position = shape.prompt + step;
    decode->SetPositionShift(position - (shape.capacity() - 1));
    bench::WriteTokens(decode_t, *decode, flatten(position, 1), position);
    decode->Run();
    logits = decode->ReadTensor(out);
    // One pass over all tokens so far, on the same backend.
    ParamEnv whole = params;
    whole["prompt"] = position + 1;
    whole["past"] = 0;
    const ResolvedTopology whole_t = Resolve(topology, whole);
    const auto once = b->Compile(whole_t, config);
    bench::WriteTokens(whole_t, *once, flatten(0, position + 1), 0);
    once->Run();
    const AccuracyDelta d = CompareOutputs(logits, once->ReadTensor(out));
    EXPECT_LT(d.max_rel_err, tolerance)
        << backend << " " << PrecisionName(precision) << " " << file << " decode step " << step;
    EXPECT_GT(d.cosine, 0.999) << backend << " " << file << " decode step " << step;
  }
}

class GenerationTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

// Heads of 8: every kernel's scalar remainder.
TEST_P(GenerationTest, DecodeStepsMatchOnePassOverEveryToken) {
  const auto& [backend, file] = GetParam();
  CheckDecodeSteps(backend, file, Precision::kF32, {32, 4, 2}, kF32Tolerance);
}

// Heads of 72 (a vector kernel's whole vectors and a remainder), two query heads a key/value
// head in llama, and two sequences on two threads: oneDNN's decode step splits the heads.
TEST_P(GenerationTest, WideHeadsDecodeAsOnePassDoes) {
  const auto& [backend, file] = GetParam();
  CheckDecodeSteps(backend, file, Precision::kF32, {288, 4, 2}, kF32Tolerance);
}

TEST(OnednnGeneration, Bf16DecodeStepsMatchOnePassOverEveryToken) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kBf16);  // a build without it, or no AVX-512
  for (const char* file : {"gpt2.json", "llama.json"}) {
    CheckDecodeSteps("onednn", file, Precision::kBf16, {288, 4, 2}, 5e-2);
  }
}

// A decode step's attention over its caches: run after run at the next position, each appending
// new keys and values of their own, so that the scores differ by key (a model's random weights
// give scores so alike that a wrong dot product hardly shows in its logits, as in the test
// above). Heads of 72 (a vector loop's whole vectors and a remainder), 16, 64, 96 and 256 (oneDNN's
// kernels per head width and group of query heads); grouped, multi-query and multi-head; batch 1
// (oneDNN splits the heads over the threads); values of another width; a padding mask under
// which an item sees no key for its first runs (zeros).
// f32 on every backend; bf16 too where the backend runs it.
class CachedAttentionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CachedAttentionTest, EveryPositionMatchesTheReference) {
  const std::string& backend = GetParam();
  const Backend* b = FindBackend(backend);
  if (b->HasDevices()) {
    std::string why;
    if (b->Devices(&why).empty()) GTEST_SKIP() << backend << " has no device here: " << why;
  }
  struct Case {
    int64_t batch, heads, kv_heads, head, value;
    bool mask;
  };
  const int64_t past = 11;
  for (const Case c :
       {Case{2, 4, 2, 72, 72, false}, Case{1, 8, 2, 64, 64, false}, Case{1, 8, 2, 64, 40, false},
        Case{3, 3, 1, 16, 16, true}, Case{2, 2, 2, 72, 8, true}, Case{2, 4, 1, 96, 96, false},
        Case{1, 2, 2, 256, 256, true}}) {
    const std::string n = std::to_string(c.batch), rows = std::to_string(past + 1);
    const std::string text =
        R"({"format": "ntpbench-topology", "version": 1, "name": "cached",
        "inputs": [{"name": "q", "shape": [)" +
        n + ", 1, " + std::to_string(c.heads * c.head) + R"(]},
                   {"name": "k", "shape": [)" +
        n + ", 1, " + std::to_string(c.kv_heads * c.head) + R"(]},
                   {"name": "v", "shape": [)" +
        n + ", 1, " + std::to_string(c.kv_heads * c.value) + "]}" +
        (c.mask ? R"(, {"name": "m", "shape": [)" + n + ", " + rows + "]}" : "") + R"(],
        "layers": [
          {"name": "kc", "op": "kv_cache", "inputs": ["k"], "past": )" +
        std::to_string(past) + ", \"capacity\": " + rows + R"(},
          {"name": "vc", "op": "kv_cache", "inputs": ["v"], "past": )" +
        std::to_string(past) + ", \"capacity\": " + rows + R"(},
          {"name": "y", "op": "attention", "inputs": ["q", "kc", "vc")" +
        (c.mask ? ", \"m\"" : "") + R"(], "heads": )" + std::to_string(c.heads) +
        ", \"kv_heads\": " + std::to_string(c.kv_heads) + R"(, "causal": true}],
        "outputs": ["y"]})";
    const ResolvedTopology t = Resolve(ParseTopologyJson(text, "cached.json"), {});
    for (const Precision precision : {Precision::kF32, Precision::kBf16}) {
      RunConfig config;
      config.seed = 7;
      config.threads = 2;
      const auto reference = FindBackend("eigen")->Compile(t, config);
      config.precision = precision;
      if (const Support s = b->Supports(t, config); !s.ok) {
        if (precision == Precision::kF32) GTEST_SKIP() << backend << ": " << s.reason;
        continue;  // bf16 where the backend has it
      }
      const auto exe = b->Compile(t, config);
      try {
        exe->SetPositionShift(-1);
      } catch (const Error& e) {
        GTEST_SKIP() << backend << " cannot decode at a run-time position: " << e.what();
      }
      uint32_t state = 12345;
      auto values = [&](int64_t count) {
        std::vector<float> x(count);
        for (float& e : x) {
          state = state * 1664525u + 1013904223u;
          e = static_cast<float>(state >> 8) / (1 << 24) * 3.0f - 1.5f;  // [-1.5, 1.5)
        }
        return x;
      };
      std::vector<float> mask;
      for (int64_t i = 0; i < c.batch; ++i) {
        for (int64_t j = 0; j <= past; ++j) mask.push_back(i == 1 ? j >= 3 : (i + j) % 3 != 1);
      }
      for (int64_t shift = -past; shift <= 0; ++shift) {
        const std::map<std::string, std::vector<float>> in = {
            {"q", values(c.batch * c.heads * c.head)},
            {"k", values(c.batch * c.kv_heads * c.head)},
            {"v", values(c.batch * c.kv_heads * c.value)}};
        for (Executable* run : {reference.get(), exe.get()}) {
          run->SetPositionShift(shift);
          for (const auto& [name, x] : in) run->WriteTensor(name, x);
          if (c.mask) run->WriteTensor("m", mask);
          run->Run();
        }
        const AccuracyDelta d = CompareOutputs(exe->ReadTensor("y"), reference->ReadTensor("y"));
        const std::string what = backend + " " + PrecisionName(precision) + " batch " + n +
                                 ", heads " + std::to_string(c.heads) + "/" +
                                 std::to_string(c.kv_heads) + " of " + std::to_string(c.head) +
                                 ", shift " + std::to_string(shift);
        EXPECT_LT(d.max_rel_err, precision == Precision::kF32 ? kF32Tolerance : 3e-2) << what;
        EXPECT_GT(d.cosine, 0.999) << what;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CachedAttentionTest, ::testing::ValuesIn(BackendsUnderTest()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

std::vector<std::string> EveryBackend() {
  std::vector<std::string> out;
  for (const std::string& name : BackendNames()) {
    if (!FindBackend(name)->UsesPlacement()) out.push_back(name);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Decoders, GenerationTest,
                         ::testing::Combine(::testing::ValuesIn(EveryBackend()),
                                            ::testing::Values("gpt2.json", "llama.json")),
                         [](const ::testing::TestParamInfo<GenerationTest::ParamType>& info) {
                           std::string file = std::get<1>(info.param);
                           return std::get<0>(info.param) + "_" + file.substr(0, file.find('.'));
                         });
}  // namespace
}  // namespace ntpb::testing
