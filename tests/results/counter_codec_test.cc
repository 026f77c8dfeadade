#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ntpbench/error.h"
#include "ntpbench/results.h"
#include "ntpbench/run_file.h"
#include "src/common/run_key.h"

namespace ntpb::testing {
namespace {

RunMeasurement Sample() {
  RunMeasurement m;
  m.net.samples_per_second = 2000;
  m.net.gflops = 12.5;
  m.net.flops = 455868;
  m.net.params = 1722;
  m.net.p50_ms = 0.5;
  m.net.p90_ms = 0.6;
  m.net.p99_ms = 0.9;
  m.net.counters = {{"page_faults", 3}, {"ipc", 1.5}};
  m.memory.weight_bytes = 4096;
  m.memory.peak_activation_bytes = 8192;
  m.memory.workspace_bytes = 1024;
  m.memory.activation_bytes = 2048;
  m.memory.allocs = 0;
  m.memory.alloc_bytes = 16;
  m.memory.peak_rss_bytes = 1 << 20;
  m.accuracy.emplace();
  m.accuracy->max_rel_err = 1e-3;
  m.accuracy->cosine = 0.9999;
  m.accuracy->rms_rel_err = 2e-3;
  m.accuracy->logits_rms_rel_err = 8e-3;
  m.accuracy->top1_agreement = 0.98;
  m.accuracy->predictions = 128;
  m.markers.push_back({"stage.1", {0.2, 0.4, 9.0, {{"allocs", 1}}}});
  m.markers[0].measure.p50_ms = 0.18;
  m.markers[0].measure.min_ms = 0.15;
  m.markers[0].measure.max_ms = 0.9;
  m.net.step_samples = 4096;
  m.net.counted_iterations = 120;
  m.net.counted_ms = 0.8;
  StepMeasure inlay;
  inlay.name = "conv1.reorder.image";
  inlay.kind = StepKind::kInlay;
  inlay.order = 0;
  inlay.feeds = 0;
  inlay.inlay_op = "quantize";
  inlay.measure = {0.01, 0.02, 0, {}};
  StepMeasure fused;
  fused.name = "conv1";
  fused.kind = StepKind::kFused;
  fused.order = 1;
  fused.fused_layers = 2;
  fused.measure = {0.3, 0.6, 20, {{"page_faults", 1}}};
  fused.measure.p50_ms = 0.29;
  fused.measure.min_ms = 0.27;
  fused.measure.max_ms = 1.5;
  StepMeasure layer;
  layer.name = "fc";
  layer.order = 2;
  layer.measure = {0.19, 0.38, 5, {}};
  layer.rms_rel_err = 4e-3;
  m.steps = {inlay, fused, layer};
  m.other = {{"my_counter", 7}};
  InterferenceMeasure interference;
  interference.seconds = 2.5;
  interference.involuntary_switches = 1.25;
  interference.involuntary_switches_per_core_second = 127;
  interference.steal_share = 0.01;
  interference.others_share = 0.5;
  interference.mdape = 0.12;
  interference.core_to_core_ns = 176;
  m.interference = interference;
  return m;
}

std::map<std::string, double> Flat(const RunMeasurement& m) {
  std::map<std::string, double> flat;
  for (const EncodedCounter& c : EncodeCounters(m)) {
    EXPECT_TRUE(flat.emplace(c.name, c.value).second) << "written twice: " << c.name;
  }
  return flat;
}

// The names compare.py, baselines and every Google Benchmark tool see stay what they were.
TEST(CounterCodec, WritesGoogleBenchmarksFlatNames) {
  const std::map<std::string, double> flat = Flat(Sample());
  const std::map<std::string, double> expected_subset = {
      {"net.samples_per_second", 2000},
      {"net.flops", 455868},
      {"net.params", 1722},
      {"net.p99_ms", 0.9},
      {"net.page_faults", 3},
      {"net.allocs", 0},
      {"net.alloc_bytes", 16},
      {"mem.weight_bytes", 4096},
      {"mem.peak_activation_bytes", 8192},
      {"mem.workspace_bytes", 1024},
      {"mem.activation_bytes", 2048},
      {"mem.peak_rss_bytes", 1 << 20},
      {"acc.cosine", 0.9999},
      {"stage.1.ms", 0.2},
      {"stage.1.allocs", 1},
      {"layer.conv1.ms", 0.3},
      {"layer.conv1.fused_layers", 2},
      {"layer.conv1.page_faults", 1},
      {"layer.conv1.reorder.image.time_share", 0.02},
      {"layer.conv1.reorder.image.feeds", 0},
      {"layer.fc.order", 2},
      {"my_counter", 7},
      {"interference.others_share", 0.5},
      {"interference.involuntary_switches", 1.25},
      {"interference.mdape", 0.12},
      {"interference.core_to_core_ns", 176},
      {"stage.1.p50_ms", 0.18},
      {"layer.conv1.min_ms", 0.27},
      {"layer.conv1.max_ms", 1.5},
      {"net.step_samples", 4096},
      {"net.counted_iterations", 120},
      {"net.counted_ms", 0.8},
      {"acc.rms_rel_err", 2e-3},
      {"acc.logits_rms_rel_err", 8e-3},
      {"acc.top1_agreement", 0.98},
      {"acc.top5_overlap", -1},
      {"acc.predictions", 128},
      {"layer.fc.rms_rel_err", 4e-3}};
  for (const auto& [name, value] : expected_subset) {
    ASSERT_TRUE(flat.count(name)) << name;
    EXPECT_EQ(flat.at(name), value) << name;
  }
  EXPECT_FALSE(flat.count("layer.fc.fused_layers")) << "an unfused layer has none";
  EXPECT_FALSE(flat.count("layer.fc.inlay"));
  EXPECT_FALSE(flat.count("layer.fc.p50_ms")) << "no median where none was recorded";
}

TEST(CounterCodec, ReadsBackWhatItWrote) {
  const RunMeasurement m = DecodeCounters(Flat(Sample()));
  EXPECT_EQ(m.net.samples_per_second, 2000);
  EXPECT_EQ(m.net.p50_ms, 0.5);
  EXPECT_EQ(m.net.counters, (std::map<std::string, double>{{"page_faults", 3}, {"ipc", 1.5}}));
  EXPECT_EQ(m.memory.workspace_bytes, 1024);
  EXPECT_EQ(m.memory.activation_bytes, 2048);
  EXPECT_EQ(m.memory.allocs, 0);
  EXPECT_EQ(m.memory.alloc_bytes, 16);
  EXPECT_EQ(m.memory.peak_rss_bytes, 1 << 20);
  ASSERT_TRUE(m.accuracy.has_value());
  EXPECT_EQ(m.accuracy->max_rel_err, 1e-3);
  EXPECT_EQ(m.accuracy->logits_rms_rel_err, 8e-3);
  EXPECT_EQ(m.accuracy->top1_agreement, 0.98);
  EXPECT_EQ(m.accuracy->top5_overlap, -1) << "not measured stays not measured";
  ASSERT_TRUE(m.interference.has_value());
  EXPECT_EQ(m.interference->core_to_core_ns, 176);
  ASSERT_NE(m.FindStep("fc"), nullptr);
  EXPECT_EQ(m.FindStep("fc")->rms_rel_err, 4e-3);
  EXPECT_EQ(m.FindStep("conv1")->rms_rel_err, -1);
  ASSERT_EQ(m.markers.size(), 1u);
  EXPECT_EQ(m.markers[0].name, "stage.1") << "a marker's name may hold dots";
  EXPECT_EQ(m.markers[0].measure.gflops, 9.0);
  EXPECT_EQ(m.markers[0].measure.counters.at("allocs"), 1);
  EXPECT_EQ(m.markers[0].measure.p50_ms, 0.18);
  EXPECT_EQ(m.markers[0].measure.max_ms, 0.9);
  EXPECT_EQ(m.markers[0].measure.counters.count("p50_ms"), 0u) << "a field, not a counter";
  EXPECT_EQ(m.net.step_samples, 4096);
  EXPECT_EQ(m.net.counted_iterations, 120);
  EXPECT_EQ(m.net.counted_ms, 0.8);
  EXPECT_EQ(m.net.counters.count("counted_ms"), 0u);
  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_EQ(m.steps[0].name, "conv1.reorder.image") << "execution order, not by name";
  EXPECT_EQ(m.steps[0].kind, StepKind::kInlay);
  EXPECT_EQ(m.steps[0].inlay_op, "quantize");
  EXPECT_EQ(m.steps[0].feeds, 0);
  EXPECT_EQ(m.steps[1].kind, StepKind::kFused);
  EXPECT_EQ(m.steps[1].fused_layers, 2);
  EXPECT_EQ(m.steps[1].measure.counters.at("page_faults"), 1);
  EXPECT_EQ(m.steps[2].kind, StepKind::kLayer);
  EXPECT_EQ(m.steps[2].measure.ms, 0.19);
  EXPECT_EQ(m.other, (std::map<std::string, double>{{"my_counter", 7}}));
  EXPECT_EQ(m.FindStep("fc"), &m.steps[2]);
  EXPECT_EQ(m.FindMarker("nosuch"), nullptr);
  ASSERT_TRUE(m.interference.has_value());
  EXPECT_EQ(m.interference->seconds, 2.5);
  EXPECT_EQ(m.interference->involuntary_switches, 1.25);
  EXPECT_EQ(m.interference->involuntary_switches_per_core_second, 127);
  EXPECT_EQ(m.interference->steal_share, 0.01);
  EXPECT_EQ(m.interference->others_share, 0.5);
  EXPECT_EQ(m.interference->mdape, 0.12);
}

// JSON from before a field existed: defaults, nothing invented.
TEST(CounterCodec, OlderJsonLeavesNewFieldsUnset) {
  const RunMeasurement m =
      DecodeCounters({{"layer.b.ms", 1}, {"layer.a.ms", 2}, {"net.flops", 10}});
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].order, -1);
  EXPECT_EQ(m.steps[0].kind, StepKind::kLayer);
  EXPECT_FALSE(m.memory.workspace_bytes.has_value());
  EXPECT_FALSE(m.memory.allocs.has_value());
  EXPECT_FALSE(m.accuracy.has_value());
  EXPECT_TRUE(m.markers.empty());
  EXPECT_EQ(MetricValue(m, Metric::kFlops), 10);
  EXPECT_FALSE(MetricValue(m, Metric::kActivationBytes).has_value());
}

