// The oneDNN backend against the Eigen reference: every op case, and every shipped topology
// tensor by tensor, with the same seed (same weights and inputs). f32 tolerance: 1e-4 relative
// (oneDNN's kernels sum in other orders and use their own exp/tanh approximations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "src/backends/onednn/bf16_dense.h"
#include "src/backends/onednn/bf16_depthwise.h"
#include "src/backends/onednn/builder.h"
#include "src/backends/onednn/inverted_residual.h"
#include "src/backends/onednn/layout_copy.h"
#include "src/backends/onednn/quantization.h"
#include "src/backends/onednn/streamed_conv.h"
#include "src/backends/onednn/weight_only_dense.h"
#include "src/bench/accuracy.h"
#include "src/topology/numeric_outputs.h"
#include "src/topology/op_catalog.h"
#include "tests/backends/op_cases.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

constexpr double kF32Tolerance = 1e-4;

// The Eigen f32 reference and the oneDNN executable at `precision`, compiled from the same
// config (so the same weights and inputs), each run once.
struct RanBoth {
  std::unique_ptr<Executable> reference, onednn;
};
RanBoth RunBoth(const ResolvedTopology& t, RunConfig config, Precision precision) {
  RanBoth r;
  r.reference = FindBackend("eigen")->Compile(t, config);
  config.precision = precision;
  r.onednn = FindBackend("onednn")->Compile(t, config);
  r.reference->Run();
  r.onednn->Run();
  return r;
}

// `tensor` of the oneDNN run against the reference, in the accuracy counters' metrics.
void ExpectClose(const RanBoth& r, const std::string& tensor, double tolerance, double min_cosine,
                 const std::string& what) {
  const AccuracyDelta d =
      CompareOutputs(r.onednn->ReadTensor(tensor), r.reference->ReadTensor(tensor));
  EXPECT_LT(d.max_rel_err, tolerance) << what;
  EXPECT_GT(d.cosine, min_cosine) << what;
}

// Calls `check` with every step's result (a fused step's: its last layer's output), except the
// results a later step wrote over in place (a residual sum): those must not be readable. Returns
// the names of those.
std::set<std::string> ForEachStepResult(
    const Executable& exe, const ResolvedTopology& t,
    const std::function<void(const StepInfo&, const std::string&)>& check) {
  std::set<std::string> overwritten;
  for (const StepInfo& s : exe.steps()) {
    if (!s.overwrites.empty()) overwritten.insert(s.overwrites);
  }
  for (const StepInfo& s : exe.steps()) {
    if (s.layer < 0) continue;
    const std::string& out = t.layers[s.layer + s.fused].outputs[0];
    if (overwritten.count(out)) {
      EXPECT_THROW(exe.ReadTensor(out), Error) << out;
    } else {
      check(s, NumericStandIn(t, out));
    }
  }
  return overwritten;
}

// Whether oneDNN has a Winograd convolution at this ISA (2.6: AVX-512 only).
bool OnednnHasWinograd() {
  using memory = dnnl::memory;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory::desc src({1, 64, 28, 28}, memory::data_type::f32, memory::format_tag::any),
      w({64, 64, 3, 3}, memory::data_type::f32, memory::format_tag::any);
  try {
    dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                        dnnl::algorithm::convolution_winograd, src, w, src, {1, 1},
                                        {1, 1}, {1, 1}),
        engine);
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}
// Whether oneDNN's f32 matmul has only its generic GEMM here (2.6: without AVX-512).
bool OnednnMatmulHasOnlyGemm() {
  using memory = dnnl::memory;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory::desc a({16, 19}, memory::data_type::f32, memory::format_tag::ab),
      w({19, 24}, memory::data_type::f32, memory::format_tag::any),
      c({16, 24}, memory::data_type::f32, memory::format_tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, w, c), engine);
  return std::string(pd.impl_info_str()).rfind("gemm", 0) == 0;
}
#define SKIP_UNLESS_ONEDNN_HAS_WINOGRAD()                                  \
  if (!OnednnHasWinograd()) {                                              \
    GTEST_SKIP() << "oneDNN has no Winograd convolution here: "            \
                 << FindBackend("onednn")->PrecisionPath(Precision::kF32); \
  }

// A float rounded to bf16 to nearest even (no NaN here), as its 16 bits; written apart from the
// kernels' own rounding so that the tests check it.
uint16_t Bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// A bf16 value (its 16 bits) as the float it is exactly.
float Bf16Value(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float g;
  std::memcpy(&g, &u, sizeof g);
  return g;
}

RunConfig OpConfig() {
  RunConfig config;
  config.seed = 7;
  config.threads = 2;
  return config;
}

class OnednnOpTest : public ::testing::TestWithParam<OpCase> {};

// f32 against the reference: tests/backends/every_backend_test.cc, for every backend.

// bf16: activations and weights rounded to 8 significant bits (relative step 2^-8 = 0.4%),
// products accumulated in f32. Tolerance 3e-2 in the tests' metric (relative above 1,
// absolute below): a few roundings' worth, and far below what a wrong kernel gives.
constexpr double kBf16Tolerance = 3e-2;

TEST_P(OnednnOpTest, InBf16StaysCloseToTheEigenF32Reference) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kBf16);
  const OpCase& c = GetParam();
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  const RanBoth r = RunBoth(t, OpConfig(), Precision::kBf16);
  for (const std::string& y : OpCaseOutputs(c)) {
    ExpectClose(r, y, kBf16Tolerance, 0.999, c.label + " " + y);
  }
}

// i8: u8/s8 activations (per-tensor scales from the calibration run) and s8 weights (per output
// channel), accumulated exactly in s32. Relative step 1/255 of the tensor's range on the input
// and 1/127 of each channel's largest weight; the ops that do not quantize run f32.
// Without VNNI the weights take 7 bits (quantization.h: WeightLevels): a step twice as large,
// measured up to 4.1e-2 (mobilenet_v2's first conv, whose 27 inputs give little averaging).
const double kI8Tolerance = onednn::WeightLevels() == 127 ? 2e-2 : 5e-2;

