// What is particular to the xnnpack backend (its numbers against the reference are checked by
// every_backend_test.cc): which ops it runs, that a convolution absorbs its batchnorm and relu,
// that the NCHW <-> NHWC conversions are steps of their own, its i8, and why it refuses what it
// refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/topology_file.h"
#include "tests/backends/op_cases.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

using ::testing::HasSubstr;

class XnnpackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = FindBackend("xnnpack");
    if (!backend_) GTEST_SKIP() << BackendUnavailableReason("xnnpack");
    config_.threads = 2;
  }
  static ResolvedTopology Shipped(const std::string& file, const ParamEnv& params) {
    return Resolve(ReadTopologyFile(SourcePath("topologies/" + file)), params);
  }
  const Backend* backend_ = nullptr;
  RunConfig config_;
};

TEST_F(XnnpackTest, IsAnEngineOfAFixedOperatorSet) { EXPECT_FALSE(backend_->RunsEveryOp()); }

// The ops XNNPACK has operators for: every_backend_test.cc skips a case the backend refuses, so
// this list is what keeps a refusal from hiding a regression.
TEST_F(XnnpackTest, RunsTheOpsItHasOperatorsFor) {
  const std::set<std::string> expected = {"dense",
                                          "dense_3d_relu",
                                          "dense_clipped",
                                          "dense_sigmoid",
                                          "dense_row_blocks_and_panels",
                                          "conv2d",
                                          "conv2d_stride_dilation",
                                          "conv2d_rect_kernel",
                                          "conv2d_grouped",
                                          "conv2d_depthwise",
                                          "conv2d_depthwise_multiplier",
                                          "conv2d_depthwise_dilated_padded",
                                          "conv2d_depthwise_wide_padding",
                                          "conv2d_pointwise",
                                          "conv2d_same",
                                          "max_pool",
                                          "max_pool_default_stride",
                                          "max_pool_ceil_mode",
                                          "avg_pool",
                                          "avg_pool_ceil_mode_padded",
                                          "global_avg_pool",
                                          "batchnorm",
                                          "batchnorm_2d",
                                          "batchnorm_odd_planes",
                                          "relu",
                                          "clipped_relu",
                                          "sigmoid",
                                          "leaky_relu",
                                          "hard_swish",
                                          "sqrt",
                                          "pow_square",
                                          "softmax",
                                          "add",
                                          "add_broadcast",
                                          "sub",
                                          "sub_broadcast",
                                          "mul",
                                          "mul_broadcast",
                                          "div",
                                          "div_broadcast",
                                          "reshape",
                                          "flatten"};
  std::set<std::string> run;
  for (const OpCase& c : OpCases()) {
    const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
    const Support s = backend_->Supports(t, config_);
    if (s.ok) {
      run.insert(c.label);
    } else {
      // A refusal names the layer and how to run it anyway.
      EXPECT_THAT(s.reason, HasSubstr("(layer ")) << c.label;
      EXPECT_THAT(s.reason, HasSubstr("fallback=")) << c.label;
    }
  }
  for (const std::string& label : expected) {
    EXPECT_TRUE(run.count(label)) << "xnnpack refuses " << label;
  }
}

