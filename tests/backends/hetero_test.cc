// The hetero backend: a placement splits one topology across backends; the result equals the
// Eigen reference, the transfers between segments are copy steps, and a layer its backend cannot
// run is an error naming it unless a fallback was given. Runs with whichever backends besides
// Eigen this build has (oneDNN, OpenCL), and skips, saying so, where it has none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "src/backends/hetero/hetero_backend.h"
#include "src/topology/numeric_outputs.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

// A backend other than eigen that runs f32 here ("" when none).
std::string Other() {
  for (const std::string& name : BackendNames()) {
    const Backend* b = FindBackend(name);
    if (name == "eigen" || b->UsesPlacement()) continue;
    std::string why;
    if (b->HasDevices() && b->Devices(&why).empty()) continue;
    return name;
  }
  return "";
}

ResolvedTopology Speech() {
  return Resolve(ReadTopologyJsonFile(SourcePath("topologies/deepspeech_e2e.json")),
                 {{"N", 2}, {"seconds", 1}, {"n_hidden", 16}, {"beam", 4}});
}

TEST(HeteroBackend, ASplitTopologyMatchesTheReferenceWithItsTransfersShown) {
  const std::string other = Other();
  if (other.empty()) GTEST_SKIP() << "this build has no backend besides eigen to place layers on";
  const ResolvedTopology t = Speech();
  RunConfig config;
  config.seed = 5;
  config.placement = ParsePlacement("bilstm=" + other + ",default=eigen", "--place");
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
  const std::unique_ptr<Executable> exe = FindBackend("hetero")->Compile(t, config);
  reference->Run();
  exe->Run();
  for (const ResolvedLayer& l : t.layers) {
    const std::string out = NumericStandIn(t, l.outputs[0]);
    EXPECT_LT(MaxRelativeError(exe->ReadTensor(out), reference->ReadTensor(out)), 1e-4)
        << "layer " << l.name;
  }
  // fc3 -> bilstm crosses to the other backend, bilstm -> fc5 back: a copy step each, in front of
  // the layer it feeds.
  const int bilstm = t.LayerIndex("bilstm"), fc5 = t.LayerIndex("fc5");
  int into = -1, back = -1, lstm_step = -1;
  for (size_t i = 0; i < exe->steps().size(); ++i) {
    const StepInfo& s = exe->steps()[i];
    if (s.name == "fc3.to_" + other) into = static_cast<int>(i);
    if (s.name == "bilstm.to_eigen") back = static_cast<int>(i);
    if (s.layer == bilstm) lstm_step = static_cast<int>(i);
  }
  ASSERT_GE(into, 0);
  ASSERT_GE(back, 0);
  ASSERT_GE(lstm_step, 0);
  EXPECT_LT(into, lstm_step);
  EXPECT_LT(lstm_step, back);
  EXPECT_EQ(exe->steps()[into].op, "copy");
  EXPECT_EQ(exe->steps()[into].feeds, bilstm);
  EXPECT_EQ(exe->steps()[into].kernel, "eigen to " + other);
  EXPECT_EQ(exe->steps()[back].feeds, fc5);
  EXPECT_EQ(exe->steps()[lstm_step].kernel.rfind(other, 0), 0u) << exe->steps()[lstm_step].kernel;
  for (const StepInfo& s : exe->steps()) {
    if (s.layer >= 0) {
      EXPECT_EQ(s.name, t.layers[s.layer].name);
    }
  }
}

// One placement names each layer once: a second backend for it was silently the last one.
TEST(HeteroBackend, ALayerPlacedTwiceOnTwoBackendsIsRefused) {
  EXPECT_EQ(ParsePlacement("fc1=eigen,fc1=eigen,default=eigen", "--place").size(), 2u);
  for (const std::string other : {"onednn", "opencl", "torch", "xnnpack"}) {
    if (!FindBackend(other)) continue;
    for (const std::string& text :
         {"default=eigen,default=" + other, "fc1=" + other + ",fc1=eigen"}) {
      try {
        ParsePlacement(text, "--place");
        ADD_FAILURE() << text << " was accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.field(), "--place");
        EXPECT_NE(e.message().find("is placed twice"), std::string::npos) << e.what();
      }
    }
    return;
  }
  GTEST_SKIP() << "only eigen in this build: no second backend to place a layer on";
}