TEST_P(OnednnOpTest, InI8StaysCloseToTheEigenF32Reference) {
  const OpCase& c = GetParam();
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  const RanBoth r = RunBoth(t, OpConfig(), Precision::kI8);
  for (const std::string& y : OpCaseOutputs(c)) {
    ExpectClose(r, y, kI8Tolerance, 0.999, c.label + " " + y);
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, OnednnOpTest, ::testing::ValuesIn(OpCases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           return info.param.label;
                         });

// The recurrent ops' other implementation, oneDNN's fused RNN primitives (NTPB_ONEDNN_RNN=fused,
// kept to measure against the default decomposition), checked on the same cases.
TEST(OnednnBackend, FusedRnnPrimitivesMatchTheEigenReference) {
  int checked = 0;
  for (const OpCase& c : OpCases()) {
    if (c.op != "lstm" && c.op != "gru") continue;
    const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
    setenv("NTPB_ONEDNN_RNN", "fused", 1);  // read when the layer is built
    const RanBoth r = RunBoth(t, OpConfig(), Precision::kF32);
    unsetenv("NTPB_ONEDNN_RNN");
    for (const std::string& y : OpCaseOutputs(c)) {
      EXPECT_LT(MaxRelativeError(r.onednn->ReadTensor(y), r.reference->ReadTensor(y)),
                kF32Tolerance)
          << c.label << " " << y;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 16);  // 8 from zeros, 5 from initial states, 3 with the final cell
}

// Every route of the recurrence (recurrent_stream.h; a matmul per step; the default auto) against
// the reference, at batch 1 to 4 (each row count has its own register blocking: 1, 2 and 3-4
// rows take a panel in 1, 2 and 4 column passes on AVX2) and 5 (beyond the streamed route: auto
// takes the matmul), with
// 1 to 4 threads (each direction's panels shared among them, 4 threads more than a GRU's 3
// panels), in f32 and bf16, and with a hidden size whose gates fill no whole panel (H 50: 150
// and 200 columns).
TEST(OnednnBackend, EveryRecurrentRouteMatchesTheEigenReference) {
  int checked = 0, skipped = 0;
  for (const char* op : {"lstm", "gru"}) {
    for (int64_t batch : {1, 2, 3, 4, 5}) {
      // From zeros at batch 1 and 4, from initial states given as inputs at 3 and 5.
      std::vector<Shape> inputs = {{batch, 6, 7}};
      if (batch == 3 || batch == 5)
        inputs.resize(std::string(op) == "lstm" ? 3 : 2, {2, batch, 50});
      Topology layer = SingleLayer(op, inputs, {{"units", 50}, {"direction", "bidirectional"}});
      // lstm at batch 2 and 5 outputs its final cell state too, each route writing it.
      const bool final_cell = std::string(op) == "lstm" && (batch == 2 || batch == 5);
      if (final_cell) layer.layers[0].outputs = layer.outputs = {"y", "y_c"};
      const ResolvedTopology t = Resolve(layer, {});
      for (const char* route : {"auto", "streamed", "decomposed"}) {
        if (batch > 4 && std::string(route) == "streamed") continue;
        for (int threads : {1, 2, 3, 4}) {
          for (Precision precision : {Precision::kF32, Precision::kBf16}) {
            RunConfig config = OpConfig();
            config.threads = threads;
            // bf16 needs AVX-512 in oneDNN 2.6 (onednn_isa.AVX2 runs these tests without it).
            RunConfig asked = config;
            asked.precision = precision;
            if (!FindBackend("onednn")->Supports(t, asked).ok) {
              ++skipped;
              continue;
            }
            setenv("NTPB_ONEDNN_RNN", route, 1);
            const RanBoth r = RunBoth(t, config, precision);
            unsetenv("NTPB_ONEDNN_RNN");
            const std::string what = std::string(op) + " batch " + std::to_string(batch) + " " +
                                     route + " " + std::to_string(threads) + " threads " +
                                     PrecisionName(precision);
            for (const std::string& y : t.outputs) {
              ExpectClose(r, y, precision == Precision::kF32 ? kF32Tolerance : kBf16Tolerance,
                          0.999, what + " " + y);
            }
            const std::string& kernel = r.onednn->steps().back().kernel;
            const bool streamed =
                std::string(route) == "streamed" || (std::string(route) == "auto" && batch <= 4);
            EXPECT_EQ(kernel.find("streamed") != std::string::npos, streamed) << what << kernel;
            // bf16 multiplies with vdpbf16ps where the CPU (after ONEDNN_MAX_CPU_ISA) has it.
            const bool dot = streamed && precision == Precision::kBf16 &&
                             onednn::HasNativeBf16Arithmetic() && onednn::Bf16DenseHasDotProducts();
            EXPECT_EQ(kernel.find("dot-product") != std::string::npos, dot) << what << kernel;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked + skipped, 2 * (4 * 3 + 2) * 4 * 2);
  EXPECT_GE(checked, 2 * (4 * 3 + 2) * 4) << "f32 runs everywhere";
  // The streamed route where it does not apply: one line naming the layer and the option.
  const ResolvedTopology big = Resolve(SingleLayer("lstm", {{5, 3, 4}}, {{"units", 8}}), {});
  setenv("NTPB_ONEDNN_RNN", "streamed", 1);
  RunConfig config = OpConfig();
  EXPECT_THROW(
      {
        try {
          FindBackend("onednn")->Compile(big, config);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("streamed runs f32 and bf16 at batch 1-4"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
  unsetenv("NTPB_ONEDNN_RNN");
}

// The streamed recurrence splits each step by units, whole panels of 64 units per thread (every
// gate's, then their gate math): H 130 is three blocks, the last of two units, shared by 2 and 3
// threads, both directions, LSTM and GRU, f32 and bf16, from given initial states.
TEST(OnednnBackend, TheStreamedRecurrenceSplitByUnitsMatchesTheEigenReference) {
  int checked = 0;
  for (const char* op : {"lstm", "gru"}) {
    const bool lstm = std::string(op) == "lstm";
    std::vector<Shape> inputs = {{2, 5, 9}};
    inputs.resize(lstm ? 3 : 2, {2, 2, 130});
    const ResolvedTopology t =
        Resolve(SingleLayer(op, inputs, {{"units", 130}, {"direction", "bidirectional"}}), {});
    for (int threads : {2, 3}) {
      for (Precision precision : {Precision::kF32, Precision::kBf16}) {
        RunConfig config = OpConfig();
        config.threads = threads;
        config.options["rnn"] = "streamed";
        RunConfig asked = config;
        asked.precision = precision;
        if (!FindBackend("onednn")->Supports(t, asked).ok) continue;
        const RanBoth r = RunBoth(t, config, precision);
        const std::string what = std::string(op) + " " + std::to_string(threads) + " threads " +
                                 PrecisionName(precision);
        EXPECT_NE(r.onednn->steps().back().kernel.find("streamed"), std::string::npos) << what;
        ExpectClose(r, t.outputs[0], precision == Precision::kF32 ? kF32Tolerance : kBf16Tolerance,
                    0.999, what);
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 4) << "f32 runs everywhere";
}

// A recurrent layer's input projection (all T steps' inputs times W_x) takes the dense layers'
// route (onednn.dense): a matmul, or a 1x1 convolution over the same bytes (auto takes it where
// the matmul is gemm:jit, without AVX-512). Both against the reference, both directions.
TEST(OnednnBackend, ARecurrentInputProjectionMatchesTheReferenceOnEitherDenseRoute) {
  const ResolvedTopology t = Resolve(
      SingleLayer("lstm", {{2, 7, 40}}, {{"units", 24}, {"direction", "bidirectional"}}), {});
  for (const char* route : {"auto", "matmul", "conv1x1"}) {
    RunConfig config = OpConfig();
    config.options["dense"] = route;
    const RanBoth r = RunBoth(t, config, Precision::kF32);
    ExpectClose(r, t.outputs[0], kF32Tolerance, 0.999, route);
  }
}

// Buffers a recurrence's steps keep for themselves (the input projections of every time step,
// the products and states of the streamed and decomposed routes) are the run's memory too:
// counted in its workspace, not only oneDNN's scratchpads.
TEST(OnednnBackend, ARecurrenceCountsItsOwnBuffersAsWorkspace) {
  const ResolvedTopology t = Resolve(
      SingleLayer("lstm", {{1, 20, 16}}, {{"units", 64}, {"direction", "bidirectional"}}), {});
  const int64_t projections = 20 * 2 * 4 * 64 * sizeof(float);  // T x dirs x 4H, f32
  for (const char* route : {"streamed", "decomposed"}) {
    RunConfig config = OpConfig();
    config.options["rnn"] = route;
    const std::unique_ptr<Executable> exe = FindBackend("onednn")->Compile(t, config);
    const bool streamed = std::string(route) == "streamed";
    EXPECT_EQ(exe->steps().back().kernel.find("streamed") != std::string::npos, streamed)
        << exe->steps().back().kernel;
    // Besides the projections: the states of both directions and their gates' products.
    const int64_t states = 2 * 64 * sizeof(float), products = 2 * 4 * 64 * sizeof(float);
    EXPECT_GE(exe->workspace_bytes(), projections + states + products) << route;
  }
}

TEST(OnednnBackend, HasABuilderForEveryOp) {
  std::set<std::string> covered;
  for (const OpCase& c : OpCases()) covered.insert(c.op);
  for (const OpDef& op : AllOps()) EXPECT_TRUE(covered.count(op.name)) << op.name;
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {});
  EXPECT_TRUE(FindBackend("onednn")->Supports(t, RunConfig{}).ok);
  RunConfig bf16, i8, f16;
  bf16.precision = Precision::kBf16;
  const Support with_bf16 = FindBackend("onednn")->Supports(t, bf16);
  if (!with_bf16.ok) {
    EXPECT_NE(with_bf16.reason.find("bf16 kernels"), std::string::npos) << with_bf16.reason;
  }
  i8.precision = Precision::kI8;
  EXPECT_TRUE(FindBackend("onednn")->Supports(t, i8).ok);
  f16.precision = Precision::kF16;
  const Support no_f16 = FindBackend("onednn")->Supports(t, f16);
  EXPECT_FALSE(no_f16.ok);
  EXPECT_NE(no_f16.reason.find("f16"), std::string::npos) << no_f16.reason;
}

// Sets an environment variable for one scope (the backend reads it when compiling).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

// Tests that read tensors other than the graph outputs after a run keep them all: by default
// the backend reuses a tensor's memory once its last reader has run.
ScopedEnv KeepEveryTensor() { return ScopedEnv("NTPB_ONEDNN_REUSE", "off"); }

class OnednnTopology : public ::testing::TestWithParam<TopologyCase> {
 protected:
  // The case's shipped topology, resolved, and both backends run on it (seed 3).
  RanBoth RunShipped(Precision precision) {
    t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/" + GetParam().file)),
                GetParam().params);
    RunConfig config;
    config.seed = 3;
    return RunBoth(t, config, precision);
  }
  ResolvedTopology t;
};

// With fusion off every layer is a step of its own and every tensor is kept: each is checked.
TEST_P(OnednnTopology, EveryTensorMatchesTheEigenReference) {
  const ScopedEnv no_fusion("NTPB_ONEDNN_FUSION", "off");
  const ScopedEnv keep = KeepEveryTensor();
  const RanBoth r = RunShipped(Precision::kF32);
  Executable* const reference = r.reference.get();
  Executable* const exe = r.onednn.get();
  for (const ResolvedLayer& l : t.layers) {
    const std::string out = NumericStandIn(t, l.outputs[0]);
    EXPECT_LT(MaxRelativeError(exe->ReadTensor(out), reference->ReadTensor(out)), kF32Tolerance)
        << "layer " << l.name;
  }
  // Layout reorders the backend inserted are steps of their own, marked as inlays.
  for (const StepInfo& s : exe->steps()) {
    if (s.layer < 0) {
      EXPECT_TRUE(s.inlay && s.op == "reorder") << s.name;
    }
  }
}

// With post-op fusion (the default), each step's output: a fused step writes its last layer's.
TEST_P(OnednnTopology, EveryFusedStepMatchesTheEigenReference) {
  const ScopedEnv keep = KeepEveryTensor();
  const RanBoth r = RunShipped(Precision::kF32);
  int fused = 0;
  const std::set<std::string> overwritten =
      ForEachStepResult(*r.onednn, t, [&](const StepInfo& s, const std::string& out) {
        EXPECT_LT(MaxRelativeError(r.onednn->ReadTensor(out), r.reference->ReadTensor(out)),
                  kF32Tolerance)
            << "step " << s.name << " (" << s.fused << " layers fused)";
        fused += s.fused;
      });
  // The CNNs have conv + batchnorm + activation chains and residual adds, the transformers a
  // residual add after each output projection; the others have nothing to fuse.
  const std::string& file = GetParam().file;
  const bool fuses =
      file != "mlp.json" && file != "deepspeech.json" && file != "deepspeech_e2e.json";
  EXPECT_EQ(fused > 0, fuses) << fused << " layers fused";
  // Each CNN has residual adds after 1x1 convs, fused into the conv: as a binary post-op, or
  // (where oneDNN's JIT kernels have no binary post-op for it: it would fall back to a gemm
  // convolution) as a sum written over the other operand.
  int fused_adds = 0;
  for (const StepInfo& s : r.onednn->steps()) {
    for (int i = 1; s.layer >= 0 && i <= s.fused; ++i)
      fused_adds += t.layers[s.layer + i].op == "add";
  }
  EXPECT_EQ(fused_adds > 0, fuses) << fused_adds << " adds fused";
  EXPECT_TRUE(overwritten.empty() || fuses) << overwritten.size();
  // Writing in place carries nothing over to the next inference.
  for (const std::string& out : t.outputs) {
    const std::vector<float> first = r.onednn->ReadTensor(out);
    r.onednn->Run();
    EXPECT_EQ(r.onednn->ReadTensor(out), first) << out;
  }
}

// By default a tensor's memory is reused once its last reader has run (activation_pool.h). In
// every precision the outputs are bit for bit those of a run that keeps every tensor, run after
// run; the activations take less memory; and reading a reused tensor is an error saying so.
TEST_P(OnednnTopology, ReusingActivationMemoryChangesNoOutput) {
  t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/" + GetParam().file)), GetParam().params);
  RunConfig config;
  config.seed = 3;
  config.threads = 2;
  for (Precision precision : {Precision::kF32, Precision::kBf16, Precision::kI8}) {
    config.precision = precision;
    const std::string p = PrecisionName(precision);
    if (const Support s = FindBackend("onednn")->Supports(t, config); !s.ok) {
      std::cout << "[  SKIPPED ] " << p << ": " << s.reason << "\n";
      continue;
    }
    std::unique_ptr<Executable> kept;
    {
      const ScopedEnv keep = KeepEveryTensor();
      kept = FindBackend("onednn")->Compile(t, config);
    }
    const std::unique_ptr<Executable> reused = FindBackend("onednn")->Compile(t, config);
    kept->Run();
    reused->Run();
    for (const std::string& out : t.outputs) {
      EXPECT_EQ(reused->ReadTensor(out), kept->ReadTensor(out)) << p << " " << out;
    }
    reused->Run();
    for (const std::string& out : t.outputs) {
      EXPECT_EQ(reused->ReadTensor(out), kept->ReadTensor(out)) << p << " second run " << out;
    }
    int not_readable = 0;
    for (const ResolvedLayer& l : t.layers) {
      try {
        reused->ReadTensor(l.outputs[0]);
      } catch (const Error& e) {
        if (std::string(e.what()).find("onednn.reuse=off") != std::string::npos) {
          ++not_readable;
        }
      }
    }
    EXPECT_GT(not_readable, 0) << p;
    EXPECT_LT(reused->activation_bytes(), kept->activation_bytes()) << p;
    EXPECT_GT(reused->activation_bytes(), 0) << p;
  }
}

TEST(OnednnFusion, FoldsBatchnormAndActivationIntoTheConvUnlessAMarkerSeparatesThem) {
  ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {{"N", 2}});
  auto step_named = [](const Executable& exe, const std::string& name) -> const StepInfo* {
    for (const StepInfo& s : exe.steps()) {
      if (s.name == name) return &s;
    }
    return nullptr;
  };
  RunConfig config;
  config.threads = 2;
  {
    auto exe = FindBackend("onednn")->Compile(t, config);
    ASSERT_NE(step_named(*exe, "conv1"), nullptr);
    EXPECT_EQ(step_named(*exe, "conv1")->fused, 2);  // bn1 and relu1
    EXPECT_EQ(step_named(*exe, "bn1"), nullptr);
    EXPECT_EQ(step_named(*exe, "relu1"), nullptr);
    // fc has softmax after it, which is not an activation post-op.
    EXPECT_EQ(step_named(*exe, "fc")->fused, 0);
    exe->Run();
    try {
      exe->ReadTensor("bn1");
      FAIL() << "a fused-away tensor was readable";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("fusion"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("conv1"), std::string::npos) << e.what();
    }
  }
  // A marker that starts at relu1 keeps it a step of its own: the marker times exactly it.
  int relu1 = 0;
  while (t.layers[relu1].name != "relu1") ++relu1;
  t.markers.push_back({"act", relu1, relu1});
  auto exe = FindBackend("onednn")->Compile(t, config);
  EXPECT_EQ(step_named(*exe, "conv1")->fused, 1);
  ASSERT_NE(step_named(*exe, "relu1"), nullptr);
  EXPECT_EQ(step_named(*exe, "relu1")->fused, 0);
}

// Dense layers as a matmul or as a 1x1 convolution over the same bytes (dense_conv.cc), each
// against the reference: 1 to 15 rows, a [N, T, K] input, with and without bias, with a fused
// activation and a fused residual add. onednn.dense=conv1x1 takes the convolution, =matmul
// never; auto takes it from 4 rows where the matmul has only gemm:jit (any CPU without AVX-512).
TEST(OnednnDense, EveryRouteMatchesTheEigenReference) {
  int convolutions = 0;
  for (const auto& [n, t] : std::vector<std::pair<int, int>>{{1, 1}, {1, 4}, {1, 13}, {3, 5}}) {
    const ResolvedTopology topology =
        Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "dense",
        "inputs": [{"name": "x", "shape": [)" +
                                      std::to_string(n) + ", " + std::to_string(t) +
                                      R"(, 19]}],
        "layers": [
          {"name": "a", "op": "dense", "units": 24, "activation": "relu"},
          {"name": "b", "op": "dense", "units": 24, "bias": false, "inputs": ["a"]},
          {"name": "s", "op": "add", "inputs": ["b", "a"]}],
        "outputs": ["s"]})",
                                  "dense.json"),
                {});
    for (const char* route : {"auto", "matmul", "conv1x1"}) {
      setenv("NTPB_ONEDNN_DENSE", route, 1);
      const RanBoth r = RunBoth(topology, OpConfig(), Precision::kF32);
      unsetenv("NTPB_ONEDNN_DENSE");
      const std::string what =
          std::string(route) + " " + std::to_string(n) + "x" + std::to_string(t);
      ExpectClose(r, "a", kF32Tolerance, 0.99999, what);
      ExpectClose(r, "s", kF32Tolerance, 0.99999, what);
      ASSERT_EQ(r.onednn->steps().size(), 2u) << what << ": the activation and add are fused";
      for (const StepInfo& s : r.onednn->steps()) {
        const bool conv = s.kernel.find("1x1 convolution") != std::string::npos;
        if (std::string(route) == "conv1x1") {
          EXPECT_TRUE(conv) << what << " " << s.kernel;
        }
        if (std::string(route) == "matmul") {
          EXPECT_FALSE(conv) << what << " " << s.kernel;
        }
        if (std::string(route) == "auto" && conv) {
          EXPECT_GE(n * t, 4) << what;
          EXPECT_EQ(OnednnMatmulHasOnlyGemm(), true) << what;
          ++convolutions;
        }
      }
    }
  }
  if (OnednnMatmulHasOnlyGemm()) {
    EXPECT_EQ(convolutions, 3 * 2) << "auto: 3 sizes x 2 layers";
  }
}

// i8 dense layers with a signed (s8) source: the 1x1 convolution route (the default where the
// s8 matmul is gemm:jit: it ran mlp's layers 30x slower) as accurate as the matmul route. Without
// VNNI oneDNN halves such a convolution's weights as it reorders them; ntpbench gives them
// doubled (DoubleWeightsHalvedBy), so both routes compute with the same 7-bit weights. Before
// that, the convolution's error on this layer was 2.4x the matmul's.
TEST(OnednnDense, AnI8ConvolutionRouteIsAsAccurateAsTheMatmul) {
  const ResolvedTopology t = Resolve(SingleLayer("dense", {{4, 256}}, {{"units", 64}}), {});
  RunConfig config = OpConfig();
  std::vector<float> x(4 * 256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.61f * i) * (1.0f + (i % 7));  // signed
  config.inputs["x0"] = x;
  std::map<std::string, double> error;
  for (const char* route : {"matmul", "conv1x1"}) {
    setenv("NTPB_ONEDNN_DENSE", route, 1);
    const RanBoth r = RunBoth(t, config, Precision::kI8);
    unsetenv("NTPB_ONEDNN_DENSE");
    const bool conv = r.onednn->steps().back().kernel.find("1x1 convolution") != std::string::npos;
    EXPECT_EQ(conv, std::string(route) == "conv1x1") << r.onednn->steps().back().kernel;
    const std::vector<float> got = r.onednn->ReadTensor("y"), want = r.reference->ReadTensor("y");
    double diff = 0, norm = 0;  // ||got - want|| / ||want||: every element, not the worst one
    for (size_t i = 0; i < want.size(); ++i) {
      diff += (got[i] - want[i]) * (got[i] - want[i]);
      norm += want[i] * want[i];
    }
    error[route] = std::sqrt(diff / norm);
    EXPECT_GT(error[route], 0) << route << ": quantized, so not exact";
  }
  EXPECT_LT(error["conv1x1"], 1.25 * error["matmul"])
      << "convolution " << error["conv1x1"] << ", matmul " << error["matmul"];
}

// An i8 LSTM's recurrence: oneDNN's s8 matmul where it has a tuned kernel (VNNI), else
// ntpbench's int8-weight panels with an f32 state (gemm:jit's s8 product ran DeepSpeech's at
// ~0.5 GFLOP/s); close to the f32 reference either way, bidirectional, batch 1 and 3.
TEST(OnednnI8Recurrence, TakesTheInt8PanelsWhereTheS8MatmulIsGeneric) {
  using memory = dnnl::memory;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const dnnl::matmul::primitive_desc probe(
      dnnl::matmul::desc(memory::desc({1, 50}, memory::data_type::s8, memory::format_tag::ab),
                         memory::desc({50, 200}, memory::data_type::s8, memory::format_tag::any),
                         memory::desc({1, 200}, memory::data_type::f32, memory::format_tag::ab)),
      engine);
  const bool panels = std::string(probe.impl_info_str()).rfind("gemm", 0) == 0;
  for (int64_t batch : {1, 3}) {
    const ResolvedTopology t = Resolve(
        SingleLayer("lstm", {{batch, 6, 7}}, {{"units", 50}, {"direction", "bidirectional"}}), {});
    const RanBoth r = RunBoth(t, OpConfig(), Precision::kI8);
    ExpectClose(r, "y", kI8Tolerance, 0.999, "batch " + std::to_string(batch));
    const std::string& kernel = r.onednn->steps().back().kernel;
    EXPECT_EQ(kernel.find("int8-weight panels") != std::string::npos, panels) << kernel;
  }
}

// The bf16 panel kernel itself, both ways of multiplying (vdpbf16ps where built for it, the
// widening loop everywhere): its f32 sums against a double-precision product of the same bf16
// values, at odd and even inputs, a last panel narrower than 64 and 1 to 9 rows; its bf16
// results, with and without an addend, the sums plus the addend rounded once.
TEST(OnednnBf16Dense, PanelSumsMatchADoubleProductOfTheSameBf16Values) {
  auto bits = Bf16Bits;
  auto bf16 = [](float f) { return Bf16Value(Bf16Bits(f)); };
  for (const int64_t inputs : {45, 64}) {
    const int64_t outputs = 70;
    std::vector<float> w(static_cast<size_t>(inputs * outputs));
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37 * static_cast<double>(i));
    for (const bool dot : {false, true}) {
      if (dot && !onednn::Bf16DenseHasDotProducts()) continue;
      onednn::Bf16Dense kernel(w, inputs, outputs);
      kernel.use_dot_products = dot;
      if (inputs == 64) {  // and a bias, added before the result is stored
        for (int64_t j = 0; j < outputs; ++j) kernel.bias.push_back(0.5f - 0.01f * j);
      }
      for (const int64_t rows : {1, 2, 3, 4, 5, 9}) {
        std::vector<uint16_t> x(static_cast<size_t>(rows * inputs));
        std::vector<float> xf(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          xf[i] = bf16(static_cast<float>(std::cos(0.11 * static_cast<double>(i))));
          x[i] = bits(xf[i]);
        }
        std::vector<float> y(static_cast<size_t>(rows * outputs), -1.0f);
        std::vector<uint16_t> y16(y.size(), 0xFFFF);
        kernel.Run(x.data(), rows, y.data(), 2);
        kernel.Run(x.data(), rows, y16.data(), 2);
        // With an addend (a fused residual add), bf16 and f32: added to the f32 sum, then rounded
        // once.
        std::vector<float> addend(y.size());
        std::vector<uint16_t> addend16(y.size());
        for (size_t i = 0; i < y.size(); ++i) {
          addend[i] = bf16(static_cast<float>(3.0 * std::sin(0.71 * static_cast<double>(i))));
          addend16[i] = bits(addend[i]);
        }
        std::vector<uint16_t> added16(y.size(), 0xFFFF), added32(y.size(), 0xFFFF);
        onednn::Bf16Addend from16, from32;
        from16.bf16 = addend16.data();
        from32.f32 = addend.data();
        kernel.Run(x.data(), rows, added16.data(), 2, from16);
        kernel.Run(x.data(), rows, added32.data(), 2, from32);
        double worst = 0;
        int rounded_apart = 0, added_apart = 0;
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t j = 0; j < outputs; ++j) {
            double want = 0, scale = 0;
            for (int64_t k = 0; k < inputs; ++k) {
              const double term = double(xf[r * inputs + k]) * bf16(w[k * outputs + j]);
              want += term;
              scale += std::abs(term);
            }
            if (!kernel.bias.empty()) want += kernel.bias[j];
            const size_t i = static_cast<size_t>(r * outputs + j);
            worst = std::max(worst, std::abs(y[i] - want) / scale);
            rounded_apart += y16[i] != bits(y[i]);  // the bf16 result: the f32 sum rounded
            added_apart += added16[i] != bits(y[i] + addend[i]);
            added_apart += added32[i] != bits(y[i] + addend[i]);
          }
        }
        EXPECT_EQ(added_apart, 0) << (dot ? "vdpbf16ps" : "widened") << " inputs " << inputs
                                  << " rows " << rows;
        EXPECT_EQ(rounded_apart, 0)
            << (dot ? "vdpbf16ps" : "widened") << " inputs " << inputs << " rows " << rows;
        EXPECT_LT(worst, 1e-5) << (dot ? "vdpbf16ps" : "widened") << " inputs " << inputs
                               << " rows " << rows;
      }
    }
  }
}

// Dense layers around a wide one at `rows` rows of `inputs` features: a (bias, gelu) to `wide`
// outputs, b (bias) back to `inputs`, c (10 outputs, no bias), d (bias) to `wide` plus a (the add
// s), e (no bias) back to `inputs` plus the graph's input (the add r).
ResolvedTopology DenseStack(int rows, int inputs, int wide) {
  const std::string in = std::to_string(inputs), out = std::to_string(wide);
  return Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "stack",
      "inputs": [{"name": "x", "shape": [)" +
                                       std::to_string(rows) + ", " + in + R"(]}],
      "layers": [
        {"name": "a", "op": "dense", "units": )" +
                                       out + R"(, "activation": "gelu"},
        {"name": "b", "op": "dense", "units": )" +
                                       in + R"(, "inputs": ["a"]},
        {"name": "c", "op": "dense", "units": 10, "bias": false, "inputs": ["b"]},
        {"name": "d", "op": "dense", "units": )" +
                                       out + R"(, "inputs": ["b"]},
        {"name": "s", "op": "add", "inputs": ["d", "a"]},
        {"name": "e", "op": "dense", "units": )" +
                                       in + R"(, "bias": false, "inputs": ["s"]},
        {"name": "r", "op": "add", "inputs": ["x", "e"]}],
      "outputs": ["a", "b", "c", "s", "r"]})",
                                   "stack.json"),
                 {});
}

// `topology` on the panels (the default) and with `option`=matmul, each against the reference
// and against each other for the DenseStack outputs; returns both runs.
std::pair<RanBoth, RanBoth> PanelsAndMatmul(const ResolvedTopology& topology, Precision precision,
                                            const std::string& option, double tolerance,
                                            double min_cosine, const std::string& what) {
  RunConfig config = OpConfig();
  RanBoth streamed = RunBoth(topology, config, precision);
  config.options[option] = "matmul";
  RanBoth matmul = RunBoth(topology, config, precision);
  for (const char* tensor : {"a", "b", "c", "s", "r"}) {
    ExpectClose(streamed, tensor, tolerance, min_cosine, what + " " + tensor);
    const AccuracyDelta d =
        CompareOutputs(streamed.onednn->ReadTensor(tensor), matmul.onednn->ReadTensor(tensor));
    EXPECT_LT(d.max_rel_err, tolerance) << what << " " << tensor << " against the matmul";
  }
  return {std::move(streamed), std::move(matmul)};
}

// bf16 dense layers at 1-4 rows take the panel kernel (onednn.bf16_dense=streamed, the default)
// and match the reference as oneDNN's matmul does; from 5 rows, or with =matmul, the matmul. A
// residual add after one is fused into the panels' store, its operand bf16 (a layer's output) or
// f32 (the graph's input).
TEST(OnednnBf16Dense, StreamedLayersMatchTheReferenceAndTheMatmul) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kBf16);
  for (const int rows : {1, 3, 4, 5}) {
    const ResolvedTopology topology = DenseStack(rows, 520, 4100);
    const std::string what = "rows " + std::to_string(rows);
    const auto [streamed, matmul] =
        PanelsAndMatmul(topology, Precision::kBf16, "bf16_dense", kBf16Tolerance, 0.999, what);
    // a (bias, gelu): 520 x 4100, b (bias): 4100 x 520, d (bias, + a) and e (+ x), 4.1 MiB
    // each, at 1-4 rows; c (10 outputs, less than a panel a thread) never.
    const std::set<std::string> with_add = {"d", "e"};
    int layers = 0;
    for (const StepInfo& step : streamed.onednn->steps()) {
      if (step.name == "s" || step.name == "r") ADD_FAILURE() << what << ": the add a step";
      if (step.name.size() != 1 || step.name == "x") continue;
      ++layers;
      const bool panels = rows <= 4 && step.name != "c";
      EXPECT_EQ(step.kernel.find("bf16 panels") != std::string::npos, panels)
          << what << ": " << step.name << " " << step.kernel;
      EXPECT_EQ(step.kernel.find("residual add") != std::string::npos,
                panels && with_add.count(step.name))
          << what << ": " << step.name << " " << step.kernel;
      EXPECT_EQ(step.fused, with_add.count(step.name) ? 1 : 0) << what << ": " << step.name;
    }
    EXPECT_EQ(layers, 5) << what;
    // Layer a's f32 sums (for the gelu) are the run's memory: counted as workspace.
    if (rows <= 4) {
      EXPECT_GE(streamed.onednn->workspace_bytes(), rows * 4100 * int64_t{sizeof(float)}) << what;
    }
    for (const StepInfo& step : matmul.onednn->steps()) {
      EXPECT_EQ(step.kernel.find("bf16 panels"), std::string::npos) << what << ": " << step.kernel;
    }
  }
}