TEST(CounterCodec, UnknownInlayOpsReadAsInlay) {
  const RunMeasurement m = DecodeCounters({{"layer.x.inlay", 99}, {"layer.x.ms", 1}});
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].kind, StepKind::kInlay);
  EXPECT_EQ(m.steps[0].inlay_op, "inlay");
}

TEST(CounterCodec, MetricsKnowTheirNamesAndWhichAreAnalytic) {
  EXPECT_STREQ(MetricName(Metric::kAllocs), "net.allocs");
  EXPECT_EQ(MetricOfCounter("mem.workspace_bytes"), Metric::kWorkspaceBytes);
  EXPECT_FALSE(MetricOfCounter("layer.fc.ms").has_value());
  EXPECT_TRUE(IsAnalytic(Metric::kPeakActivationBytes));
  EXPECT_FALSE(IsAnalytic(Metric::kWorkspaceBytes));
  EXPECT_TRUE(IsStepCounter("layer.fc.ms"));
  EXPECT_FALSE(IsStepCounter("layers.ms"));
}

// The strings no counter holds (setup, op, shape, kernel, layers) and the analytic cost travel
// as the run's description, and come back next to the counters.
TEST(DescriptionCodec, ReadsBackWhatItWrote) {
  RunMeasurement m = Sample();
  m.setup = {"resnet50", "onednn", "i8", 4};
  m.steps[1].op = "conv2d";
  m.steps[1].shape = "[4, 64, 56, 56]";
  m.steps[1].kernel = "brgconv:avx512_core_vnni";
  m.steps[1].layers = {"conv1", "conv1_bn", "conv1_relu"};
  m.steps[1].layer_ops = {"conv2d", "batchnorm", "relu"};
  m.steps[1].layer_shapes = {"[4, 64, 112, 112]", "[4, 64, 112, 112]", "[4, 64, 56, 56]"};
  m.steps[1].cost = {1e9, 9408, 9408, 602112, 802816, 9408};
  m.steps[1].roof_ms = 0.25;
  m.steps[2].inlay_layer = true;
  m.steps[1].bound = "compute";
  m.steps[0].op = "quantize";
  RunMeasurement back = DecodeCounters(Flat(m));
  DecodeDescription(EncodeDescription(m), &back);
  EXPECT_EQ(back.setup.topology, "resnet50");
  EXPECT_EQ(back.setup.precision, "i8");
  EXPECT_EQ(back.setup.batch, 4);
  ASSERT_EQ(back.steps.size(), 3u);
  EXPECT_EQ(back.steps[1].kernel, "brgconv:avx512_core_vnni");
  EXPECT_EQ(back.steps[1].layers, m.steps[1].layers);
  EXPECT_EQ(back.steps[1].layer_ops, m.steps[1].layer_ops);
  EXPECT_EQ(back.steps[1].layer_shapes, m.steps[1].layer_shapes);
  EXPECT_EQ(back.steps[1].shape, "[4, 64, 56, 56]");
  EXPECT_EQ(back.steps[1].cost.flops, 1e9);
  EXPECT_EQ(back.steps[1].cost.Bytes(), 9408 + 602112 + 802816);
  EXPECT_EQ(back.steps[1].roof_ms, 0.25);
  EXPECT_TRUE(back.steps[2].inlay_layer);
  EXPECT_FALSE(back.steps[1].inlay_layer);
  EXPECT_EQ(back.steps[1].bound, "compute");
  EXPECT_EQ(back.steps[1].measure.ms, 0.3) << "the counters' part is kept";
  EXPECT_EQ(back.steps[0].op, "quantize");
  EXPECT_EQ(back.steps[2].cost.flops, 0);
  // Ops and shapes that do not match the layers are refused, naming the field.
  nlohmann::json bad = EncodeDescription(m);
  bad["steps"][1]["layer_ops"] = {"conv2d"};
  try {
    DecodeDescription(bad, &back);
    ADD_FAILURE() << "one op for three layers was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("steps[1].layer_ops"), std::string::npos) << e.what();
  }
}

