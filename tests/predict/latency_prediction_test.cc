// The latency predictor and its calibration files: steps priced from the nearest samples of their
// kind, the backend's fusion planned as it compiles, unsampled kinds said per step, and bad
// calibration files refused with the file and field named.
#include "ntpbench/latency_prediction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/topology_file.h"
#include "src/predict/probe_samples.h"
#include "src/predict/step_pricer.h"
#include "tests/predict/mlp_calibration.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

ResolvedTopology ResolveFile(const std::string& name, const ParamEnv& env) {
  return Resolve(ReadTopologyShapes(SourcePath("topologies/" + name)), env);
}

std::vector<PlannedStep> OnePerLayer(const ResolvedTopology& r) {
  std::vector<PlannedStep> plan;
  for (size_t i = 0; i < r.layers.size(); ++i) plan.push_back({static_cast<int>(i), 0, ""});
  return plan;
}

TEST(LatencyPrediction, PricesAnUnsampledSizeFromItsNeighbours) {
  const double rate = 5e7;  // 50 GFLOP/s
  const LatencyCalibration c = MlpCalibration(rate);
  // 1500 units was never sampled: it lies between 1024 and 2048.
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 4}, {"n_hidden", 1500}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const LatencyPrediction p = PredictLatency(r, a, OnePerLayer(r), c);
  ASSERT_EQ(p.steps.size(), r.layers.size());
  EXPECT_EQ(p.uncalibrated, 0);
  EXPECT_EQ(p.batch, 4);
  const StepPrediction& fc2 = p.steps[1];
  EXPECT_EQ(fc2.layers, std::vector<std::string>{"fc2"});
  EXPECT_EQ(fc2.shape, "4x1500");
  EXPECT_TRUE(fc2.calibrated);
  EXPECT_FALSE(fc2.extrapolated);
  const double truth = fc2.features.flops / rate + 0.001;
  EXPECT_NEAR(fc2.ms, truth, 0.05 * truth);
  EXPECT_LE(fc2.low_ms, fc2.ms);
  EXPECT_GE(fc2.high_ms, fc2.ms);
  // The samples it rests on: fc2 of the widths around it, each scaled to its size.
  ASSERT_EQ(fc2.from.size(), static_cast<size_t>(fc2.samples));
  for (const PricedFrom& f : fc2.from) {
    EXPECT_NE(f.source.find("/ fc"), std::string::npos) << f.source;
    EXPECT_GE(f.estimate_ms, fc2.low_ms);
    EXPECT_LE(f.estimate_ms, fc2.high_ms);
    EXPECT_GT(f.sample_ms, 0);
  }
  double sum = 0;
  for (const StepPrediction& s : p.steps) sum += s.ms;
  EXPECT_DOUBLE_EQ(p.ms, sum);
}

// A step larger than every sample of its kind is priced by the rates the kind's best samples
// reached, not by its nearest (largest) samples scaled up: here the largest samples ran at half
// the rate of the others (as a probe's widest layers may, short of the caches), and a step 100x
// their size runs at the machine's rate.
TEST(LatencyPrediction, BeyondEverySampleAStepRunsAtWhatItsKindReachesAtBest) {
  const double rate = 5e7;
  LatencyCalibration c = MlpCalibration(rate);
  for (CalibrationSample& s : c.samples) {
    if (s.source.find("n_hidden=4096 /") != std::string::npos) s.ms *= 2;
  }
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 256}, {"n_hidden", 8192}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const StepPrediction fc2 = PredictLatency(r, a, OnePerLayer(r), c).steps[1];
  ASSERT_EQ(fc2.layers, std::vector<std::string>{"fc2"});
  EXPECT_TRUE(fc2.extrapolated);
  const double truth = fc2.features.flops / rate;
  EXPECT_NEAR(fc2.ms, truth, 0.1 * truth);
  EXPECT_LE(fc2.low_ms, fc2.ms);
  EXPECT_GE(fc2.high_ms, fc2.ms);
}

// Samples whose networks fit the L2s ran 4x faster (their weights stayed there between
// inferences); a step whose network does not fit is priced from the samples whose networks do
// not either, though samples of the other level lie nearer in size.
TEST(LatencyPrediction, PricesAStepFromNetworksThatFitTheSameCacheLevel) {
  const double rate = 5e7;
  LatencyCalibration c = MlpCalibration(rate);
  auto context = [](int64_t hidden) {
    const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 8}, {"n_hidden", hidden}});
    return Analyze(r, Precision::kF32).total;
  };
  const Cost fits = context(1024), not_fits = context(2048);
  const double l2s =
      static_cast<double>(fits.weight_traffic_bytes + fits.input_bytes + fits.output_bytes) * 1.1;
  ASSERT_LT(l2s, not_fits.weight_traffic_bytes + not_fits.input_bytes + not_fits.output_bytes);
  c.cache_bytes = {1 << 16, static_cast<int64_t>(l2s), int64_t{1} << 40};
  for (CalibrationSample& s : c.samples) {
    if (s.features.context_bytes <= l2s) s.ms /= 4;
  }
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 4}, {"n_hidden", 1500}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  ASSERT_GT(a.total.weight_traffic_bytes, l2s);
  const StepPrediction fc2 = PredictLatency(r, a, OnePerLayer(r), c).steps[1];
  ASSERT_EQ(fc2.layers, std::vector<std::string>{"fc2"});
  const double truth = fc2.features.flops / rate + 0.001;
  EXPECT_NEAR(fc2.ms, truth, 0.1 * truth);
  // Without the cache sizes (a calibration from before they were recorded) the 1024-wide
  // samples' speed is mixed in.
  c.cache_bytes.clear();
  EXPECT_LT(PredictLatency(r, a, OnePerLayer(r), c).steps[1].ms, 0.8 * truth);
}