// f32 dense layers at 1-4 rows on ntpbench's panels (f32_dense.h): the bias, a fused activation
// (through a oneDNN binary) and a fused residual add, against the reference and oneDNN's matmul;
// a layer of fewer outputs than a panel a thread, and 5 rows, stay oneDNN's; the plan names the
// same steps panels.
TEST(OnednnF32Dense, StreamedLayersMatchTheReferenceAndTheMatmul) {
  const Backend& onednn = *FindBackend("onednn");
  for (const int rows : {1, 3, 4, 5}) {
    const ResolvedTopology topology = DenseStack(rows, 130, 300);
    const std::string what = "rows " + std::to_string(rows);
    const auto [streamed, matmul] =
        PanelsAndMatmul(topology, Precision::kF32, "f32_dense", kF32Tolerance, 0.99999, what);
    // a (bias, gelu), b (bias), d (bias, + a), e (+ x): 300 and 130 outputs, at least a panel of
    // 64 for each of the 2 threads; c (10 outputs) never.
    const std::set<std::string> with_add = {"d", "e"};
    std::set<std::string> compiled;
    // (At 5 rows oneDNN's route may keep an add apart: its gemm convolution's, where it has no
    // JIT one, known_defects.h.)
    for (const StepInfo& step : streamed.onednn->steps()) {
      if (rows <= 4 && (step.name == "s" || step.name == "r")) {
        ADD_FAILURE() << what << ": the add a step";
      }
      if (step.name.size() != 1 || step.name == "x" || step.name == "s" || step.name == "r") {
        continue;
      }
      const bool panels = rows <= 4 && step.name != "c";
      EXPECT_EQ(step.kernel.find("f32 panels") != std::string::npos, panels)
          << what << ": " << step.name << " " << step.kernel;
      if (!panels) continue;
      compiled.insert(step.name);
      EXPECT_EQ(step.fused, with_add.count(step.name) ? 1 : 0) << what << ": " << step.name;
      EXPECT_EQ(step.kernel.find("residual add") != std::string::npos,
                with_add.count(step.name) == 1)
          << what << ": " << step.name << " " << step.kernel;
    }
    EXPECT_EQ(compiled.size(), rows <= 4 ? 4u : 0u) << what;
    std::set<std::string> planned;
    for (const PlannedStep& p : onednn.PlanSteps(topology, OpConfig())) {
      if (p.algorithm == "panels") planned.insert(topology.layers[p.layer].name);
    }
    EXPECT_EQ(planned, compiled) << what;
    for (const StepInfo& step : matmul.onednn->steps()) {
      EXPECT_EQ(step.kernel.find("f32 panels"), std::string::npos) << what << ": " << step.kernel;
    }
  }
}