// The traced iterations and the markers' step ranges travel too (`ntpbench trace` reads them).
TEST(DescriptionCodec, CarriesTheTraceAndTheMarkersSteps) {
  RunMeasurement m = Sample();
  m.markers[0].first_step = 1;
  m.markers[0].last_step = 2;
  m.trace.thread_id = 77;
  m.trace.iterations = {{10, 20, 20, 35, 35, 40}, {50, 55, 55, 70, 70, 71}};
  RunMeasurement back = DecodeCounters(Flat(m));
  DecodeDescription(EncodeDescription(m), &back);
  EXPECT_EQ(back.trace.thread_id, 77);
  EXPECT_EQ(back.trace.iterations, m.trace.iterations);
  ASSERT_NE(back.FindMarker("stage.1"), nullptr);
  EXPECT_EQ(back.FindMarker("stage.1")->first_step, 1);
  EXPECT_EQ(back.FindMarker("stage.1")->last_step, 2);
  nlohmann::json bad = EncodeDescription(m);
  bad["trace"]["iterations"][0] = {10, 20};  // 3 steps need 6 stamps
  EXPECT_THROW(DecodeDescription(bad, &back), Error);
  bad = EncodeDescription(m);
  bad["trace"]["iterations"][1][2] = 1;  // time running backwards
  EXPECT_THROW(DecodeDescription(bad, &back), Error);
  bad = EncodeDescription(m);
  bad["trace"]["iterations"][1][0] = 39;  // the second iteration starting inside the first
  EXPECT_THROW(DecodeDescription(bad, &back), Error);
  bad = EncodeDescription(m);
  // Stamps near either end of int64: their differences would wrap into negative times.
  bad["trace"]["iterations"][0][0] = std::numeric_limits<int64_t>::min();
  EXPECT_THROW(DecodeDescription(bad, &back), Error);
  bad = EncodeDescription(m);
  bad["trace"]["iterations"][1] = std::vector<int64_t>(6, std::numeric_limits<int64_t>::max());
  EXPECT_THROW(DecodeDescription(bad, &back), Error);
  bad = EncodeDescription(m);
  bad["markers"][0]["last_step"] = 9;
  EXPECT_THROW(DecodeDescription(bad, &back), Error);
}