// The last level keeps most of a network just over its size (a 35 MB MLP read its weights at 51
// GB/s on a Zen 4 VM of 32 MiB L3 and 35-37 GB/s DRAM): such a step is priced from the samples
// whose networks fit it, not from those read from memory.
TEST(LatencyPrediction, ANetworkJustOverTheLastLevelIsPricedAsMostlyInIt) {
  const double rate = 5e7;
  LatencyCalibration c = MlpCalibration(rate);
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 4}, {"n_hidden", 1500}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const double bytes = static_cast<double>(a.total.weight_traffic_bytes + a.total.input_bytes +
                                           a.total.output_bytes);
  const double llc = bytes / 1.05;
  c.cache_bytes = {1 << 16, 1 << 17, static_cast<int64_t>(llc)};
  for (CalibrationSample& s : c.samples) {
    if (s.features.context_bytes <= llc) s.ms /= 4;
  }
  const StepPrediction fc2 = PredictLatency(r, a, OnePerLayer(r), c).steps[1];
  ASSERT_EQ(fc2.layers, std::vector<std::string>{"fc2"});
  const double from_memory = fc2.features.flops / rate + 0.001;
  EXPECT_LT(fc2.ms, 0.5 * from_memory) << "priced from the networks read from memory";
  // Ten times the last level: from memory.
  c.cache_bytes[2] = static_cast<int64_t>(bytes / 10);
  for (CalibrationSample& s : c.samples) {
    if (s.features.context_bytes <= llc) s.ms *= 4;
    if (s.features.context_bytes <= bytes / 10) s.ms /= 4;
  }
  EXPECT_NEAR(PredictLatency(r, a, OnePerLayer(r), c).steps[1].ms, from_memory, 0.1 * from_memory);
}

// The same layers in networks of 100x the FLOPs ran 3x slower (more run between two uses of
// their weights): a step is priced from the samples of networks of its own size.
TEST(LatencyPrediction, PricesAStepFromNetworksOfItsOwnSize) {
  const double rate = 5e7;
  LatencyCalibration c = MlpCalibration(rate);
  const size_t own = c.samples.size();
  for (size_t i = 0; i < own; ++i) {
    CalibrationSample s = c.samples[i];
    s.features.context_flops *= 100;
    s.ms *= 3;
    s.source = "probe_large " + s.source.substr(s.source.find(' ') + 1);
    c.samples.push_back(s);
  }
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 4}, {"n_hidden", 1500}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const StepPrediction fc2 = PredictLatency(r, a, OnePerLayer(r), c).steps[1];
  ASSERT_GT(fc2.features.context_flops, 0);
  const double truth = fc2.features.flops / rate + 0.001;
  EXPECT_NEAR(fc2.ms, truth, 0.1 * truth);
  // Samples from before the network's FLOPs were recorded: both kinds of network mixed.
  for (CalibrationSample& s : c.samples) s.features.context_flops = 0;
  EXPECT_GT(PredictLatency(r, a, OnePerLayer(r), c).steps[1].ms, 1.25 * truth);
}

// Dense steps take a fixed 0.2 ms besides their FLOPs (the softmax 1 us): a step twice the
// work of its nearest samples is priced with part of that time kept, not doubled with the rest.
TEST(LatencyPrediction, KeepsPartOfAKindsFixedTimeUnscaled) {
  const double rate = 5e7, fixed = 0.2;
  LatencyCalibration c = MlpCalibration(rate);
  std::vector<CalibrationSample> kept;
  for (CalibrationSample& s : c.samples) {
    if (s.source.find("n_hidden=2048") != std::string::npos ||
        s.source.find("n_hidden=4096") != std::string::npos) {
      continue;  // the step lies beyond every sample, within 3x of the nearest
    }
    if (s.source.find("/ fc") != std::string::npos) s.ms += fixed - 0.001;
    kept.push_back(s);
  }
  c.samples = kept;
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 4}, {"n_hidden", 1500}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const StepPrediction fc2 = PredictLatency(r, a, OnePerLayer(r), c).steps[1];
  ASSERT_EQ(fc2.layers, std::vector<std::string>{"fc2"});
  ASSERT_FALSE(fc2.extrapolated);
  const double truth = fc2.features.flops / rate + fixed;
  // Scaled whole from the samples below it (the nearest 2.1x fewer FLOPs): 0.75 ms, 1.34x.
  EXPECT_GT(fc2.ms, truth);
  EXPECT_LT(fc2.ms, 1.25 * truth);
}

// A kind sampled only large (as Winograd's convolutions are: 0.15-1.8 ms on a Zen 4 VM) knows
// nothing of its fixed time: a step 16x below its samples is scaled by its work, with no more
// kept unscaled than the op's cheapest steps take (here 1 us), not half the kind's shortest.
TEST(LatencyPrediction, BelowEveryOneOfItsKindKeepsOnlyItsOpsFixedTime) {
  const double rate = 5e7;
  LatencyCalibration c = MlpCalibration(rate);
  const size_t dense = c.samples.size();
  for (size_t i = 0; i < dense; ++i) {
    const CalibrationSample& s = c.samples[i];
    if (s.source.find("n_hidden=2048 / fc2") == std::string::npos &&
        s.source.find("n_hidden=4096 / fc2") == std::string::npos) {
      continue;
    }
    CalibrationSample large = s;
    large.features.family = "dense.panels";
    c.samples.push_back(large);
  }
  ASSERT_EQ(c.samples.size(), dense + 4);  // 2048 and 4096 at batch 1 and 8
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 4}, {"n_hidden", 512}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  StepFeatures step = FeaturesOfStep(r, a, {1, 0, ""}, 16);  // fc2
  step.family = "dense.panels";
  const StepPrice price = StepPricer(c).Price(step);
  ASSERT_TRUE(price.priced);
  EXPECT_EQ(price.level, step.Signature());
  EXPECT_TRUE(price.extrapolated);
  const double truth = step.flops / rate + 0.001;
  // Half the kind's shortest sample (0.17 ms) kept would price it at 2.7x.
  EXPECT_NEAR(price.ms, truth, 0.1 * truth);
}