// Under f32_dense=auto (the default) the panels take 5-8 rows too where the network's weights
// (0.63 MB here) outgrow half the last-level cache of the machine the plan is for
// (RunConfig::last_level_cache_bytes): 64 KiB, as if read from memory, or 1 MiB (the weights
// more than half of it), against 1 TiB; `streamed`
// keeps them to 1-4 rows, and 9 rows stay oneDNN's. The plan names the same steps.
TEST(OnednnF32Dense, FromMemoryAutoTakesThePanelsUpToEightRows) {
  const Backend& onednn = *FindBackend("onednn");
  for (const int rows : {5, 8, 9}) {
    const ResolvedTopology topology = DenseStack(rows, 130, 300);
    for (const int64_t cache : {int64_t{64} << 10, int64_t{1} << 20, int64_t{1} << 40}) {
      for (const char* mode : {"auto", "streamed"}) {
        RunConfig config = OpConfig();
        config.last_level_cache_bytes = cache;
        config.options["f32_dense"] = mode;
        const std::string what =
            "rows " + std::to_string(rows) + ", cache " + std::to_string(cache) + ", " + mode;
        const RanBoth r = RunBoth(topology, config, Precision::kF32);
        for (const char* tensor : {"a", "b", "c", "s", "r"}) {
          ExpectClose(r, tensor, kF32Tolerance, 0.99999, what + " " + tensor);
        }
        std::set<std::string> compiled, planned;
        for (const StepInfo& step : r.onednn->steps()) {
          if (step.kernel.find("f32 panels") != std::string::npos) compiled.insert(step.name);
        }
        for (const PlannedStep& p : onednn.PlanSteps(topology, config)) {
          if (p.algorithm == "panels") planned.insert(topology.layers[p.layer].name);
        }
        const bool panels = std::string(mode) == "auto" && cache < (int64_t{1} << 40) && rows <= 8;
        const std::set<std::string> expected =
            panels ? std::set<std::string>{"a", "b", "d", "e"} : std::set<std::string>{};
        EXPECT_EQ(compiled, expected) << what;
        EXPECT_EQ(planned, compiled) << what;
      }
    }
  }
}

// The bf16 depthwise kernel itself: its bf16 results against a double-precision sum of the same
// bf16 inputs and weights plus the bias, clamped and rounded once: within a bf16 step (the f32 sum
// may round the other way near a tie, or lose more where the terms cancel), nearly all equal.
// Channel counts with and without a partial block, borders with padding, strides 1 and 2 (3x3 and
// 5x5: each input pixel widened once for the taps it is under), dilation, a non-square kernel, two
// images, with and without bias and clamp.
TEST(OnednnBf16Depthwise, MatchesADoubleSumOfTheSameBf16ValuesRoundedOnce) {
  auto bits = Bf16Bits;
  auto widen = Bf16Value;
  struct Case {
    int64_t batch, channels, h, w, kh, kw, stride, dilation, pad;
    bool bias;
    float low, high;
  };
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<Case> cases = {
      {1, 144, 9, 11, 3, 3, 1, 1, 1, true, 0.0f, 6.0f},   // a partial block of 16 (AVX-512)
      {2, 7, 6, 5, 3, 3, 2, 1, 1, false, -kInf, kInf},    // a partial block only, stride 2
      {1, 64, 10, 21, 5, 5, 1, 1, 2, true, 0.0f, kInf},   // 5x5, interior runs of 8 and 1
      {1, 40, 12, 12, 3, 3, 1, 2, 2, true, -kInf, kInf},  // dilation 2
      {1, 32, 7, 7, 3, 3, 2, 1, 0, false, 0.0f, 6.0f},    // no padding: interior only
      {1, 48, 4, 9, 1, 3, 1, 1, 1, true, -kInf, kInf},    // 1x3, rows padded (pad 1 on h)
      {1, 16, 3, 3, 5, 5, 1, 1, 2, true, -kInf, kInf},    // every tap of a column at a border
      {1, 64, 6, 37, 3, 3, 2, 1, 1, true, 0.0f, 6.0f},    // stride 2: runs of 8, 4 and 1
      {1, 80, 5, 41, 5, 5, 2, 1, 2, false, -kInf, kInf},  // 5x5 stride 2, a partial block
      {1, 96, 4, 30, 3, 3, 1, 1, 1, true, -kInf, kInf},   // stride 1: runs of 8, 4 and 1
  };
  for (const Case& c : cases) {
    onednn::Bf16DepthwiseShape s;
    s.batch = c.batch;
    s.channels = c.channels;
    s.in_h = c.h;
    s.in_w = c.w;
    s.kernel_h = c.kh;
    s.kernel_w = c.kw;
    s.stride_h = s.stride_w = c.stride;
    s.dilation_h = s.dilation_w = c.dilation;
    s.pad_top = s.pad_left = c.pad;
    s.out_h = (c.h + 2 * c.pad - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
    s.out_w = (c.w + 2 * c.pad - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
    const int64_t taps = c.kh * c.kw;
    std::vector<float> w(static_cast<size_t>(c.channels * taps)), bias;
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37 * static_cast<double>(i));
    if (c.bias) {
      for (int64_t j = 0; j < c.channels; ++j) bias.push_back(0.5f - 0.01f * j);
    }
    onednn::Bf16Depthwise kernel(s, w, bias);
    kernel.low = c.low;
    kernel.high = c.high;
    std::vector<uint16_t> x(static_cast<size_t>(c.batch * c.h * c.w * c.channels));
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = bits(static_cast<float>(3.0 * std::cos(0.11 * static_cast<double>(i))));
    }
    std::vector<uint16_t> y(static_cast<size_t>(c.batch * s.out_h * s.out_w * c.channels), 0xFFFF);
    kernel.Run(x.data(), y.data(), 2);
    const std::string what = "channels " + std::to_string(c.channels) + ", " + std::to_string(c.h) +
                             "x" + std::to_string(c.w) + ", kernel " + std::to_string(c.kh) + "x" +
                             std::to_string(c.kw) + ", stride " + std::to_string(c.stride) +
                             ", dilation " + std::to_string(c.dilation);
    int64_t equal = 0, apart = 0;
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t oh = 0; oh < s.out_h; ++oh) {
        for (int64_t ow = 0; ow < s.out_w; ++ow) {
          for (int64_t ch = 0; ch < c.channels; ++ch) {
            double want = c.bias ? bias[static_cast<size_t>(ch)] : 0.0, scale = std::abs(want);
            for (int64_t kh = 0; kh < c.kh; ++kh) {
              for (int64_t kw = 0; kw < c.kw; ++kw) {
                const int64_t ih = oh * c.stride - c.pad + kh * c.dilation,
                              iw = ow * c.stride - c.pad + kw * c.dilation;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
                const double term =
                    double(widen(
                        x[static_cast<size_t>(((n * c.h + ih) * c.w + iw) * c.channels + ch)])) *
                    widen(bits(w[static_cast<size_t>(ch * taps + kh * c.kw + kw)]));
                want += term;
                scale += std::abs(term);
              }
            }
            want = std::min<double>(std::max<double>(want, c.low), c.high);
            const uint16_t expected = bits(static_cast<float>(want));
            const uint16_t got =
                y[static_cast<size_t>(((n * s.out_h + oh) * s.out_w + ow) * c.channels + ch)];
            equal += got == expected;
            // A bf16 step of the result, or what summing in f32 may lose where terms cancel.
            apart += std::abs(widen(got) - want) >
                     std::max(std::abs(want) / 128, scale * std::ldexp(1.0, -20));
          }
        }
      }
    }
    const int64_t outputs = static_cast<int64_t>(y.size());
    EXPECT_EQ(apart, 0) << what;
    EXPECT_GE(equal, outputs * 99 / 100) << what << ": " << equal << " of " << outputs;
  }
}

// bf16 depthwise layers with a clamp for an activation (none, relu, relu6, fused or their own)
// take the kernel (onednn.bf16_depthwise=widened) and match the reference as oneDNN's kernels
// do; one followed by a sigmoid, one with a channel multiplier, and every one under =onednn,
// take oneDNN's. A residual add after one stays a step. Under auto (the default) the kernel
// runs where oneDNN's bf16 is emulated or its bf16 dot products are slower than f32 FMAs.
TEST(OnednnBf16Depthwise, LayersMatchTheReferenceAndOnednnsKernels) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kBf16);
  const ResolvedTopology topology =
      Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "dw",
        "inputs": [{"name": "x", "shape": [2, 3, 19, 19]}],
        "layers": [
          {"name": "a", "op": "conv2d", "filters": 48, "kernel": 1},
          {"name": "d1", "op": "conv2d", "filters": 48, "kernel": 3, "padding": 1, "groups": 48,
           "bias": false},
          {"name": "d1_bn", "op": "batchnorm"},
          {"name": "d1_relu6", "op": "clipped_relu", "clip": 6},
          {"name": "d2", "op": "conv2d", "filters": 48, "kernel": 3, "padding": 1, "stride": 2,
           "groups": 48, "activation": "relu"},
          {"name": "d3", "op": "conv2d", "filters": 48, "kernel": 5, "padding": 2, "groups": 48},
          {"name": "s", "op": "add", "inputs": ["d3", "d2"]},
          {"name": "d4", "op": "conv2d", "filters": 48, "kernel": 3, "padding": 1, "groups": 48,
           "inputs": ["s"]},
          {"name": "d4_sigmoid", "op": "sigmoid"},
          {"name": "m", "op": "conv2d", "filters": 96, "kernel": 3, "padding": 1, "groups": 48,
           "inputs": ["d4_sigmoid"]}],
        "outputs": ["d1_relu6", "d2", "s", "d4_sigmoid", "m"]})",
                                "dw.json"),
              {});
  RunConfig config = OpConfig();
  config.options["bf16_depthwise"] = "widened";
  const RanBoth widened = RunBoth(topology, config, Precision::kBf16);
  config.options["bf16_depthwise"] = "auto";
  config.precision = Precision::kBf16;
  const bool auto_widens =
      !(onednn::HasNativeBf16Arithmetic() && onednn::Bf16DotProductsOutrunF32Fmas());
  const auto auto_exe = FindBackend("onednn")->Compile(topology, config);
  for (const StepInfo& step : auto_exe->steps()) {
    if (step.name == "d1" || step.name == "d2" || step.name == "d3") {
      EXPECT_EQ(step.kernel.find("bf16 depthwise") != std::string::npos, auto_widens)
          << step.name << ": " << step.kernel;
    }
  }
  config = OpConfig();
  config.options["bf16_depthwise"] = "onednn";
  const RanBoth onednn = RunBoth(topology, config, Precision::kBf16);
  for (const char* tensor : {"d1_relu6", "d2", "s", "d4_sigmoid", "m"}) {
    ExpectClose(widened, tensor, kBf16Tolerance, 0.999, tensor);
    const AccuracyDelta d =
        CompareOutputs(widened.onednn->ReadTensor(tensor), onednn.onednn->ReadTensor(tensor));
    EXPECT_LT(d.max_rel_err, kBf16Tolerance) << tensor << " against oneDNN's kernels";
  }
  const std::map<std::string, int> fused = {{"d1", 2}, {"d2", 0}, {"d3", 0}};
  int kernels = 0;
  std::set<int> compiled, planned;
  for (const StepInfo& step : widened.onednn->steps()) {
    const bool own = step.kernel.find("bf16 depthwise") != std::string::npos;
    kernels += own;
    if (own) compiled.insert(step.layer);
    EXPECT_EQ(own, fused.count(step.name) == 1) << step.name << " " << step.kernel;
    if (own) {
      EXPECT_EQ(step.fused, fused.at(step.name)) << step.name;
    }
  }
  EXPECT_EQ(kernels, 3);
  // The plan a latency prediction prices names the same steps (a kind of their own).
  config = OpConfig();
  config.precision = Precision::kBf16;
  config.options["bf16_depthwise"] = "widened";
  for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(topology, config)) {
    if (p.algorithm == "widened") planned.insert(p.layer);
  }
  EXPECT_EQ(planned, compiled);
  for (const StepInfo& step : onednn.onednn->steps()) {
    EXPECT_EQ(step.kernel.find("bf16 depthwise"), std::string::npos) << step.kernel;
  }
}