// A generation's numbers (counters) and its phases' per-layer tables (description) travel.
TEST(DescriptionCodec, CarriesAGenerationsNumbersAndPhases) {
  RunMeasurement m = Sample();
  ScenarioMeasure& s = m.scenario.emplace();
  s.kind = ScenarioKind::kGenerate;
  s.prompt_tokens = 128;
  s.gen_tokens = 64;
  s.ttft_p50_ms = 72.5;
  s.tpot_p99_ms = 31.25;
  s.decode_tokens_per_s = 40;
  s.kv_cache_bytes = 1 << 20;
  PhaseMeasure& decode = m.phases.emplace_back();
  decode.name = "decode";
  decode.runs = 640;
  StepMeasure& step = decode.steps.emplace_back();
  step.name = "lm_head";
  step.op = "dense";
  step.measure.ms = 2.5;
  step.measure.device_ms = 1.75;
  step.cost.weight_traffic_bytes = 4e6;
  step.roof_ms = 2.0;
  step.bound = "memory";
  RunMeasurement back = DecodeCounters(Flat(m));
  DecodeDescription(EncodeDescription(m), &back);
  ASSERT_TRUE(back.scenario.has_value());
  EXPECT_EQ(back.scenario->kind, ScenarioKind::kGenerate);
  EXPECT_EQ(back.scenario->prompt_tokens, 128);
  EXPECT_EQ(back.scenario->gen_tokens, 64);
  EXPECT_EQ(back.scenario->ttft_p50_ms, 72.5);
  EXPECT_EQ(back.scenario->tpot_p99_ms, 31.25);
  EXPECT_EQ(back.scenario->decode_tokens_per_s, 40);
  EXPECT_EQ(back.scenario->kv_cache_bytes, 1 << 20);
  ASSERT_EQ(back.phases.size(), 1u);
  EXPECT_EQ(back.phases[0].name, "decode");
  EXPECT_EQ(back.phases[0].runs, 640);
  ASSERT_EQ(back.phases[0].steps.size(), 1u);
  EXPECT_EQ(back.phases[0].steps[0].name, "lm_head");
  EXPECT_EQ(back.phases[0].steps[0].measure.ms, 2.5);
  EXPECT_EQ(back.phases[0].steps[0].measure.device_ms, 1.75);
  EXPECT_EQ(back.phases[0].steps[0].cost.weight_traffic_bytes, 4e6);
  EXPECT_EQ(back.phases[0].steps[0].bound, "memory");
  nlohmann::json bad = EncodeDescription(m);
  bad["phases"][0]["steps"][0]["ms"] = "slow";
  EXPECT_THROW(DecodeDescription(bad, &back), Error);
  // Other scenarios carry none of a generation's counters.
  m.scenario->kind = ScenarioKind::kOffline;
  EXPECT_EQ(Flat(m).count("scenario.ttft_p50_ms"), 0u);
}