// An algorithm the calibration has no sample of (one added since) that runs at about its op's
// usual kernels' rate (conv2d.streamed) is priced by theirs; one that does not say so, or
// whose op has no sample either, stays unpriced.
TEST(LatencyPrediction, AKindNeverSampledIsPricedAsItsOpsPlainKernels) {
  const LatencyCalibration c = MlpCalibration(5e7);
  const ResolvedTopology r = ResolveFile("mlp.json", {{"N", 4}, {"n_hidden", 512}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const StepFeatures plain = FeaturesOfStep(r, a, {1, 0, ""}, 16);  // fc2
  ASSERT_EQ(plain.family, "dense");
  const StepPrice as_plain = StepPricer(c).Price(plain);
  ASSERT_TRUE(as_plain.priced);
  PlannedStep planned{1, 0, "newkind"};
  EXPECT_FALSE(StepPricer(c).Price(FeaturesOfStep(r, a, planned, 16)).priced);
  planned.priced_as_usual = true;
  StepFeatures unsampled = FeaturesOfStep(r, a, planned, 16);
  EXPECT_EQ(unsampled.family, "dense.newkind");
  EXPECT_EQ(unsampled.usual_family, "dense");
  const StepPrice price = StepPricer(c).Price(unsampled);
  ASSERT_TRUE(price.priced);
  EXPECT_EQ(price.level, "dense");
  EXPECT_FALSE(price.own_kind);
  EXPECT_NEAR(price.ms, as_plain.ms, 0.5 * as_plain.ms);  // the same layer, broader samples
  unsampled.family = "conv2d.newkind";
  unsampled.usual_family = "conv2d";
  EXPECT_FALSE(StepPricer(c).Price(unsampled).priced);
}

TEST(LatencyPrediction, SaysWhichStepsTheCalibrationNeverSampled) {
  const LatencyCalibration c = MlpCalibration(5e7);
  const ResolvedTopology r = ResolveFile("tiny_cnn.json", {{"N", 1}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const LatencyPrediction p = PredictLatency(r, a, OnePerLayer(r), c);
  int convs = 0;
  for (const StepPrediction& s : p.steps) {
    if (s.features.family.rfind("conv2d", 0) != 0) continue;
    ++convs;
    EXPECT_FALSE(s.calibrated) << s.layers.front();
    EXPECT_EQ(s.ms, 0);
    EXPECT_NE(s.basis.find("not calibrated: no conv2d"), std::string::npos) << s.basis;
  }
  EXPECT_EQ(convs, 4);
  EXPECT_GE(p.uncalibrated, convs);
  // The dense classifier and softmax were sampled: they are priced, the rest left out.
  EXPECT_TRUE(p.steps.back().calibrated);
  EXPECT_GT(p.ms, 0);
}

TEST(LatencyPrediction, FeaturesNameTheKernelKindAndTheFusedLayers) {
  const ResolvedTopology r = ResolveFile("mobilenet_v2.json", {{"N", 2}});
  const TopologyAnalysis a = Analyze(r, Precision::kBf16);
  const int dw = r.LayerIndex("features.1.depthwise");
  ASSERT_GE(dw, 0);
  const StepFeatures f = FeaturesOfStep(r, a, {dw, 2, ""}, 16);
  EXPECT_EQ(f.family, "conv2d.depthwise");
  EXPECT_EQ(f.detail, "k3s1");
  EXPECT_EQ(f.fused, "+batchnorm+clipped_relu");
  EXPECT_EQ(f.Signature(), "conv2d.depthwise[k3s1]+batchnorm+clipped_relu");
  EXPECT_EQ(f.batch, 2);
  const Cost cost = FusedCost(a, dw, 2);
  EXPECT_EQ(f.flops, static_cast<double>(cost.flops));
  EXPECT_EQ(f.bytes,
            static_cast<double>(cost.weight_traffic_bytes + cost.input_bytes + cost.output_bytes));
  const StepFeatures stem = FeaturesOfStep(r, a, {0, 0, ""}, 16);
  EXPECT_EQ(stem.Signature(), "conv2d.image[k3s2]");
}

// One layer of llama.json at a decode step's single row, sized so that some dense layers are
// 4 MiB or more in bf16 (ntpbench's bf16 panels) and some not: 1024 wide, 2816 in the MLP, a
// 4096-token vocabulary.
ParamEnv SmallLlamaDecodeStep() {
  return {{"layers", 1},   {"prompt", 1}, {"hidden", 1024}, {"heads", 16},
          {"kv_heads", 4}, {"ffn", 2816}, {"vocab", 4096},  {"context", 64}};
}

// oneDNN fuses a convolution with its batchnorm and activation, a residual add and its
// activation (in f32; in i8 and bf16 the add stays a step): the plan says so without
// compiling, as the run's steps do, in every precision the machine runs.
TEST(LatencyPrediction, TheOnednnPlanFusesAsItsCompileDoes) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  const Backend& onednn = *FindBackend("onednn");
  for (const auto& [file, params] :
       std::vector<std::pair<std::string, ParamEnv>>{{"tiny_cnn.json", {{"N", 1}}},
                                                     {"mobilenet_v2.json", {{"size", 32}}},
                                                     {"resnet50.json", {{"size", 32}}},
                                                     {"bert.json", {{"layers", 1}, {"seq", 16}}},
                                                     {"llama.json", SmallLlamaDecodeStep()}}) {
    const ResolvedTopology t = ResolveFile(file, params);
    for (Precision precision : {Precision::kF32, Precision::kBf16, Precision::kI8}) {
      RunConfig config;
      config.precision = precision;
      if (!onednn.Supports(t, config).ok) continue;  // bf16 without AVX-512
      const std::vector<PlannedStep> plan = onednn.PlanSteps(t, config);
      const std::unique_ptr<Executable> exe = onednn.Compile(t, config);
      std::vector<std::pair<int, int>> planned, compiled;
      for (const PlannedStep& p : plan) planned.push_back({p.layer, p.fused});
      for (const StepInfo& s : exe->steps()) {
        if (!s.inlay) compiled.push_back({s.layer, s.fused});
      }
      EXPECT_EQ(planned, compiled) << file << " " << PrecisionName(precision);
    }
  }
  const ResolvedTopology r = ResolveFile("tiny_cnn.json", {{"N", 1}});
  RunConfig config;
  const std::vector<PlannedStep> plan = onednn.PlanSteps(r, config);
  EXPECT_LT(plan.size(), r.layers.size());
  config.options["fusion"] = "off";
  EXPECT_EQ(onednn.PlanSteps(r, config).size(), r.layers.size());
  // Eigen fuses nothing.
  EXPECT_EQ(FindBackend("eigen")->PlanSteps(r, {}).size(), r.layers.size());
}

// The plan names the convolutions run as Winograd (a kind of step of their own to a
// calibration), as the compile builds them: where oneDNN has Winograd for the ISA (AVX-512),
// oneDNN's, on f32 3x3 stride 1, 64 channels in and out or more, at 28x28 or more (14x14 where
// its probe says so); elsewhere ntpbench's, at 32 channels or more and 32 output tiles of 2x2 or
// more (F(4x4) where there are 32 of 4x4).
TEST(LatencyPrediction, TheOnednnPlanNamesItsWinogradConvolutions) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  const Backend& onednn = *FindBackend("onednn");
  // ResNet-50 at 112: layer1's 3x3 convolutions at 28x28 over 64 channels, layer2's at 14x14
  // over 128 (the first strided); the rest smaller.
  const ResolvedTopology t = ResolveFile("resnet50.json", {{"size", 112}});
  RunConfig config;
  const std::unique_ptr<Executable> exe = onednn.Compile(t, config);
  std::set<int> compiled;
  bool ntpbench_kernel = false;
  for (const StepInfo& s : exe->steps()) {
    if (s.inlay || s.kernel.find("wino") == std::string::npos) continue;
    compiled.insert(s.layer);
    ntpbench_kernel |= s.kernel.find("ntpbench") != std::string::npos;
  }
  ASSERT_FALSE(compiled.empty());
  // oneDNN's kernel: from 28x28, or from 14x14 where this CPU's probe said so (winograd=auto).
  const int64_t least_side = onednn.PlanChoices(config).at("winograd") == "medium" ? 14 : 28;
  std::set<int> planned;
  for (const PlannedStep& p : onednn.PlanSteps(t, config)) {
    const ResolvedLayer& l = t.layers[p.layer];
    const bool three_by_three =
        l.op == "conv2d" && l.attrs.Ints("kernel")[0] == 3 && l.attrs.Ints("stride")[0] == 1;
    const Shape& out = l.output_shapes.at(0);
    const bool expected =
        three_by_three && (ntpbench_kernel ? l.input_shapes[0][1] >= 32 && out[1] >= 32 &&
                                                 ((out[2] + 1) / 2) * ((out[3] + 1) / 2) >= 32
                                           : l.input_shapes[0][1] >= 64 && out[2] >= least_side);
    EXPECT_EQ(p.algorithm == "winograd", expected) << l.name;  // the fc: f32 panels
    if (p.algorithm == "winograd") planned.insert(p.layer);
  }
  EXPECT_EQ(planned, compiled);
  // layer1's three bottlenecks; with ntpbench's or from 14x14, layer2's three unstrided ones too.
  EXPECT_EQ(planned.size(), ntpbench_kernel || least_side == 14 ? 6u : 3u);
  // A first convolution over an image's 3 channels is never Winograd (3-4x slower there), nor
  // one over 32; under winograd=all oneDNN's takes it, ntpbench's needs whole blocks of 8.
  const ResolvedTopology tiny = ResolveFile("tiny_cnn.json", {{"size", 64}, {"width", 32}});
  EXPECT_EQ(onednn.PlanSteps(tiny, config).front().algorithm, "");
  config.options["winograd"] = "all";
  EXPECT_EQ(onednn.PlanSteps(tiny, config).front().algorithm, ntpbench_kernel ? "" : "winograd");
  config.options["winograd"] = "off";
  for (const PlannedStep& p : onednn.PlanSteps(t, config)) {
    EXPECT_NE(p.algorithm, "winograd") << p.layer;
  }
  // bf16 has none.
  config.options.clear();
  config.precision = Precision::kBf16;
  for (const PlannedStep& p : onednn.PlanSteps(t, config)) {
    EXPECT_NE(p.algorithm, "winograd") << p.layer;
  }
}

// The plan names the bf16 dense layers that run on ntpbench's panels (a kind of step of their
// own to a calibration, as Winograd's): those the compile builds so, layers of 4 MiB or more at
// 1-4 rows, a residual add fused or not; none under onednn.bf16_dense=matmul. In f32, those the
// compile runs on the f32 panels (every layer with a panel of 64 outputs a thread), none under
// onednn.f32_dense=matmul.
TEST(LatencyPrediction, TheOnednnPlanNamesItsDensePanels) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kBf16);
  const Backend& onednn = *FindBackend("onednn");
  const ResolvedTopology t = ResolveFile("llama.json", SmallLlamaDecodeStep());
  RunConfig config;
  config.precision = Precision::kBf16;
  config.threads = 2;
  const std::unique_ptr<Executable> exe = onednn.Compile(t, config);
  std::set<std::string> compiled, planned;
  for (const StepInfo& s : exe->steps()) {
    if (!s.inlay && s.kernel.find("bf16 panels") != std::string::npos) {
      compiled.insert(t.layers[s.layer].name);
    }
  }
  for (const PlannedStep& p : onednn.PlanSteps(t, config)) {
    if (p.algorithm == "panels") planned.insert(t.layers[p.layer].name);
  }
  EXPECT_EQ(planned, compiled);
  // The MLP's gate and up projection (1024 x 5632, 11 MiB), its down projection fc2 (2816 x 1024,
  // with the residual add) and the head (1024 x 4096, 8 MiB); not the attention's 2 MiB ones.
  EXPECT_EQ(planned, (std::set<std::string>{"blk0.gate_up", "blk0.fc2", "lm_head"}));
  config.options["bf16_dense"] = "matmul";
  for (const PlannedStep& p : onednn.PlanSteps(t, config)) EXPECT_EQ(p.algorithm, "") << p.layer;
  config.options.clear();
  config.precision = Precision::kF32;
  const std::unique_ptr<Executable> f32 = onednn.Compile(t, config);
  std::set<std::string> compiled_f32, planned_f32;
  for (const StepInfo& s : f32->steps()) {
    if (!s.inlay && s.kernel.find("f32 panels") != std::string::npos) {
      compiled_f32.insert(t.layers[s.layer].name);
    }
  }
  for (const PlannedStep& p : onednn.PlanSteps(t, config)) {
    if (p.algorithm == "panels") planned_f32.insert(t.layers[p.layer].name);
  }
  EXPECT_EQ(planned_f32, compiled_f32);
  EXPECT_GT(planned_f32.size(), planned.size()) << "the attention's projections too";
  config.options["f32_dense"] = "matmul";
  for (const PlannedStep& p : onednn.PlanSteps(t, config)) EXPECT_EQ(p.algorithm, "") << p.layer;
}