TEST_F(XnnpackTest, AConvolutionAbsorbsItsBatchnormAndRelu) {
  const ResolvedTopology t = Shipped("resnet50.json", {{"size", 32}, {"n_classes", 10}});
  ASSERT_TRUE(backend_->Supports(t, config_).ok) << backend_->Supports(t, config_).reason;
  const auto exe = backend_->Compile(t, config_);
  int convs = 0, folded = 0, with_relu = 0, reorders = 0;
  for (const StepInfo& s : exe->steps()) {
    if (s.op == "reorder") {
      ++reorders;
      EXPECT_TRUE(s.inlay);
      EXPECT_GE(s.feeds, 0);
      EXPECT_EQ(s.layer, -1);
      continue;
    }
    ASSERT_GE(s.layer, 0) << s.name;
    if (s.op != "conv2d") continue;
    ++convs;
    if (s.fused >= 1 && t.layers[s.layer + 1].op == "batchnorm") {
      ++folded;
      EXPECT_THAT(s.kernel, HasSubstr("batchnorm folded"));
    }
    if (s.fused == 2) ++with_relu;
  }
  EXPECT_EQ(convs, 53);
  EXPECT_EQ(folded, 53);  // every convolution of ResNet-50 is followed by its batchnorm
  // 49 relus, 16 of them after a residual add (absorbed by the add's clamp instead).
  EXPECT_EQ(with_relu, 49 - 16);
  // The image into NHWC, once; the pooled [N, C] needs no conversion back.
  EXPECT_EQ(reorders, 1);
  // The plan a prediction prices is the steps Compile makes.
  std::vector<PlannedStep> compiled;
  for (const StepInfo& s : exe->steps()) {
    if (s.layer >= 0) compiled.push_back({s.layer, s.fused, ""});
  }
  const std::vector<PlannedStep> planned = backend_->PlanSteps(t, config_);
  ASSERT_EQ(planned.size(), compiled.size());
  for (size_t i = 0; i < planned.size(); ++i) {
    EXPECT_EQ(planned[i].layer, compiled[i].layer);
    EXPECT_EQ(planned[i].fused, compiled[i].fused);
  }
}

TEST_F(XnnpackTest, AFlattenOfAnImageReadsItBackInNchw) {
  const ResolvedTopology t = Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology",
    "version": 1, "name": "flat", "inputs": [{"name": "x", "shape": [2, 3, 6, 6]}],
    "layers": [
      {"name": "c", "op": "conv2d", "filters": 4, "kernel": 3},
      {"name": "f", "op": "flatten"},
      {"name": "d", "op": "dense", "units": 5}]})",
                                                       "flat.json"),
                                     {});
  const auto exe = backend_->Compile(t, config_);
  std::vector<std::string> names;
  for (const StepInfo& s : exe->steps()) names.push_back(s.name);
  EXPECT_THAT(names, ::testing::ElementsAre("c.reorder.x", "c", "f.reorder.c", "f", "d"));
  const auto reference = FindBackend("eigen")->Compile(t, config_);
  reference->Run();
  exe->Run();
  EXPECT_LT(MaxRelativeError(exe->ReadTensor("d"), reference->ReadTensor("d")), 1e-4);
  // An NHWC tensor reads back in the IR's order.
  EXPECT_LT(MaxRelativeError(exe->ReadTensor("c"), reference->ReadTensor("c")), 1e-4);
}

// Channels joined in NHWC by strided copies (GoogLeNet, DenseNet), and a one-pixel pooling
// window (torchvision's adaptive pooling of a map already that size) as the identity it is.
TEST_F(XnnpackTest, JoinsImagesAlongChannelsAndPassesAOnePixelPoolingThrough) {
  const ResolvedTopology t = Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology",
    "version": 1, "name": "join", "inputs": [{"name": "x", "shape": [2, 3, 6, 6]}],
    "layers": [
      {"name": "a", "op": "conv2d", "inputs": ["x"], "filters": 4, "kernel": 3, "padding": 1},
      {"name": "b", "op": "conv2d", "inputs": ["x"], "filters": 5, "kernel": 1},
      {"name": "j", "op": "concat", "inputs": ["a", "b", "x"]},
      {"name": "p", "op": "avg_pool", "kernel": 1},
      {"name": "q", "op": "max_pool", "kernel": 2},
      {"name": "w", "op": "concat", "inputs": ["a", "a"], "axis": -1}]})",
                                                       "join.json"),
                                     {});
  ASSERT_TRUE(backend_->Supports(t, config_).ok) << backend_->Supports(t, config_).reason;
  const auto exe = backend_->Compile(t, config_);
  std::map<std::string, std::string> kernel;
  for (const StepInfo& s : exe->steps()) kernel[s.name] = s.kernel;
  EXPECT_EQ(kernel["j"], "xnn_copy_nc_x32 per input");
  EXPECT_THAT(kernel["p"], HasSubstr("identity"));
  const auto reference = FindBackend("eigen")->Compile(t, config_);
  reference->Run();
  exe->Run();
  // Along an image's last axis (W) the copies run in the IR's order, not NHWC's.
  for (const char* out : {"j", "p", "q", "w"}) {
    EXPECT_LT(MaxRelativeError(exe->ReadTensor(out), reference->ReadTensor(out)), 1e-4) << out;
  }
}