// Inverted residual blocks (onednn.inverted_residual=fused) on ntpbench's kernel match the
// reference: odd sizes (5 channels in, 40 expanded: not whole vectors), batch 2, stride 1 with
// its residual add and stride 2 without, a relu on the expansion and a relu6 on the projection,
// no batchnorm; projections of 5, 7, 24 and 40 outputs (under AVX-512 a last vector at most half
// used is a 256-bit one: alone, after one full vector with the residual added, after two full
// ones); on 1 and 3 threads (a thread's rows crossing from one image into the next).
// A block whose add has a relu after it fuses up to its projection (the add a step of its own);
// one with a sigmoid between its convolutions is not a block. Under off no step takes the
// kernel, under auto neither do these small ones; the plan a prediction prices names the same
// steps.
TEST(OnednnInvertedResidual, BlocksMatchTheReference) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  const ResolvedTopology topology =
      Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "ir",
        "inputs": [{"name": "x", "shape": [2, 5, 13, 11]}],
        "layers": [
          {"name": "e1", "op": "conv2d", "filters": 40, "kernel": 1, "bias": false},
          {"name": "e1_bn", "op": "batchnorm"},
          {"name": "e1_relu6", "op": "clipped_relu", "clip": 6},
          {"name": "d1", "op": "conv2d", "filters": 40, "kernel": 3, "padding": 1, "groups": 40,
           "bias": false},
          {"name": "d1_bn", "op": "batchnorm"},
          {"name": "d1_relu6", "op": "clipped_relu", "clip": 6},
          {"name": "p1", "op": "conv2d", "filters": 5, "kernel": 1, "bias": false},
          {"name": "p1_bn", "op": "batchnorm"},
          {"name": "a1", "op": "add", "inputs": ["p1_bn", "x"]},
          {"name": "e2", "op": "conv2d", "filters": 24, "kernel": 1},
          {"name": "e2_relu", "op": "relu"},
          {"name": "d2", "op": "conv2d", "filters": 24, "kernel": 3, "padding": 1, "stride": 2,
           "groups": 24},
          {"name": "p2", "op": "conv2d", "filters": 7, "kernel": 1},
          {"name": "p2_relu6", "op": "clipped_relu", "clip": 6},
          {"name": "e3", "op": "conv2d", "filters": 16, "kernel": 1},
          {"name": "d3", "op": "conv2d", "filters": 16, "kernel": 3, "padding": 1, "groups": 16},
          {"name": "p3", "op": "conv2d", "filters": 7, "kernel": 1},
          {"name": "a3", "op": "add", "inputs": ["p3", "p2_relu6"]},
          {"name": "a3_relu", "op": "relu"},
          {"name": "e4", "op": "conv2d", "filters": 16, "kernel": 1},
          {"name": "e4_sigmoid", "op": "sigmoid"},
          {"name": "d4", "op": "conv2d", "filters": 16, "kernel": 3, "padding": 1, "groups": 16},
          {"name": "p4", "op": "conv2d", "filters": 7, "kernel": 1},
          {"name": "e5", "op": "conv2d", "filters": 48, "kernel": 1, "inputs": ["x"]},
          {"name": "d5", "op": "conv2d", "filters": 48, "kernel": 3, "padding": 1, "groups": 48},
          {"name": "p5", "op": "conv2d", "filters": 24, "kernel": 1},
          {"name": "e6", "op": "conv2d", "filters": 96, "kernel": 1},
          {"name": "e6_relu6", "op": "clipped_relu", "clip": 6},
          {"name": "d6", "op": "conv2d", "filters": 96, "kernel": 3, "padding": 1, "groups": 96},
          {"name": "p6", "op": "conv2d", "filters": 24, "kernel": 1},
          {"name": "a6", "op": "add", "inputs": ["p6", "p5"]},
          {"name": "e7", "op": "conv2d", "filters": 64, "kernel": 1},
          {"name": "d7", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1, "stride": 2,
           "groups": 64},
          {"name": "p7", "op": "conv2d", "filters": 40, "kernel": 1},
          {"name": "p7_relu6", "op": "clipped_relu", "clip": 6}],
        "outputs": ["a1", "p2_relu6", "a3_relu", "p4", "a6", "p7_relu6"]})",
                                "ir.json"),
              {});
  const std::map<std::string, int> fused = {{"e1", 8}, {"e2", 4}, {"e3", 2},
                                            {"e5", 2}, {"e6", 4}, {"e7", 3}};
  for (int threads : {1, 3}) {
    RunConfig config = OpConfig();
    config.threads = threads;
    config.options["inverted_residual"] = "fused";
    const RanBoth r = RunBoth(topology, config, Precision::kF32);
    for (const char* tensor : {"a1", "p2_relu6", "a3_relu", "p4", "a6", "p7_relu6"}) {
      ExpectClose(r, tensor, kF32Tolerance, 0.99999,
                  std::string(tensor) + " on " + std::to_string(threads) + " threads");
    }
    std::set<int> compiled, planned;
    for (const StepInfo& step : r.onednn->steps()) {
      const bool own = step.kernel.find("inverted residual") != std::string::npos;
      EXPECT_EQ(own, fused.count(step.name) == 1) << step.name << " " << step.kernel;
      if (!own) continue;
      compiled.insert(step.layer);
      EXPECT_EQ(step.fused, fused.at(step.name)) << step.name;
    }
    EXPECT_EQ(compiled.size(), fused.size());
    config.precision = Precision::kF32;
    for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(topology, config)) {
      if (p.algorithm == "inverted_residual") planned.insert(p.layer);
    }
    EXPECT_EQ(planned, compiled);
  }
  for (const char* mode : {"off", "auto", "large"}) {
    RunConfig config = OpConfig();
    config.options["inverted_residual"] = mode;
    const auto exe = FindBackend("onednn")->Compile(topology, config);
    for (const StepInfo& step : exe->steps()) {
      EXPECT_EQ(step.kernel.find("inverted residual"), std::string::npos)
          << mode << ": " << step.name;
    }
  }
  // A calibration records what auto came to: large blocks fused where the kernel is built for
  // AVX-512 (where it was measured to win), none elsewhere.
  RunConfig config = OpConfig();
  EXPECT_EQ(FindBackend("onednn")->PlanChoices(config).at("inverted_residual"),
            onednn::InvertedResidualBuiltForAvx512() ? "large" : "off");
}

// The weight-only kernel both ways against a double product of the same dequantized weights
// (GroupQuantizedWeights::At): widened within f32 rounding; the integer dot kernel (where built)
// within what quantizing each input to 16 bits can lose, s / 2 per input with s = its group's
// max |x| / 32639, and exact (to f32 rounding) where every input is already such an integer.
// Inputs whose groups differ in scale by 1e4, and inputs of 1e-36 (where kLevels / max is beyond
// f32), 45 and 130 inputs (partial quads and groups), 70
// outputs (a partial panel, both w4 nibbles), 1 to 9 rows (the 4-row blocks' passes); a NaN
// input makes its row's outputs NaN.
TEST(OnednnWeightOnly, KernelSumsMatchADoubleProductWithinTheInputQuantization) {
  using onednn::WeightOnlyDense;
  using onednn::WeightOnlyKernel;
  constexpr double kLevels = WeightOnlyDense::kInputLevels;
  // The option: int-dot where the build has it, else one line naming the option.
  EXPECT_EQ(onednn::WeightOnlyKernelFor("widened"), WeightOnlyKernel::kWidened);
  if (onednn::HasIntegerDotKernel()) {
    EXPECT_EQ(onednn::WeightOnlyKernelFor("int-dot"), WeightOnlyKernel::kIntegerDot);
    EXPECT_EQ(onednn::WeightOnlyKernelFor("auto"), WeightOnlyKernel::kIntegerDot);
  } else {
    EXPECT_THROW(onednn::WeightOnlyKernelFor("int-dot"), Error);
    EXPECT_EQ(onednn::WeightOnlyKernelFor("auto"), WeightOnlyKernel::kWidened);
  }
  const int64_t outputs = 70;
  int checked_dot = 0;
  for (const int64_t inputs : {45, 130}) {
    std::vector<float> w(static_cast<size_t>(inputs * outputs));
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37 * static_cast<double>(i));
    for (const Precision precision : {Precision::kW8, Precision::kW4}) {
      const GroupQuantizedWeights q = QuantizeByGroups(w, inputs, outputs, precision);
      for (const WeightOnlyKernel kind :
           {WeightOnlyKernel::kWidened, WeightOnlyKernel::kIntegerDot}) {
        const WeightOnlyDense kernel(q, kind);
        if (kernel.kernel != kind) {
          ASSERT_FALSE(onednn::HasIntegerDotKernel());
          continue;  // the build has no AVX512-VNNI: widened only
        }
        const bool dot = kind == WeightOnlyKernel::kIntegerDot;
        // 0: groups 1e4 apart; 1: integers; 2: groups of 1e-36 (kLevels / max beyond f32).
        for (const int inputs_kind : {0, 1, 2}) {
          const bool integers = inputs_kind == 1;
          for (const int64_t rows : {1, 2, 3, 4, 5, 9}) {
            std::vector<float> x(static_cast<size_t>(rows * inputs));
            for (size_t i = 0; i < x.size(); ++i) {
              const int64_t group = static_cast<int64_t>(i) % inputs / kWeightGroup;
              const double v = std::cos(0.11 * static_cast<double>(i));
              // Integers: each group's largest exactly kLevels, so q = x and s = 1.
              x[i] = integers ? static_cast<float>(i % 7 == 0 ? kLevels : std::round(v * kLevels))
                     : inputs_kind == 2 ? static_cast<float>(v * 1e-36)
                                        : static_cast<float>(v * (group % 2 == 0 ? 1e-3 : 10.0));
            }
            std::vector<float> y(static_cast<size_t>(rows * outputs), -1.0f);
            kernel.Run(x.data(), rows, y.data(), 2);
            double worst = 0;
            for (int64_t r = 0; r < rows; ++r) {
              std::vector<double> step(static_cast<size_t>(q.groups), 0.0);  // s / 2
              for (int64_t k = 0; k < inputs; ++k) {
                double& s = step[static_cast<size_t>(k / kWeightGroup)];
                s = std::max(s, std::abs(double(x[r * inputs + k])) / kLevels / 2);
              }
              for (int64_t j = 0; j < outputs; ++j) {
                double want = 0, scale = 0, quantization = 0;
                for (int64_t k = 0; k < inputs; ++k) {
                  const double term = double(x[r * inputs + k]) * q.At(k, j);
                  want += term;
                  scale += std::abs(term);
                  quantization +=
                      step[static_cast<size_t>(k / kWeightGroup)] * std::abs(q.At(k, j));
                }
                const double allowed =
                    (dot && !integers ? quantization : 0.0) + 4e-6 * scale + 1e-45;
                worst = std::max(worst, std::abs(y[r * outputs + j] - want) / allowed);
              }
            }
            EXPECT_LE(worst, 1.0) << PrecisionName(precision) << (dot ? " int-dot" : " widened")
                                  << " inputs " << inputs << " rows " << rows << " inputs kind "
                                  << inputs_kind;
            checked_dot += dot;
          }
        }
        std::vector<float> x(static_cast<size_t>(2 * inputs), 0.5f), y(2 * outputs, 0.0f);
        x[static_cast<size_t>(inputs + 3)] = std::nanf("");
        kernel.Run(x.data(), 2, y.data(), 2);
        for (int64_t j = 0; j < outputs; ++j) {
          EXPECT_TRUE(std::isfinite(y[j])) << j;
          EXPECT_TRUE(std::isnan(y[outputs + j])) << PrecisionName(precision) << " output " << j;
        }
      }
    }
  }
  if (!onednn::HasIntegerDotKernel()) GTEST_SKIP() << "no AVX512-VNNI in this build: widened only";
  EXPECT_EQ(checked_dot, 2 * 2 * 3 * 6);
}