// A prediction plans the steps the calibration's machine would have run: its recorded choice of
// bf16 depthwise kernel and Winograd, not the predicting machine's (an Intel guest calibrated on
// ntpbench's widened depthwise kernel, predicted from a Zen 4 whose auto is oneDNN's, was priced
// from the wrong kind of samples: MobileNet v2 -19% to -35%).
TEST(LatencyPrediction, PlansWithTheCalibratedMachinesChoices) {
  const Backend* onednn = FindBackend("onednn");
  if (onednn == nullptr) GTEST_SKIP() << "this build has no onednn backend";
  const ResolvedTopology mobilenet = ResolveFile("mobilenet_v2.json", {{"size", 96}});
  LatencyCalibration c;
  c.file = "zen.json";
  c.backend = "onednn";
  c.precision = "bf16";
  c.threads = 2;
  auto widened = [&] {
    int n = 0;
    for (const PlannedStep& p : PlanOnCalibratedMachine(mobilenet, c, *onednn)) {
      n += p.algorithm == "widened";
    }
    return n;
  };
  c.backend_choices = {{"bf16_depthwise", "widened"}};
  EXPECT_EQ(widened(), 17) << "MobileNet v2's depthwise convolutions";
  c.backend_choices = {{"bf16_depthwise", "onednn"}};
  EXPECT_EQ(widened(), 0);
  // A machine without Winograd kernels recorded winograd=off: no Winograd step in its plan.
  const ResolvedTopology resnet = ResolveFile("resnet50.json", {{"size", 112}});
  c.precision = "f32";
  c.backend_choices = {{"winograd", "all"}};
  auto winograd = [&] {
    int n = 0;
    for (const PlannedStep& p : PlanOnCalibratedMachine(resnet, c, *onednn)) {
      n += p.algorithm == "winograd";
    }
    return n;
  };
  RunConfig all;
  all.options["winograd"] = "all";
  if (onednn->PlanChoices(all).at("winograd") == "all") {  // this machine has the kernels
    EXPECT_GT(winograd(), 0) << "its 3x3 stride-1 convolutions";
  }
  c.backend_choices = {{"winograd", "off"}};
  EXPECT_EQ(winograd(), 0);
  // Which Winograd plans as the calibrated machine chose, whatever this one has: a calibration
  // from before ntpbench's kernel (no winograd_kernel) planned oneDNN's (layer1's three 3x3
  // convolutions at 28x28), one that chose ntpbench's plans its shapes (layer2's three unstrided
  // ones at 14x14 too).
  c.backend_choices = {{"winograd", "auto"}};
  EXPECT_EQ(winograd(), 3);
  // "auto" is recorded as what its probe said since (OnednnWinogradSizes): a calibration's
  // "auto" is from before, when it meant 28x28 or more ("large"); "medium" takes layer2's
  // three unstrided ones at 14x14 too.
  c.backend_choices = {{"winograd", "large"}};
  EXPECT_EQ(winograd(), 3);
  c.backend_choices = {{"winograd", "medium"}};
  EXPECT_EQ(winograd(), 6);
  c.backend_choices = {{"winograd", "auto"}, {"winograd_kernel", "ntpbench"}};
  EXPECT_EQ(winograd(), 6);
  // An option this ntpbench no longer has is left out (what `predict --check` runs with too);
  // one added since the calibration was made runs as before it existed.
  c.backend_choices = {{"bf16_depthwise", "widened"}, {"retired_option", "on"}};
  EXPECT_EQ(CalibratedOptions(c, *onednn),
            (std::map<std::string, std::string>{{"bf16_depthwise", "widened"},
                                                {"inverted_residual", "off"},
                                                {"streamed_conv", "off"},
                                                {"winograd_kernel", "onednn"}}));
  // MobileNet v2's large inverted residual blocks are one step each where the calibration chose
  // so, three convolutions in a calibration from before the option.
  const ResolvedTopology mobilenet224 = ResolveFile("mobilenet_v2.json", {});
  auto blocks = [&] {
    int n = 0;
    for (const PlannedStep& p : PlanOnCalibratedMachine(mobilenet224, c, *onednn)) {
      n += p.algorithm == "inverted_residual";
    }
    return n;
  };
  EXPECT_EQ(blocks(), 0);
  c.backend_choices = {{"inverted_residual", "large"}};
  EXPECT_EQ(blocks(), 6) << "features.2 to features.7";
  // The streamed convolution takes the last stage's 1x1s at 7x7 (24.5 FLOPs per weight byte)
  // too where the calibrated machine's f32 ridge made its runs plan them so (a third of it or
  // more), whatever this machine's; its three 3x3s at any ridge (where the kernel is built for
  // AVX-512: else none).
  const ResolvedTopology resnet224 = ResolveFile("resnet50.json", {});
  c.backend_choices = {{"streamed_conv", "small"}};
  auto streamed = [&] {
    int n = 0;
    for (const PlannedStep& p : PlanOnCalibratedMachine(resnet224, c, *onednn)) {
      n += p.algorithm == "streamed";
    }
    return n;
  };
  c.f32_ridge_flops_per_byte = 0;
  const int three_by_three = streamed();
  c.f32_ridge_flops_per_byte = 8;
  EXPECT_EQ(streamed(), three_by_three);
  c.f32_ridge_flops_per_byte = 8.2;
  if (three_by_three > 0) {
    EXPECT_EQ(three_by_three, 3);
    EXPECT_EQ(streamed(), 9);
  } else {
    EXPECT_EQ(streamed(), 0);
  }
  c.f32_ridge_flops_per_byte = 0;
  // A choice this ntpbench's option does not have: the file and field named.
  c.backend_choices = {{"bf16_depthwise", "fast"}};
  try {
    PlanOnCalibratedMachine(mobilenet, c, *onednn);
    ADD_FAILURE() << "a value the option lacks was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("zen.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("backend_choices.bf16_depthwise"), std::string::npos)
        << e.what();
  }
  // The machine records what its auto options came to.
  RunConfig config;
  config.precision = Precision::kBf16;
  const std::map<std::string, std::string> choices = onednn->PlanChoices(config);
  ASSERT_EQ(choices.count("bf16_depthwise"), 1u);
  EXPECT_NE(choices.at("bf16_depthwise"), "auto");
  config.options["bf16_depthwise"] = "widened";
  EXPECT_EQ(onednn->PlanChoices(config).at("bf16_depthwise"), "widened");
  // inverted_residual=auto as what it comes to on this build (large with AVX-512, else off).
  const std::string blocks_choice = onednn->PlanChoices(config).at("inverted_residual");
  EXPECT_TRUE(blocks_choice == "large" || blocks_choice == "off") << blocks_choice;
}