TEST_F(XnnpackTest, RefusesWhatItHasNoOperatorForWithTheReason) {
  const ResolvedTopology speech =
      Shipped("deepspeech.json", {{"N", 2}, {"T", 4}, {"n_hidden", 16}});
  const Support s = backend_->Supports(speech, config_);
  EXPECT_FALSE(s.ok);
  EXPECT_THAT(s.reason, HasSubstr("no operator for op 'lstm'"));
  EXPECT_THAT(s.reason, HasSubstr("--backend hetero --place default=xnnpack,fallback="));
  const ResolvedTopology mlp = Shipped("mlp.json", {{"N", 2}});
  ASSERT_TRUE(backend_->Supports(mlp, config_).ok);
  RunConfig config = config_;
  config.precision = Precision::kBf16;
  EXPECT_THAT(backend_->Supports(mlp, config).reason, HasSubstr("no bf16"));
  config.precision = Precision::kF16;
  EXPECT_FALSE(backend_->Supports(mlp, config).ok);
  EXPECT_THROW(backend_->Compile(speech, config_), Error);
}

// i8 as XNNPACK runs it: qs8 convolutions (qc8 weights), fully connected, adds and pooling, the
// rest f32 between dequantize and quantize steps; calibrated on the reference's ranges as on
// onednn, so the outputs stay close to f32 (per-tensor activations, 8 bits over each range).
TEST_F(XnnpackTest, InI8TheCnnsStayCloseToTheEigenF32Reference) {
  for (const auto& [file, params] : std::vector<std::pair<std::string, ParamEnv>>{
           {"tiny_cnn.json", {{"N", 2}}},
           {"mlp.json", {{"N", 3}, {"n_hidden", 32}}},
           {"resnet50.json", {{"size", 32}, {"n_classes", 10}}},
           {"mobilenet_v2.json", {{"size", 32}, {"n_classes", 10}}}}) {
    const ResolvedTopology t = Shipped(file, params);
    RunConfig config = config_;
    config.seed = 5;
    const auto reference = FindBackend("eigen")->Compile(t, config);
    config.precision = Precision::kI8;
    ASSERT_TRUE(backend_->Supports(t, config).ok) << file;
    const auto exe = backend_->Compile(t, config);
    reference->Run();
    exe->Run();
    // Every step's output reads back as real values, close to the reference's.
    std::map<std::string, int> kernels;
    for (const StepInfo& s : exe->steps()) {
      ++kernels[s.kernel.substr(0, s.kernel.find(' '))];
      if (s.inlay) {
        EXPECT_TRUE(s.op == "quantize" || s.op == "dequantize" || s.op == "reorder") << s.name;
        continue;
      }
      const std::string out = t.layers[s.layer + s.fused].outputs[0];
      const std::vector<float> got = exe->ReadTensor(out), want = reference->ReadTensor(out);
      double dot = 0, gg = 0, ww = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        dot += got[i] * want[i], gg += got[i] * got[i], ww += want[i] * want[i];
      }
      if (gg > 0 && ww > 0) {
        EXPECT_GT(dot / std::sqrt(gg * ww), 0.99) << file << " " << s.name;
      }
    }
    EXPECT_GT(kernels["xnn_fully_connected_nc_qs8"], 0) << file;
    if (file != "mlp.json") {
      EXPECT_GT(kernels["xnn_convolution2d_nhwc_qc8"], 0) << file;
      EXPECT_EQ(kernels["xnn_convolution2d_nhwc_f32"], 0) << file;
    }
  }
}

}  // namespace
}  // namespace ntpb::testing