// w8 and w4 dense layers (weight_only_dense.h) against the Eigen reference in the same
// precision, which multiplies the same dequantized weights by the f32 inputs: the two differ by
// the order of the additions and, in the integer dot kernel, by its 16-bit inputs (each within
// 1 / 65278 of its group's largest). 1 to 9 rows (4-row blocks and their remainders), 45 inputs
// (a partial group), 70 outputs (a partial panel): a bias and a fused activation (oneDNN's
// binary after the kernel), a fused residual add without bias and a bias alone (both in the
// kernel's store). The analysis counts the quantized bytes.
TEST(OnednnWeightOnly, DenseLayersMatchTheReferenceInTheSamePrecision) {
  for (const int rows : {1, 2, 3, 4, 5, 9}) {
    const ResolvedTopology topology =
        Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "w",
        "inputs": [{"name": "x", "shape": [)" +
                                      std::to_string(rows) +
                                      R"(, 45]}],
        "layers": [
          {"name": "a", "op": "dense", "units": 70, "activation": "relu"},
          {"name": "b", "op": "dense", "units": 70, "bias": false, "inputs": ["a"]},
          {"name": "s", "op": "add", "inputs": ["b", "a"]},
          {"name": "c", "op": "dense", "units": 70, "inputs": ["s"]}],
        "outputs": ["c"]})",
                                  "w.json"),
                {});
    for (const auto& [precision, kernel] :
         std::vector<std::pair<Precision, std::string>>{{Precision::kW8, "widened"},
                                                        {Precision::kW8, "auto"},
                                                        {Precision::kW4, "widened"},
                                                        {Precision::kW4, "auto"}}) {
      RunConfig config = OpConfig();
      config.precision = precision;
      config.options["reuse"] = "off";  // a's memory would hold c
      config.options["weight_only"] = kernel;
      auto reference = FindBackend("eigen")->Compile(topology, config);
      auto onednn = FindBackend("onednn")->Compile(topology, config);
      reference->Run();
      onednn->Run();
      const std::string what =
          std::string(PrecisionName(precision)) + " " + kernel + " rows " + std::to_string(rows);
      for (const char* tensor : {"a", "s", "c"}) {
        const AccuracyDelta d =
            CompareOutputs(onednn->ReadTensor(tensor), reference->ReadTensor(tensor));
        EXPECT_LT(d.max_rel_err, kF32Tolerance) << what << " " << tensor;
      }
      // The activation after oneDNN's binary; the residual add and the bias in the kernel's
      // store.
      ASSERT_EQ(onednn->steps().size(), 3u) << what;
      for (const StepInfo& step : onednn->steps()) {
        EXPECT_NE(step.kernel.find("int" + std::to_string(WeightOnlyBits(precision))),
                  std::string::npos)
            << step.kernel;
      }
      auto ends_with = [](const std::string& s, const std::string& end) {
        return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
      };
      const std::vector<StepInfo>& steps = onednn->steps();
      EXPECT_EQ(steps[0].kernel.find(") + bias"), std::string::npos) << steps[0].kernel;
      EXPECT_NE(steps[0].kernel.find(") + "), std::string::npos) << steps[0].kernel;  // oneDNN's
      EXPECT_TRUE(ends_with(steps[1].kernel, ") + residual add")) << steps[1].kernel;
      EXPECT_TRUE(ends_with(steps[2].kernel, ") + bias")) << steps[2].kernel;
      // ...and the quantization loses something against f32.
      RunConfig f32_config = OpConfig();
      auto f32 = FindBackend("eigen")->Compile(topology, f32_config);
      f32->Run();
      EXPECT_GT(CompareOutputs(onednn->ReadTensor("c"), f32->ReadTensor("c")).max_rel_err, 1e-4)
          << what;
    }
    const TopologyAnalysis w4 = Analyze(topology, Precision::kW4);
    EXPECT_EQ(w4.layers[1].cost.weight_bytes, WeightOnlyBytes(Precision::kW4, 70, 70));
    EXPECT_EQ(w4.layers[0].cost.weight_bytes,
              WeightOnlyBytes(Precision::kW4, 45, 70) + 70 * 4)  // the bias stays f32
        << "rows " << rows;
  }
}

// DeepSpeech's [N, T, C] <-> [T, N, C] at batch 1 moves only an axis of size 1: the same bytes in
// the same order, so neither the plan nor the compile has a step for it (a reorder copied it at a
// few GB/s); at batch 2 both do.
TEST(OnednnTranspose, MovingOnlyAxesOfSizeOneTakesNoStep) {
  const Topology t = ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1,
    "name": "tnc", "inputs": [{"name": "x", "shape": ["N", 6, 8]}],
    "layers": [{"name": "to_tnc", "op": "transpose", "perm": [1, 0, 2]},
               {"name": "act", "op": "relu"},
               {"name": "to_ntc", "op": "transpose", "perm": [1, 0, 2]},
               {"name": "fc", "op": "dense", "units": 4}]})",
                                       "tnc.json");
  RunConfig config;
  config.threads = 2;
  for (const int64_t n : {1, 2}) {
    const ResolvedTopology r = Resolve(t, {{"N", n}});
    std::set<std::string> planned, compiled;
    for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(r, config)) {
      planned.insert(r.layers[p.layer].name);
    }
    const auto exe = FindBackend("onednn")->Compile(r, config);
    for (const StepInfo& s : exe->steps()) {
      compiled.insert(s.name);
    }
    const std::set<std::string> expected =
        n == 1 ? std::set<std::string>{"act", "fc"}
               : std::set<std::string>{"to_tnc", "act", "to_ntc", "fc"};
    EXPECT_EQ(planned, expected) << "batch " << n;
    EXPECT_EQ(compiled, expected) << "batch " << n;
  }
}

// Whether oneDNN's f32 convolution over an image of `channels` (c0 below) wants its input NHWC
// (brgconv: AVX-512) at this ISA.
bool OnednnConvolutionWantsNhwc(int64_t channels) {
  using memory = dnnl::memory;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const auto f32 = memory::data_type::f32;
  const auto any = memory::format_tag::any;
  const dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
          memory::desc({2, channels, 9, 11}, f32, any),
          memory::desc({32, channels, 3, 3}, f32, any), memory::desc({32}, f32, any),
          memory::desc({2, 32, 5, 6}, f32, any), {2, 2}, {1, 1}, {1, 1}),
      engine);
  return pd.src_desc() == memory::desc({2, channels, 9, 11}, f32, memory::format_tag::nhwc);
}

// An image's 1-4 planar channels go to NHWC, where a convolution wants them so (oneDNN's brgconv:
// AVX-512), by ntpbench's copy rather than oneDNN's reorder: batch 2, odd sizes, the conv's
// output (and so the copy) matches the reference. Elsewhere (AVX2 takes the planar image as it
// is, SSE4.1 a blocked layout) no copy.
TEST(OnednnReorder, AnImagesFewChannelsGoToNhwcByACopy) {
  for (const int channels : {1, 3, 4}) {
    const std::string c = std::to_string(channels);
    const Topology t = ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1,
      "name": "image", "inputs": [{"name": "x", "shape": ["N", )" +
                                             c + R"(, 9, 11]}],
      "layers": [{"name": "c0", "op": "conv2d", "filters": 32, "kernel": 3, "padding": 1,
                  "stride": 2},
                 {"name": "a0", "op": "relu"},
                 {"name": "c1", "op": "conv2d", "filters": 32, "kernel": 1}]})",
                                         "image.json");
    const ResolvedTopology r = Resolve(t, {{"N", 2}});
    RunConfig config;
    config.threads = 2;
    const RanBoth both = RunBoth(r, config, Precision::kF32);
    ExpectClose(both, "c1", kF32Tolerance, 0.9999, c + " channels");
    int copies = 0;
    for (const StepInfo& s : both.onednn->steps()) {
      if (s.inlay && s.kernel == "ntpbench planar to NHWC copy") ++copies;
    }
    // One channel is NCHW and NHWC alike: no step.
    EXPECT_EQ(copies, channels > 1 && OnednnConvolutionWantsNhwc(channels) ? 1 : 0)
        << c << " channels";
  }
}

// ntpbench's copies between NHWC and oneDNN's nChw8c / nChw16c (layout_copy.h) write what
// oneDNN's reorder writes: a batch of 2, 7x5 pixels (not a whole number of any thread's share),
// 3 threads, both ways and both blocks.
TEST(OnednnReorder, BlockCopiesMatchOnednnsReorder) {
  using memory = dnnl::memory;
  using tag = memory::format_tag;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  for (const int block : {8, 16}) {
    const memory::dims dims = {2, 3 * block, 7, 5};
    const auto f32 = memory::data_type::f32;
    const tag blocked = block == 8 ? tag::nChw8c : tag::nChw16c;
    memory nhwc({dims, f32, tag::nhwc}, engine), expected({dims, f32, blocked}, engine);
    const int64_t n = 2 * 3 * block * 7 * 5;
    std::vector<float> to_blocked(n), back(n);
    auto* x = static_cast<float*>(nhwc.get_data_handle());
    for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.25f - 7.0f;
    dnnl::reorder(nhwc, expected).execute(stream, nhwc, expected);
    stream.wait();
    onednn::NhwcToBlocked(x, dims[0], dims[1], dims[2] * dims[3], block, 3, to_blocked.data());
    const auto* want = static_cast<const float*>(expected.get_data_handle());
    EXPECT_EQ(to_blocked, std::vector<float>(want, want + n)) << "to nChw" << block << "c";
    onednn::BlockedToNhwc(to_blocked.data(), dims[0], dims[1], dims[2] * dims[3], block, 3,
                          back.data());
    EXPECT_EQ(back, std::vector<float>(x, x + n)) << "from nChw" << block << "c";
  }
}

// Around a Winograd convolution (nChw16c on oneDNN's kernel, nChw8c on ntpbench's) between 1x1
// ones that read and write NHWC (oneDNN's brgconv: AVX-512), the layouts change by ntpbench's
// copies, not oneDNN's reorders, and every output matches the reference; batch 2, 9x11 pixels.
// Where the 1x1 convolutions pick a blocked layout themselves (AVX2) there may be no copy at all.
TEST(OnednnReorder, AWinogradConvolutionsLayoutsChangeByCopies) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  const ResolvedTopology topology =
      Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "wino",
        "inputs": [{"name": "x", "shape": [2, 48, 9, 11]}],
        "layers": [
          {"name": "c0", "op": "conv2d", "filters": 32, "kernel": 1, "activation": "relu"},
          {"name": "c1", "op": "conv2d", "filters": 32, "kernel": 3, "padding": 1,
           "activation": "relu"},
          {"name": "c2", "op": "conv2d", "filters": 48, "kernel": 1}]})",
                                "wino.json"),
              {});
  const ScopedEnv keep = KeepEveryTensor();
  for (const char* kernel : {"onednn", "ntpbench"}) {
    if (std::string(kernel) == "onednn" && !OnednnHasWinograd()) continue;
    RunConfig config = OpConfig();
    config.options["winograd"] = "all";
    config.options["winograd_kernel"] = kernel;
    const RanBoth r = RunBoth(topology, config, Precision::kF32);
    for (const char* tensor : {"c0", "c1", "c2"}) {
      ExpectClose(r, tensor, kF32Tolerance, 0.99999, std::string(kernel) + " " + tensor);
    }
    const std::string block = std::string(kernel) == "onednn" ? "nChw16c" : "nChw8c";
    std::multiset<std::string> copies;
    for (const StepInfo& s : r.onednn->steps()) {
      if (!s.inlay || s.op != "reorder" || s.name.rfind("c0.", 0) == 0) continue;
      copies.insert(s.kernel);
    }
    if (OnednnConvolutionWantsNhwc(48)) {
      EXPECT_EQ(copies, (std::multiset<std::string>{"ntpbench NHWC to " + block + " copy",
                                                    "ntpbench " + block + " to NHWC copy"}))
          << kernel;
    } else {
      for (const std::string& k : copies) EXPECT_EQ(k.rfind("ntpbench ", 0), 0u) << kernel << k;
    }
  }
}