// The counters are keyed by name; the markers come back in the topology's order all the same.
TEST(DescriptionCodec, MarkersComeBackInTheTopologysOrderNotByName) {
  RunMeasurement m = Sample();
  m.markers = {{"zeta", {0.3, 0.6, 1.0, {}}, 0, 0},
               {"alpha", {0.1, 0.2, 2.0, {}}, 1, 2},
               {"mid", {0.1, 0.2, 3.0, {}}, 0, 2}};
  RunMeasurement back = DecodeCounters(Flat(m));
  DecodeDescription(EncodeDescription(m), &back);
  ASSERT_EQ(back.markers.size(), 3u);
  EXPECT_EQ(back.markers[0].name, "zeta");
  EXPECT_EQ(back.markers[1].name, "alpha");
  EXPECT_EQ(back.markers[2].name, "mid");
  EXPECT_EQ(back.markers[1].measure.gflops, 2.0) << "each keeps its own counters";
  EXPECT_EQ(back.markers[2].first_step, 0);
}

TEST(DescriptionCodec, AWrongFieldIsNamedWithItsFile) {
  const std::string run =
      R"({"benchmarks": [{"name": "a/batch:1", "run_name": "a/batch:1", "run_type": "iteration",
          "real_time": 1.0, "time_unit": "ms", "layer.x.ms": 1.0,
          "ntpbench": {"steps": [{"name": "x", "flops": "many"}]}}]})";
  try {
    ParseRunResults(run, "run.json");
    FAIL() << "a string where a number belongs was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "run.json");
    EXPECT_EQ(e.field(), "benchmarks.a/batch:1.ntpbench.steps[0].flops");
    EXPECT_NE(e.message().find("expected a number"), std::string::npos) << e.what();
  }
  const RunResults ok = ParseRunResults(
      R"({"benchmarks": [{"name": "a/batch:1", "run_name": "a/batch:1", "run_type": "iteration",
          "real_time": 1.0, "time_unit": "ms", "layer.x.ms": 1.0,
          "ntpbench": {"steps": [{"name": "x", "op": "dense", "flops": 8}]}}]})",
      "run.json");
  const RunMeasurement m = ok.benchmarks.at("a/batch:1").Measurement();
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].op, "dense");
  EXPECT_EQ(m.steps[0].cost.flops, 8);
  EXPECT_EQ(m.steps[0].measure.ms, 1.0);
}