TEST(HeteroBackend, ALayerItsBackendCannotRunIsNamedUnlessItMayFallBack) {
  const ResolvedTopology t = Speech();
  RunConfig config;
  config.precision = Precision::kI8;  // eigen has no i8
  config.placement = ParsePlacement("default=eigen", "--place");
  const Support refused = FindBackend("hetero")->Supports(t, config);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.reason.find("layer 'mfcc'"), std::string::npos) << refused.reason;
  EXPECT_NE(refused.reason.find("fallback=BACKEND"), std::string::npos) << refused.reason;
  const Backend* onednn = FindBackend("onednn");
  if (!onednn || !onednn->Supports(t, config).ok) {
    GTEST_SKIP() << "no backend here runs i8 to fall back on";
  }
  config.placement = ParsePlacement("default=eigen,fallback=onednn", "--place");
  const std::unique_ptr<Executable> exe = FindBackend("hetero")->Compile(t, config);
  for (const StepInfo& s : exe->steps()) {
    EXPECT_EQ(s.kernel.rfind("fallback from eigen", 0), 0u) << s.name << ": " << s.kernel;
  }
  EXPECT_NO_THROW(exe->Run());
}

// i8 split across two backends: each part quantizes with the ranges of the whole topology's
// reference run, not those of its own inputs (random there). Inputs 50x the usual scale make
// the difference decisive: a part calibrated on random inputs would clip fc2's input at a small
// fraction of its range.
TEST(HeteroBackend, AnI8SplitQuantizesEachPartWithTheWholeTopologysRanges) {
  const ResolvedTopology t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")),
                                     {{"N", 2}, {"n_hidden", 64}});
  RunConfig config;
  config.seed = 5;
  std::vector<float> pixels(2 * 784);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = 50.0f * std::sin(0.37f * i);
  config.inputs["pixels"] = pixels;
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
  config.precision = Precision::kI8;
  std::vector<std::string> i8;
  for (const std::string& name : BackendNames()) {
    const Backend* b = FindBackend(name);
    if (!b->UsesPlacement() && b->Supports(t, config).ok) i8.push_back(name);
  }
  if (i8.size() < 2) {
    GTEST_SKIP() << "needs two backends that run i8 here, has " << ::testing::PrintToString(i8);
  }
  config.placement = ParsePlacement("fc2=" + i8[1] + ",default=" + i8[0], "--place");
  const std::unique_ptr<Executable> exe = FindBackend("hetero")->Compile(t, config);
  reference->Run();
  exe->Run();
  // Errors relative to the tensor's largest magnitude: 8 bits resolve a range, not each value.
  for (const char* out : {"fc1", "fc2", "fc3"}) {
    const std::vector<float> got = exe->ReadTensor(out), want = reference->ReadTensor(out);
    ASSERT_EQ(got.size(), want.size());
    float largest = 0, error = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      largest = std::max(largest, std::abs(want[i]));
      error = std::max(error, std::abs(got[i] - want[i]));
    }
    EXPECT_LT(error / largest, 2e-2) << out << " (largest " << largest << ")";
  }
}

TEST(HeteroBackend, BadPlacementsAreNamed) {
  EXPECT_THROW(ParsePlacement("bilstm", "--place"), Error);
  EXPECT_THROW(ParsePlacement("bilstm=nosuch,default=eigen", "--place"), Error);
  EXPECT_THROW(ParsePlacement("default=hetero", "--place"), Error);
  const ResolvedTopology t = Speech();
  RunConfig config;
  config.placement = ParsePlacement("nosuchlayer=eigen,default=eigen", "--place");
  const Support s = FindBackend("hetero")->Supports(t, config);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("nosuchlayer"), std::string::npos) << s.reason;
  config.placement = ParsePlacement("bilstm=eigen", "--place");
  EXPECT_NE(FindBackend("hetero")->Supports(t, config).reason.find("default"), std::string::npos);
  config.placement.clear();
  EXPECT_FALSE(FindBackend("hetero")->Supports(t, config).ok);
  EXPECT_EQ(PlacementText(ParsePlacement("default=eigen,bilstm=eigen,fallback=eigen", "--place")),
            "bilstm=eigen,default=eigen,fallback=eigen");
}

}  // namespace
}  // namespace ntpb::testing