// Grouped convolutions (4, 16 and 8 groups of 8, 2 and 4 channels, the last strided) after a
// convolution that writes NHWC (oneDNN's brgconv: AVX-512) take their input and write their
// output as it is, on a JIT kernel: no reorder before them or before the residual add, not the
// gemm fallback oneDNN picks for few channels a group. Where the first convolution writes a
// blocked layout (AVX2) they keep oneDNN's pick. Their outputs match the reference in f32 and,
// where it runs, bf16. Under onednn.grouped_layout=onednn oneDNN picks (f32: a reorder before
// g1 where c0 writes NHWC).
TEST(OnednnGroupedConvolution, StaysInTheLayoutOfTheConvolutionsAroundIt) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  const ResolvedTopology topology =
      Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "grp",
        "inputs": [{"name": "x", "shape": [2, 16, 20, 20]}],
        "layers": [
          {"name": "c0", "op": "conv2d", "filters": 32, "kernel": 3, "padding": 1},
          {"name": "r0", "op": "relu"},
          {"name": "g1", "op": "conv2d", "filters": 32, "kernel": 3, "padding": 1, "groups": 4,
           "bias": false},
          {"name": "g1_bn", "op": "batchnorm"},
          {"name": "g1_relu", "op": "relu"},
          {"name": "g2", "op": "conv2d", "filters": 32, "kernel": 3, "padding": 1, "groups": 16},
          {"name": "a2", "op": "add", "inputs": ["g2", "r0"]},
          {"name": "r2", "op": "relu"},
          {"name": "g3", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1, "stride": 2,
           "groups": 8},
          {"name": "c4", "op": "conv2d", "filters": 32, "kernel": 1, "inputs": ["g3"]}],
        "outputs": ["r2", "c4"]})",
                                "grp.json"),
              {});
  for (const Precision precision : {Precision::kF32, Precision::kBf16}) {
    if (!testing::BackendSupportFor("onednn", precision).ok) continue;
    const ScopedEnv keep = KeepEveryTensor();
    const RanBoth r = RunBoth(topology, OpConfig(), precision);
    const std::string name = PrecisionName(precision);
    for (const char* tensor : {"g1_relu", "r2", "g3", "c4"}) {
      ExpectClose(r, tensor, precision == Precision::kF32 ? kF32Tolerance : kBf16Tolerance,
                  precision == Precision::kF32 ? 0.99999 : 0.999, name + " " + tensor);
    }
    std::map<std::string, std::string> kernels;
    std::set<std::string> reordered_for;
    for (const StepInfo& s : r.onednn->steps()) {
      if (s.inlay && s.feeds >= 0) reordered_for.insert(topology.layers[s.feeds].name);
      if (!s.inlay) kernels[s.name] = s.kernel;
    }
    if (kernels["c0"].rfind("brgconv", 0) != 0) continue;  // c0 writes a blocked layout
    for (const char* step : {"g1", "g2", "a2", "g3", "c4"}) {
      EXPECT_EQ(reordered_for.count(step), 0u) << name << ": a reorder before " << step;
    }
    for (const char* conv : {"g1", "g2", "g3"}) {
      EXPECT_EQ(kernels[conv].find("gemm"), std::string::npos) << name << " " << conv;
      EXPECT_EQ(kernels[conv].find("ref"), std::string::npos) << name << " " << conv;
    }
    if (precision != Precision::kF32) continue;
    RunConfig config = OpConfig();
    config.options["grouped_layout"] = "onednn";
    const RanBoth picked = RunBoth(topology, config, precision);
    ExpectClose(picked, "r2", kF32Tolerance, 0.99999, "r2 under grouped_layout=onednn");
    bool reordered = false;
    for (const StepInfo& s : picked.onednn->steps()) {
      reordered |= s.inlay && s.feeds >= 0 && topology.layers[s.feeds].name == "g1";
    }
    EXPECT_TRUE(reordered)
        << "under grouped_layout=onednn, g1 in oneDNN's layout: c0's output reordered";
  }
}

// Winograd for f32 3x3 stride-1 convolutions with outputs of 28x28 or more (large), 14x14 or
// more (medium; auto where this CPU's probe says), never with =off.
TEST(OnednnWinograd, RunsOnLargeThreeByThreeConvolutionsUnlessTurnedOff) {
  SKIP_UNLESS_ONEDNN_HAS_WINOGRAD();
  auto kernel_of = [](const Executable& exe, const std::string& step) {
    for (const StepInfo& s : exe.steps()) {
      if (s.name == step) return s.kernel;
    }
    return std::string("(no step)");
  };
  const ResolvedTopology resnet =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/resnet50.json")), {{"size", 112}});
  RunConfig config;
  config.threads = 2;
  auto winograd_at = [&](const std::string& mode, const std::string& layer) {
    RunConfig c = config;
    c.options["winograd"] = mode;
    c.options["streamed_conv"] = "off";  // which would take the 7x7s first
    auto exe = FindBackend("onednn")->Compile(resnet, c);
    return kernel_of(*exe, layer).find("wino") != std::string::npos;
  };
  // large: 28x28 and up; medium: 14x14 too; never a 1x1.
  EXPECT_TRUE(winograd_at("large", "layer1.0.conv2"));   // 28x28
  EXPECT_FALSE(winograd_at("large", "layer2.1.conv2"));  // 14x14
  EXPECT_FALSE(winograd_at("large", "layer1.0.conv1"));  // 1x1
  EXPECT_TRUE(winograd_at("medium", "layer1.0.conv2"));
  EXPECT_TRUE(winograd_at("medium", "layer2.1.conv2"));
  EXPECT_FALSE(winograd_at("medium", "layer1.0.conv1"));
  EXPECT_FALSE(winograd_at("medium", "layer3.1.conv2"));  // 7x7
  // auto: as this CPU's probe says, and what a calibration records for a prediction.
  const std::string sizes = onednn::OnednnWinogradSizes(2);
  ASSERT_TRUE(sizes == "medium" || sizes == "large") << sizes;
  EXPECT_EQ(winograd_at("auto", "layer2.1.conv2"), sizes == "medium");
  EXPECT_TRUE(winograd_at("auto", "layer1.0.conv2"));
  EXPECT_EQ(FindBackend("onednn")->PlanChoices(config).at("winograd"), sizes);
  const ScopedEnv off("NTPB_ONEDNN_WINOGRAD", "off");
  EXPECT_EQ(
      kernel_of(*FindBackend("onednn")->Compile(resnet, config), "layer1.0.conv2").find("wino"),
      std::string::npos);
}

// A residual add after a Winograd convolution: its kernel takes the add only as a sum written
// over the operand (a binary post-op moved it to the direct kernel, 2.2x its time), so the add is
// fused that way where the operand has no later reader (c2's over r1) and stays a step of its own
// where it has (c4's: r3 is read again by the last add); the plan says the same.
TEST(OnednnWinograd, AResidualAddKeepsTheWinogradKernel) {
  SKIP_UNLESS_ONEDNN_HAS_WINOGRAD();
  const ResolvedTopology topology =
      Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "res",
        "inputs": [{"name": "x", "shape": [2, 64, 28, 28]}],
        "layers": [
          {"name": "c0", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1},
          {"name": "r0", "op": "relu"},
          {"name": "c1", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1},
          {"name": "r1", "op": "relu"},
          {"name": "c2a", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1},
          {"name": "c2", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1, "bias": false},
          {"name": "c2_bn", "op": "batchnorm"},
          {"name": "a2", "op": "add", "inputs": ["c2_bn", "r1"]},
          {"name": "r2", "op": "relu"},
          {"name": "c3", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1},
          {"name": "r3", "op": "relu"},
          {"name": "c4a", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1},
          {"name": "c4", "op": "conv2d", "filters": 64, "kernel": 3, "padding": 1},
          {"name": "a4", "op": "add", "inputs": ["c4", "r3"]},
          {"name": "r4", "op": "relu"},
          {"name": "a5", "op": "add", "inputs": ["r4", "r3"]}],
        "outputs": ["a5"]})",
                                "res.json"),
              {});
  RunConfig config = OpConfig();
  const ScopedEnv keep = KeepEveryTensor();
  const RanBoth r = RunBoth(topology, config, Precision::kF32);
  for (const char* tensor : {"r2", "r4", "a5"}) {
    ExpectClose(r, tensor, kF32Tolerance, 0.99999, tensor);
  }
  std::map<std::string, std::string> kernels;
  std::set<std::string> compiled, planned;
  for (const StepInfo& s : r.onednn->steps()) {
    if (s.inlay) continue;
    kernels[s.name] = s.kernel;
    compiled.insert(s.name);
  }
  for (const char* conv : {"c0", "c1", "c2a", "c2", "c3", "c4a", "c4"}) {
    EXPECT_NE(kernels[conv].find("wino"), std::string::npos) << conv << ": " << kernels[conv];
  }
  EXPECT_EQ(kernels.count("a2"), 0u);  // fused into c2
  EXPECT_EQ(kernels.count("a4"), 1u);  // its own step: r3 is read again
  config.precision = Precision::kF32;
  for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(topology, config)) {
    planned.insert(topology.layers[p.layer].name);
    if (topology.layers[p.layer].op == "conv2d") {
      EXPECT_EQ(p.algorithm, "winograd");
    }
  }
  EXPECT_EQ(planned, compiled);
}

// Under winograd=all, on oneDNN's kernel (where it has one) and on ntpbench's (anywhere; ResNet-50
// at 32 leaves its last 3x3 convolutions a single tile, mostly past the output's edge).
TEST(OnednnWinograd, EveryThreeByThreeConvolutionMatchesTheReference) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  const ScopedEnv all("NTPB_ONEDNN_WINOGRAD", "all");
  const ScopedEnv keep = KeepEveryTensor();
  for (const char* kernel : {"onednn", "ntpbench"}) {
    if (std::string(kernel) == "onednn" && !OnednnHasWinograd()) continue;
    const ScopedEnv which("NTPB_ONEDNN_WINOGRAD_KERNEL", kernel);
    int winograd = 0;
    for (const char* file : {"tiny_cnn.json", "resnet50.json"}) {
      const ResolvedTopology t =
          Resolve(ReadTopologyJsonFile(SourcePath(std::string("topologies/") + file)),
                  {{"size", 32}, {"n_classes", 10}});
      RunConfig config;
      config.seed = 3;
      const RanBoth r = RunBoth(t, config, Precision::kF32);
      ForEachStepResult(*r.onednn, t, [&](const StepInfo& s, const std::string& out) {
        if (s.kernel.find("wino") == std::string::npos) return;
        EXPECT_EQ(s.kernel.find("ntpbench") != std::string::npos, std::string(kernel) == "ntpbench")
            << s.name << ": " << s.kernel;
        ++winograd;
        ExpectClose(r, out, kF32Tolerance, 0.99999, std::string(kernel) + " " + s.name);
      });
      for (const std::string& out : t.outputs)
        ExpectClose(r, NumericStandIn(t, out), kF32Tolerance, 0.99999, out);
    }
    EXPECT_GT(winograd, 5) << kernel;
  }
}

// ntpbench's Winograd (winograd_3x3.h), on any machine, F(2x2, 3x3) at the smaller input and
// F(4x4, 3x3) at the larger: odd sizes whose last tiles hang over the output, a batch of 2,
// paddings of 1, 0 and uneven, a folded batchnorm, a relu and a relu6, a residual add and its
// relu fused into the output transform; a convolution whose filters are no whole blocks of 8
// stays direct. Each step against the reference; the plan names the same steps Winograd that
// the compile builds so.
TEST(OnednnWinograd, NtpbenchsKernelMatchesTheReference) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  for (const auto& [size, tile] : {std::make_pair("13, 11", "2x2"), {"29, 27", "4x4"}}) {
    const ResolvedTopology topology =
        Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "wino",
          "inputs": [{"name": "x", "shape": [2, 16, )" +
                                      std::string(size) + R"(]}],
          "layers": [
            {"name": "c0", "op": "conv2d", "filters": 24, "kernel": 3, "padding": 1,
             "activation": "relu"},
            {"name": "c1", "op": "conv2d", "filters": 32, "kernel": 3, "padding": 0, "bias": false},
            {"name": "c1_bn", "op": "batchnorm"},
            {"name": "c1_relu6", "op": "clipped_relu", "clip": 6},
            {"name": "c2", "op": "conv2d", "filters": 32, "kernel": 3, "padding": 1},
            {"name": "a2", "op": "add", "inputs": ["c2", "c1_relu6"]},
            {"name": "r2", "op": "relu"},
            {"name": "c3", "op": "conv2d", "filters": 40, "kernel": 3, "padding": [2, 0, 1, 1]},
            {"name": "c4", "op": "conv2d", "filters": 20, "kernel": 3, "padding": 1}],
          "outputs": ["c4"]})",
                                  "wino.json"),
                {});
    const std::string at = std::string(size) + ": ";
    RunConfig config = OpConfig();
    config.options["winograd"] = "all";
    config.options["winograd_kernel"] = "ntpbench";
    const ScopedEnv keep = KeepEveryTensor();
    const RanBoth r = RunBoth(topology, config, Precision::kF32);
    for (const char* tensor : {"c0", "c1_relu6", "r2", "c3", "c4"}) {
      ExpectClose(r, tensor, kF32Tolerance, 0.99999, at + tensor);
    }
    std::map<std::string, std::string> kernels;
    std::set<std::string> compiled, planned;
    for (const StepInfo& s : r.onednn->steps()) {
      if (s.inlay) continue;
      kernels[s.name] = s.kernel;
      if (s.kernel.find("ntpbench winograd") == std::string::npos) continue;
      compiled.insert(s.name);
      EXPECT_NE(s.kernel.find(std::string("F(") + tile), std::string::npos) << at << s.kernel;
    }
    EXPECT_EQ(compiled, (std::set<std::string>{"c0", "c1", "c2", "c3"})) << at;
    EXPECT_EQ(kernels.count("a2"), 0u) << at << "the add is fused into c2's output transform";
    EXPECT_EQ(kernels["c4"].find("winograd"), std::string::npos) << at << kernels["c4"];
    config.precision = Precision::kF32;
    for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(topology, config)) {
      if (p.algorithm == "winograd") planned.insert(topology.layers[p.layer].name);
    }
    EXPECT_EQ(planned, compiled) << at;
    // auto: 32 channels in and out or more (c2, c3; c0 and c1 read fewer), and 32 output tiles
    // of 2x2 or more.
    config.options["winograd"] = "auto";
    planned.clear();
    for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(topology, config)) {
      if (p.algorithm == "winograd") planned.insert(topology.layers[p.layer].name);
    }
    EXPECT_EQ(planned, (std::set<std::string>{"c2", "c3"})) << at;
  }
}