// A Winograd convolution is a kind of its own: its samples never price a direct one.
TEST(LatencyPrediction, AnAlgorithmIsAKindOfItsOwn) {
  const ResolvedTopology r = ResolveFile("resnet50.json", {{"size", 112}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const int conv = r.LayerIndex("layer1.0.conv2");
  ASSERT_GE(conv, 0);
  EXPECT_EQ(FeaturesOfStep(r, a, {conv, 0, "winograd"}, 16).Signature(), "conv2d.winograd[k3s1]");
  EXPECT_EQ(FeaturesOfStep(r, a, {conv, 0, ""}, 16).Signature(), "conv2d[k3s1]");
}

// A convolution's output channels fill the machine's vector lanes in blocks: 24 of them run as
// 32 with 16 lanes (AVX-512) and as 24 with 8 (AVX2); its work is its FLOPs over that share.
TEST(LatencyPrediction, ChannelsFillVectorLanesInBlocks) {
  const ResolvedTopology r = ResolveFile("tiny_cnn.json", {{"width", 24}, {"size", 16}});
  const TopologyAnalysis a = Analyze(r, Precision::kF32);
  const StepFeatures avx512 = FeaturesOfStep(r, a, {0, 0, ""}, 16);
  EXPECT_DOUBLE_EQ(avx512.lane_fill, 0.75);
  EXPECT_DOUBLE_EQ(avx512.WorkFlops(), avx512.flops / 0.75);
  EXPECT_DOUBLE_EQ(FeaturesOfStep(r, a, {0, 0, ""}, 8).lane_fill, 1);
  // The depthwise convolution (24 groups of one channel) alike; conv2 has 48 outputs: full.
  EXPECT_DOUBLE_EQ(FeaturesOfStep(r, a, {r.LayerIndex("dw"), 0, ""}, 16).lane_fill, 0.75);
  EXPECT_DOUBLE_EQ(FeaturesOfStep(r, a, {r.LayerIndex("conv2"), 0, ""}, 16).lane_fill, 1);
  // Not a convolution: nothing to fill.
  EXPECT_DOUBLE_EQ(FeaturesOfStep(r, a, {r.LayerIndex("fc"), 0, ""}, 16).lane_fill, 1);
  MachineClass m;
  m.isa = "avx2 fma avx512f avx512bw";
  EXPECT_EQ(VectorLanes(m), 16);
  m.isa = "avx2 fma";
  EXPECT_EQ(VectorLanes(m), 8);
}

// A probe's first convolution over many channels times the input's reorder more than itself: not
// a sample of its kind. A network's first convolution over an image's channels is one.
TEST(LatencyCalibrationFile, LeavesOutAProbesLeadingConvolution) {
  const ResolvedTopology layers =
      Resolve(ReadTopologyShapes(SourcePath("calibration/probes/cnn_layers.json")), {{"N", 1}});
  const TopologyAnalysis a = Analyze(layers, Precision::kF32);
  const int conv = layers.LayerIndex("conv"), bn = layers.LayerIndex("bn");
  EXPECT_TRUE(IsALeadingConvolution(layers, conv, FeaturesOfStep(layers, a, {conv, 0, ""}, 16)));
  EXPECT_FALSE(IsALeadingConvolution(layers, bn, FeaturesOfStep(layers, a, {bn, 0, ""}, 16)));
  const ResolvedTopology tiny = ResolveFile("tiny_cnn.json", {{"size", 32}, {"width", 16}});
  const TopologyAnalysis ta = Analyze(tiny, Precision::kF32);
  EXPECT_FALSE(IsALeadingConvolution(tiny, 0, FeaturesOfStep(tiny, ta, {0, 0, ""}, 16)))
      << "an image's first convolution";
  const int dw = tiny.LayerIndex("dw");
  EXPECT_FALSE(IsALeadingConvolution(tiny, dw, FeaturesOfStep(tiny, ta, {dw, 0, ""}, 16)));
}

// A probe during which the machine's speed moved by more than 10% is named, the largest move
// first; within that, nothing is said.
TEST(LatencyCalibrationFile, NamesTheProbeWhoseMachineMovedMost) {
  LatencyCalibration c;
  EXPECT_EQ(DriftNote(c), "");
  c.probe_drift = {{"probe_cnn", 0.04}, {"probe_dense", -0.08}};
  EXPECT_EQ(DriftNote(c), "");
  c.probe_drift["probe_layers"] = -0.24;
  c.probe_drift["probe_recurrent"] = 0.12;
  EXPECT_EQ(DriftNote(c), "the machine's speed moved by 24% while probe_layers ran");
}

// A later pass over the same probe points: each step measured again keeps its faster time; one
// the later pass did not measure (or measured slower) keeps the first.
TEST(LatencyCalibrationFile, ALaterPassKeepsEachStepsFasterTime) {
  LatencyCalibration first, later;
  auto sample = [](const std::string& source, double ms) {
    CalibrationSample s;
    s.source = source;
    s.ms = ms;
    return s;
  };
  first.samples = {sample("probe_dense batch=1 / fc1", 0.040),
                   sample("probe_dense batch=1 / fc2", 0.020),
                   sample("probe_dense batch=8 / fc1", 0.090)};
  later.samples = {sample("probe_dense batch=1 / fc2", 0.014),
                   sample("probe_dense batch=1 / fc1", 0.050),
                   sample("probe_layers C=16 / bn", 0.001)};
  EXPECT_EQ(KeepFasterSamples(later, &first), 1);
  EXPECT_DOUBLE_EQ(first.samples[0].ms, 0.040) << "slower again: the first pass's";
  EXPECT_DOUBLE_EQ(first.samples[1].ms, 0.014);
  EXPECT_DOUBLE_EQ(first.samples[2].ms, 0.090) << "not measured again";
  EXPECT_EQ(first.samples.size(), 3u) << "a step only the later pass measured is not added";
}

// The placement of the cores each sample ran in: a later pass's faster sample brings its own; the
// points a far placement measured are named against the calibration's nearest placement; the
// calibration's own is its samples' median.
TEST(LatencyCalibrationFile, KnowsWhichPointsRanWithTheCoresApart) {
  auto sample = [](const std::string& source, double ms, double ns) {
    CalibrationSample s;
    s.source = source;
    s.ms = ms;
    s.core_to_core_ns = ns;
    return s;
  };
  LatencyCalibration first, later;
  first.samples = {sample("probe_dense batch=1 / fc1", 0.040, 175),
                   sample("probe_dense batch=1 / fc2", 0.020, 175),
                   sample("probe_dense batch=8 / fc1", 0.090, 28),
                   sample("probe_layers C=16 / bn", 0.002, 31),
                   sample("probe_layers C=32 / bn", 0.003, 182)};
  later.samples = {sample("probe_dense batch=1 / fc1", 0.027, 29),
                   sample("probe_dense batch=1 / fc2", 0.014, 30),
                   sample("probe_layers C=32 / bn", 0.004, 27)};
  for (size_t i = 0; i < 17; ++i) {  // more points near: the 5th percentile is a near one
    first.samples.push_back(sample("probe_cnn width=" + std::to_string(i) + " / conv", 0.1, 30));
  }
  EXPECT_DOUBLE_EQ(NearestCorePlacementNs(first), 30) << "the 5th percentile of 21 points";
  EXPECT_EQ(PointsPlacedApart(first, 30),
            (std::vector<std::string>{"probe_dense batch=1", "probe_layers C=32"}));
  LatencyCalibration by_time = first;
  EXPECT_EQ(KeepFasterSamples(later, &by_time), 2) << "no placement given: the faster";
  EXPECT_DOUBLE_EQ(by_time.samples[4].core_to_core_ns, 182) << "slower near: kept as it was";
  EXPECT_EQ(KeepFasterSamples(later, &first, 30), 3);
  EXPECT_DOUBLE_EQ(first.samples[0].ms, 0.027);
  EXPECT_DOUBLE_EQ(first.samples[0].core_to_core_ns, 29) << "the faster run's placement";
  EXPECT_DOUBLE_EQ(first.samples[4].ms, 0.004) << "near, though slower: the placement wins";
  EXPECT_DOUBLE_EQ(first.samples[4].core_to_core_ns, 27);
  EXPECT_TRUE(PointsPlacedApart(first, 30).empty());
  LatencyCalibration farther;
  farther.samples = {sample("probe_dense batch=8 / fc1", 0.050, 176)};
  EXPECT_EQ(KeepFasterSamples(farther, &first, 30), 0) << "faster, but farther apart";
  EXPECT_DOUBLE_EQ(first.samples[2].ms, 0.090);
  EXPECT_DOUBLE_EQ(CalibratedCorePlacementNs(first), 30);
  LatencyCalibration unmeasured;
  unmeasured.samples = {sample("probe_dense batch=1 / fc1", 0.040, 0)};
  EXPECT_EQ(NearestCorePlacementNs(unmeasured), 0);
  EXPECT_TRUE(PointsPlacedApart(unmeasured, 28).empty()) << "not measured: not apart";
  EXPECT_EQ(CalibratedCorePlacementNs(unmeasured), 0);
}

TEST(LatencyCalibrationFile, RoundTripsAndRefusesWhatIsNotOne) {
  LatencyCalibration c = MlpCalibration(1e8);
  c.machine.cpu = "Test CPU";
  c.machine.cores = 2;
  c.created = "2026-11-26T00:00:00Z";
  c.probes = {"probe_dense"};
  c.points = 14;
  c.passes = 2;
  c.cache_bytes = {98304, 4194304, 272629760};
  c.f32_ridge_flops_per_byte = 9.4;
  c.backend_choices = {{"bf16_depthwise", "widened"}};
  c.probe_drift = {{"probe_dense", -0.03}};
  c.core_to_core_ns = 31;
  c.samples[3].core_to_core_ns = 29.5;
  c.speed_references["probe_dense"] = {
      "calibration/dense.json", {"backend=eigen", "threads=1"}, "batch=1,n_input=784", 0.25};
  const std::string text = LatencyCalibrationJson(c).dump();
  const LatencyCalibration back = ParseLatencyCalibration(text, "c.json");
  EXPECT_EQ(back.probe_drift, c.probe_drift);
  ASSERT_EQ(back.speed_references.count("probe_dense"), 1u);
  const LatencyCalibration::SpeedReference& reference = back.speed_references.at("probe_dense");
  EXPECT_EQ(reference.sweep, "calibration/dense.json");
  EXPECT_EQ(reference.base, (std::vector<std::string>{"backend=eigen", "threads=1"}));
  EXPECT_EQ(reference.point, "batch=1,n_input=784");
  EXPECT_DOUBLE_EQ(reference.ms, 0.25);
  EXPECT_EQ(back.samples.size(), c.samples.size());
  EXPECT_EQ(back.samples[3].features.Signature(), c.samples[3].features.Signature());
  EXPECT_DOUBLE_EQ(back.samples[3].ms, c.samples[3].ms);
  EXPECT_EQ(back.machine.cpu, "Test CPU");
  EXPECT_EQ(back.points, 14);
  EXPECT_EQ(back.passes, 2);
  EXPECT_DOUBLE_EQ(back.core_to_core_ns, 31);
  EXPECT_DOUBLE_EQ(back.samples[3].core_to_core_ns, 29.5);
  EXPECT_DOUBLE_EQ(back.samples[2].core_to_core_ns, 0) << "not measured: absent, read as 0";
  EXPECT_EQ(back.vector_lanes, 16);
  EXPECT_EQ(back.cache_bytes, c.cache_bytes);
  EXPECT_DOUBLE_EQ(back.f32_ridge_flops_per_byte, 9.4);
  EXPECT_EQ(back.backend_choices, c.backend_choices);
  EXPECT_DOUBLE_EQ(back.samples[3].features.context_flops, c.samples[3].features.context_flops);
  EXPECT_GT(back.samples[3].features.context_flops, 0);

  auto message = [](const std::string& t) {
    try {
      ParseLatencyCalibration(t, "c.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(text.substr(0, text.size() / 2))
                .find("c.json: not a latency calibration: "
                      "not JSON (truncated?)"),
            std::string::npos);
  EXPECT_NE(message(R"({"format": "ntpbench-sweep"})").find("field 'format'"), std::string::npos);
  nlohmann::json j = nlohmann::json::parse(text);
  j["version"] = 99;
  EXPECT_NE(message(j.dump()).find("version 99, this ntpbench reads version " +
                                   std::to_string(LatencyCalibration::kVersion)),
            std::string::npos);
  // Version 2 reads, except in bf16 (its dense samples mixed two kernels).
  j = nlohmann::json::parse(text);
  j["version"] = 2;
  EXPECT_EQ(message(j.dump()), "accepted");
  j["precision"] = "bf16";
  EXPECT_NE(message(j.dump()).find("c.json: field 'version': version 2 bf16 calibration"),
            std::string::npos)
      << message(j.dump());
  j = nlohmann::json::parse(text);
  j["samples"][3]["core_to_core_ns"] = -4;
  EXPECT_NE(message(j.dump()).find("field 'samples[3].core_to_core_ns': must not be negative"),
            std::string::npos)
      << message(j.dump());
  j = nlohmann::json::parse(text);
  j.erase("core_to_core_ns");
  EXPECT_EQ(ParseLatencyCalibration(j.dump(), "c.json").core_to_core_ns, 0)
      << "a calibration from before it was measured";
  j = nlohmann::json::parse(text);
  j["samples"][2]["ms"] = -1;
  EXPECT_NE(message(j.dump()).find("field 'samples[2].ms'"), std::string::npos)
      << message(j.dump());
  j = nlohmann::json::parse(text);
  j["probe_drift"]["probe_dense"] = "a lot";
  EXPECT_NE(message(j.dump()).find("field 'probe_drift': has the wrong type"), std::string::npos)
      << message(j.dump());
  j = nlohmann::json::parse(text);
  j["speed_references"]["probe_dense"]["ms"] = 0;
  EXPECT_NE(message(j.dump()).find("field 'speed_references.probe_dense.ms': must be positive"),
            std::string::npos)
      << message(j.dump());
  j["speed_references"] = "fast";
  EXPECT_NE(message(j.dump()).find("field 'speed_references': not an object"), std::string::npos)
      << message(j.dump());
  j = nlohmann::json::parse(text);
  j["backend_choices"]["bf16_depthwise"] = 1;
  EXPECT_NE(message(j.dump()).find("field 'backend_choices': has the wrong type"),
            std::string::npos)
      << message(j.dump());
  j.erase("backend_choices");  // a calibration from before they were recorded
  EXPECT_TRUE(ParseLatencyCalibration(j.dump(), "c.json").backend_choices.empty());
  j = nlohmann::json::parse(text);
  j["passes"] = 0;
  EXPECT_NE(message(j.dump()).find("field 'passes': must be 1 or more"), std::string::npos)
      << message(j.dump());
  j.erase("passes");  // a calibration from before: one pass
  EXPECT_EQ(ParseLatencyCalibration(j.dump(), "c.json").passes, 1);
  j = nlohmann::json::parse(text);
  j["vector_lanes"] = 0;
  EXPECT_NE(message(j.dump()).find("field 'vector_lanes': must be 1 to 64"), std::string::npos)
      << message(j.dump());
  // A calibration from before the backend was asked: the calibrated CPU's width.
  j.erase("vector_lanes");
  j["machine_class"]["isa"] = "avx2 fma";
  EXPECT_EQ(ParseLatencyCalibration(j.dump(), "c.json").vector_lanes, 8);
  j = nlohmann::json::parse(text);
  j["cache_bytes"][1] = 0;
  EXPECT_NE(message(j.dump()).find("field 'cache_bytes[1]': must be a positive whole number"),
            std::string::npos)
      << message(j.dump());
  j["cache_bytes"][1] = 1e50;
  EXPECT_NE(message(j.dump()).find("field 'cache_bytes[1]'"), std::string::npos);
  j["cache_bytes"] = "big";
  EXPECT_NE(message(j.dump()).find("field 'cache_bytes': not a list"), std::string::npos);
  j = nlohmann::json::parse(text);
  j["f32_ridge_flops_per_byte"] = -1;
  EXPECT_NE(message(j.dump()).find("field 'f32_ridge_flops_per_byte': must be a finite number"),
            std::string::npos)
      << message(j.dump());
  j.erase("f32_ridge_flops_per_byte");  // a calibration from before: not measured
  // Calibrations from before the caches and the network's FLOPs were recorded read as such.
  j.erase("cache_bytes");
  j["samples"][0].erase("context_flops");
  const LatencyCalibration old = ParseLatencyCalibration(j.dump(), "c.json");
  EXPECT_TRUE(old.cache_bytes.empty());
  EXPECT_DOUBLE_EQ(old.f32_ridge_flops_per_byte, 0);
  EXPECT_EQ(old.samples[0].features.context_flops, 0);
  j = nlohmann::json::parse(text);
  j["samples"][1]["lane_fill"] = 1.5;
  EXPECT_NE(message(j.dump()).find("field 'samples[1].lane_fill': must be above 0"),
            std::string::npos)
      << message(j.dump());
  j = nlohmann::json::parse(text);
  j["samples"][0]["flops"] = "many";
  EXPECT_NE(message(j.dump()).find("field 'samples[0].flops': has the wrong type"),
            std::string::npos);
  j = nlohmann::json::parse(text);
  j["samples"] = nlohmann::json::array();
  EXPECT_NE(message(j.dump()).find("holds no sample"), std::string::npos);
}

}  // namespace
}  // namespace ntpb::testing