// Times and counters a run file may hold: finite, not negative (a cosine from -1 to 1), no
// denormal, whole where they count or index something, sizes that fit 64 bits.
TEST(CounterCodec, CounterValuesThatMeanNothingAreNamed) {
  EXPECT_FALSE(CounterValueProblem("net.p50_ms", 0.25));
  EXPECT_FALSE(CounterValueProblem("acc.cosine", -0.5));
  EXPECT_FALSE(CounterValueProblem("layer.fc1.order", 3));
  EXPECT_FALSE(CounterValueProblem("mem.weight_bytes", 1e12));
  EXPECT_TRUE(CounterValueProblem("net.p50_ms", -1));
  EXPECT_TRUE(CounterValueProblem("net.p50_ms", std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(CounterValueProblem("net.p50_ms", std::nan("")));
  EXPECT_TRUE(CounterValueProblem("net.p50_ms", 1e-320));  // denormal
  EXPECT_TRUE(CounterValueProblem("acc.cosine", 1.5));
  EXPECT_TRUE(CounterValueProblem("layer.fc1.order", 2.5));
  EXPECT_TRUE(CounterValueProblem("layer.fc1.order", 1e18));
  EXPECT_TRUE(CounterValueProblem("mem.peak_activation_bytes", 1e300));
  EXPECT_TRUE(CounterValueProblem("net.flops", -5));
  // An error is infinite where the outputs were not (bf16 overflowing): a measurement.
  EXPECT_FALSE(CounterValueProblem("acc.max_rel_err", std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(
      CounterValueProblem("layer.fc1.rms_rel_err", std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(CounterValueProblem("acc.max_rel_err", -1));
  EXPECT_TRUE(CounterValueProblem("acc.cosine", std::numeric_limits<double>::infinity()));
}

// Such a number in a run file (as Google Benchmark writes NaN and Infinity: bare words) is one
// error naming the file and field, before anything compares or stores it.
TEST(DescriptionCodec, NonFiniteOrNegativeTimesAndCountersAreRefused) {
  const std::string head =
      R"({"benchmarks": [{"name": "a/batch:1", "run_name": "a/batch:1", "run_type": "iteration",
          "iterations": 10, )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("real_time": 1.0, "time_unit": "ms", "net.p50_ms": NaN)", ".net.p50_ms"},
      {R"("real_time": 1.0, "time_unit": "ms", "net.p50_ms": -Infinity)", ".net.p50_ms"},
      {R"("real_time": 1.0, "time_unit": "ms", "layer.x.ms": -3)", ".layer.x.ms"},
      {R"("real_time": 1e-320, "time_unit": "ms")", ".real_time"},
      {R"("real_time": 1e308, "time_unit": "s")", ".real_time"},
      {R"("real_time": 1.0, "time_unit": "ms", "cpu_time": -1)", ".cpu_time"},
  };
  for (const auto& [fields, field] : cases) {
    try {
      ParseRunResults(head + fields + "}]}", "run.json");
      ADD_FAILURE() << fields << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), "run.json");
      EXPECT_EQ(e.field(), "benchmarks.a/batch:1" + field) << e.what();
    }
  }
  std::string iterations = head;
  iterations.replace(iterations.find("10"), 2, "-5");
  EXPECT_THROW(ParseRunResults(iterations + R"("real_time": 1.0})" + "]}", "run.json"), Error);
  EXPECT_NO_THROW(ParseRunResults(head + R"("real_time": 1.0, "acc.cosine": -0.25}]})", "r"));
  // As Google Benchmark writes an infinite error: read back as one.
  const RunResults overflowed =
      ParseRunResults(head + R"("real_time": 1.0, "acc.max_rel_err": inf}]})", "r");
  EXPECT_EQ(overflowed.benchmarks.at("a/batch:1").counters.at("acc.max_rel_err"),
            std::numeric_limits<double>::infinity());
}

// The run name is spelled in one place: what Encode writes, Parse reads back, with Google
// Benchmark's suffixes; a family whose params look like arguments stays whole.
TEST(RunKey, ParsesWhatItEncodesAndNothingElse) {
  const RunKey single{"mlp/onednn/bf16/n_hidden:512", 0, 4};
  EXPECT_EQ(single.Encode(), "mlp/onednn/bf16/n_hidden:512/batch:4");
  const RunKey scenario{"mlp/eigen/f32/offline", 2, 8};
  EXPECT_EQ(scenario.Encode(), "mlp/eigen/f32/offline/streams:2/batch:8");
  for (const RunKey& k : {single, scenario}) {
    for (const std::string suffix :
         {"", "/real_time", "/manual_time", "/real_time_median", "/iterations:1/manual_time"}) {
      const std::optional<RunKey> back = RunKey::Parse(k.Encode() + suffix);
      ASSERT_TRUE(back) << k.Encode() + suffix;
      EXPECT_EQ(back->family, k.family);
      EXPECT_EQ(back->streams, k.streams);
      EXPECT_EQ(back->batch, k.batch);
    }
  }
  EXPECT_EQ(RunKey::Parse("net/streams:x/batch:2")->family, "net/streams:x");
  EXPECT_FALSE(RunKey::Parse("BM_Other/1024"));
  EXPECT_FALSE(RunKey::Parse("net/batch:"));
  EXPECT_FALSE(RunKey::Parse("net/batch:-1"));
  EXPECT_FALSE(RunKey::Parse("/batch:3"));
}

}  // namespace
}  // namespace ntpb::testing