// Convolutions for ntpbench's streamed kernel (streamed_conv.h) over `batch` images of 9x7:
// 40 channels in (a block of 128 partly filled), 192 (a full block and part of the next),
// padding taps, a folded batchnorm and a relu6, a residual add and its relu, a non-square
// kernel with stride 2 and uneven padding, a strided 1x1, a 5x5 (25 taps: more than a tile
// multiplies at once); c5's 20 filters are no whole panel.
ResolvedTopology StreamedConvStack(int batch) {
  return Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "sc",
      "inputs": [{"name": "x", "shape": [)" +
                                       std::to_string(batch) + R"(, 40, 9, 7]}],
      "layers": [
        {"name": "c0", "op": "conv2d", "filters": 192, "kernel": 3, "padding": 1,
         "activation": "relu"},
        {"name": "c1", "op": "conv2d", "filters": 128, "kernel": 1, "bias": false},
        {"name": "c1_bn", "op": "batchnorm"},
        {"name": "c1_relu6", "op": "clipped_relu", "clip": 6},
        {"name": "c2", "op": "conv2d", "filters": 128, "kernel": 3, "padding": 1},
        {"name": "a2", "op": "add", "inputs": ["c2", "c1_relu6"]},
        {"name": "r2", "op": "relu"},
        {"name": "c3", "op": "conv2d", "filters": 64, "kernel": [3, 2], "stride": 2,
         "padding": [2, 0, 1, 1]},
        {"name": "c4", "op": "conv2d", "filters": 64, "kernel": 1, "stride": 2},
        {"name": "c5", "op": "conv2d", "filters": 20, "kernel": 3, "padding": 1},
        {"name": "c6", "op": "conv2d", "inputs": ["r2"], "filters": 64, "kernel": 5,
         "padding": 2}],
      "outputs": ["c5", "c6"]})",
                                   "sc.json"),
                 {});
}

std::set<std::string> PlannedAs(const ResolvedTopology& t, RunConfig config,
                                const std::string& algorithm) {
  config.precision = Precision::kF32;
  std::set<std::string> planned;
  for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(t, config)) {
    if (p.algorithm == algorithm) planned.insert(t.layers[p.layer].name);
  }
  return planned;
}

// Under streamed_conv=on, on any machine, at 2 images (126 pixels: tiles of every size) and 1:
// each step against the reference, the residual add fused into c2's epilogue, and the plan names
// the same steps streamed that the compile builds so.
TEST(OnednnStreamedConv, MatchesTheReference) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  for (const int batch : {2, 1}) {
    const ResolvedTopology topology = StreamedConvStack(batch);
    const std::string at = "batch " + std::to_string(batch) + ": ";
    RunConfig config = OpConfig();
    config.options["streamed_conv"] = "on";
    const ScopedEnv keep = KeepEveryTensor();
    const RanBoth r = RunBoth(topology, config, Precision::kF32);
    for (const char* tensor : {"c0", "c1_relu6", "r2", "c3", "c4", "c5", "c6"}) {
      ExpectClose(r, tensor, kF32Tolerance, 0.99999, at + tensor);
    }
    std::map<std::string, std::string> kernels;
    std::set<std::string> compiled;
    for (const StepInfo& s : r.onednn->steps()) {
      if (s.inlay) continue;
      kernels[s.name] = s.kernel;
      if (s.kernel.find("ntpbench streamed conv") != std::string::npos) compiled.insert(s.name);
    }
    const std::set<std::string> all = {"c0", "c1", "c2", "c3", "c4", "c6"};
    EXPECT_EQ(compiled, all) << at;
    EXPECT_EQ(kernels.count("a2"), 0u) << at << "the add is fused into c2's epilogue";
    EXPECT_EQ(PlannedAs(topology, config, "streamed"), compiled) << at;
    // Priced as oneDNN's direct convolutions where a calibration has none of its own.
    for (const PlannedStep& p : FindBackend("onednn")->PlanSteps(topology, config)) {
      EXPECT_EQ(p.priced_as_usual, p.algorithm == "streamed")
          << at << topology.layers[p.layer].name;
    }
    config.options["streamed_conv"] = "off";
    EXPECT_TRUE(PlannedAs(topology, config, "streamed").empty()) << at;
  }
}

// Under streamed_conv=small: only where the kernel is built for AVX-512, the kernel has more
// than one tap (not c1, a 1x1), the output has 64 pixels or fewer (c0 and c2 at one image: 63;
// not at two) and each of 2 threads has a panel of 64 filters (not c3, c4 and c6); under auto (the
// default) those where the network's weights (2.0 MB here) outgrow half the last-level cache of
// the machine the plan is for (64 KiB, or 3 MiB, against 1 TiB). The 1x1 c1 (63 pixels: 31.5
// FLOPs per weight byte) too where the machine's f32 ridge is a third of that or more (11, not
// 10 or unknown).
TEST(OnednnStreamedConv, AutoTakesSmallOutputsWhoseWeightsComeFromMemory) {
  for (const int batch : {1, 2}) {
    const ResolvedTopology topology = StreamedConvStack(batch);
    for (const int64_t cache : {int64_t{64} << 10, int64_t{3} << 20, int64_t{1} << 40}) {
      for (const std::string mode : {"auto", "small"}) {
        for (const double ridge : {0.0, 10.0, 11.0}) {
          RunConfig config = OpConfig();
          config.last_level_cache_bytes = cache;
          config.f32_ridge_flops_per_byte = ridge;
          config.options["streamed_conv"] = mode;
          const bool streams = onednn::StreamedConv::PanelWidth() == 64 && batch == 1 &&
                               (cache < (int64_t{1} << 40) || mode == "small");
          std::set<std::string> expected;
          if (streams) expected = {"c0", "c2"};
          if (streams && ridge > 10.5) expected.insert("c1");
          EXPECT_EQ(PlannedAs(topology, config, "streamed"), expected)
              << "batch " << batch << ", cache " << cache << ", " << mode << ", ridge " << ridge;
        }
      }
    }
  }
}

// A whole topology in bf16: its outputs against Eigen f32, with the numbers a run reports.
TEST_P(OnednnTopology, InBf16TheOutputsStayCloseToTheEigenF32Reference) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kBf16);
  const RanBoth r = RunShipped(Precision::kBf16);
  for (const std::string& out : t.outputs)
    ExpectClose(r, NumericStandIn(t, out), kBf16Tolerance, 0.99, out);
}

TEST_P(OnednnTopology, InI8TheOutputsStayCloseToTheEigenF32Reference) {
  const ScopedEnv keep = KeepEveryTensor();
  const RanBoth r = RunShipped(Precision::kI8);
  const double i8_tolerance = GetParam().i8_error_factor * kI8Tolerance;
  for (const std::string& out : t.outputs) {
    ExpectClose(r, NumericStandIn(t, out), i8_tolerance, 0.99, out);
  }
  // Every step's result, stored f32 or requantized to u8/s8, reads back as real values; except
  // an operand a later residual sum wrote its result over (u8/s8 over u8/s8).
  const std::set<std::string> overwritten =
      ForEachStepResult(*r.onednn, t, [&](const StepInfo& s, const std::string& out) {
        ExpectClose(r, out, i8_tolerance, 0.99, s.name);
      });
  // In the CNNs every residual operand but the last is stored quantized, and written over.
  const bool cnn = GetParam().file == "resnet50.json" || GetParam().file == "mobilenet_v2.json" ||
                   GetParam().file == "backbone.json";
  EXPECT_EQ(!overwritten.empty(), cnn) << overwritten.size();
  // Every topology has dense or conv layers: their inputs are quantized in inlay steps.
  int quantize_steps = 0;
  for (const StepInfo& s : r.onednn->steps()) {
    if (s.op != "quantize") continue;
    ++quantize_steps;
    EXPECT_TRUE(s.inlay && s.layer < 0 && s.feeds >= 0) << s.name;
    EXPECT_NE(s.name.find(".quantize."), std::string::npos) << s.name;
  }
  EXPECT_GT(quantize_steps, 0);
}

// i8, a residual operand stored u8 that a later layer still reads: the add cannot write over it,
// so it is dequantized for a binary post-op; where the result is a graph output (f32), likewise.
TEST(OnednnI8Residual, AnOperandReadAfterTheAddIsDequantizedNotOverwritten) {
  const ResolvedTopology t = Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology",
      "version": 1, "name": "residuals", "inputs": [{"name": "x", "shape": [1, 3, 8, 8]}],
      "layers": [
        {"name": "a", "op": "conv2d", "filters": 16, "kernel": 3, "padding": 1, "activation": "relu"},
        {"name": "b", "op": "conv2d", "filters": 16, "kernel": 1, "inputs": ["a"]},
        {"name": "s", "op": "add", "inputs": ["b", "a"]},
        {"name": "r", "op": "relu", "inputs": ["s"]},
        {"name": "c", "op": "conv2d", "filters": 16, "kernel": 1, "inputs": ["a"]},
        {"name": "e", "op": "conv2d", "filters": 16, "kernel": 1, "inputs": ["r"]},
        {"name": "f", "op": "add", "inputs": ["e", "c"]}],
      "outputs": ["f"]})",
                                                       "residuals.json"),
                                     {});
  const RanBoth r = RunBoth(t, OpConfig(), Precision::kI8);
  ExpectClose(r, "f", kI8Tolerance, 0.999, "f");
  std::set<std::string> names;
  for (const StepInfo& s : r.onednn->steps()) {
    names.insert(s.name);
    EXPECT_EQ(s.overwrites, "") << s.name;
  }
  EXPECT_TRUE(names.count("b.dequantize.a")) << "a is stored u8 and added as f32";
  EXPECT_TRUE(names.count("e.dequantize.c")) << "f is a graph output: f32, not over c";
  EXPECT_EQ(names.count("s"), 0u) << "the add is fused into b";
  ExpectClose(r, "a", kI8Tolerance, 0.999, "a, read back from u8");
}

// oneDNN 2.6's int8 1x1 kernel for AVX2 and SSE4.1 gave wrong values, differently from run to
// run, for a strided 1x1 convolution of 8 or 24 input channels on 2 threads (known_defects.h).
// The builder steps past it: every run equals the first and stays close to the reference. Runs
// at any ISA; under ONEDNN_MAX_CPU_ISA=AVX2 (ctest onednn_isa.AVX2) it checks the defect.
TEST(OnednnKnownDefects, AStridedOneByOneI8ConvolutionIsRightOnEveryRun) {
  for (const int channels : {8, 24}) {
    const std::string c = std::to_string(channels);
    const ResolvedTopology t = Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology",
        "version": 1, "name": "strided_1x1", "inputs": [{"name": "x", "shape": [2, 3, 16, 16]}],
        "layers": [
          {"name": "a", "op": "conv2d", "filters": )" + c + R"(, "kernel": 3, "padding": 1,
           "activation": "relu"},
          {"name": "down", "op": "conv2d", "filters": 16, "kernel": 1, "stride": 2}],
        "outputs": ["down"]})",
                                                         "strided_1x1.json"),
                                       {});
    const RanBoth r = RunBoth(t, OpConfig(), Precision::kI8);
    const std::vector<float> first = r.onednn->ReadTensor("down");
    for (int run = 0; run < 100; ++run) {
      r.onednn->Run();
      ASSERT_EQ(r.onednn->ReadTensor("down"), first) << channels << " channels, run " << run;
    }
    ExpectClose(r, "down", kI8Tolerance, 0.999, c + " channels");
    for (const StepInfo& s : r.onednn->steps()) {
      if (s.name == "down") {
        EXPECT_EQ(s.kernel.rfind("jit_uni_int8_1x1", 0), std::string::npos);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, OnednnTopology, ::testing::ValuesIn(ShippedTopologyCases()),
                         [](const ::testing::TestParamInfo<TopologyCase>& info) {
                           return TopologyCaseName(info.param);
                         });

}  // namespace
}  // namespace ntpb::testing
