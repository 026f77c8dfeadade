// Runs a real suite binary built with NTPB_TOPOLOGY_BENCHMARK and checks what Google Benchmark
// reports: family names, skips with reasons, counters, and that its flags keep working.
#include <gtest/gtest.h>

#include <cmath>

#include "ntpbench/analysis.h"
#include "ntpbench/json_format.h"
#include "ntpbench/results.h"
#include "ntpbench/run_file.h"
#include "src/common/benchmark_json.h"
#include "tests/command.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

using nlohmann::json;

const std::string kSuite = REGISTRATION_SUITE;
const std::string kFast = " --benchmark_min_time=0.01";

json RunJson(const std::string& flags) {
  const CommandResult r = RunCommand(kSuite + kFast + " --benchmark_format=json " + flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ParseBenchmarkJson(r.out, "suite stdout");
}

const json* Find(const json& doc, const std::string& name) {
  for (const json& b : doc["benchmarks"]) {
    if (b["name"] == name) return &b;
  }
  return nullptr;
}

TopologyAnalysis TinyAnalysis(int64_t batch, int64_t width) {
  const ResolvedTopology r = Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")),
                                     {{"N", batch}, {"width", width}});
  return Analyze(r, f32, ResolveMarkers(r, {{"tail", "conv2", "probs"}}));
}

TEST(Registration, FamiliesAreNamedBackendPrecisionBatch) {
  const json doc = RunJson("");
  std::vector<std::string> names;
  for (const json& b : doc["benchmarks"]) names.push_back(b["name"]);
  const std::vector<std::string> expected = {
      "tiny/eigen/f32/batch:1/real_time",
      "tiny/eigen/f32/batch:2/real_time",
      "tiny/eigen/bf16/batch:1/real_time",
      "tiny/eigen/bf16/batch:2/real_time",
      "tiny/onednn/f32/batch:1/real_time",
      "tiny/onednn/f32/batch:2/real_time",
      "tiny/onednn/bf16/batch:1/real_time",
      "tiny/onednn/bf16/batch:2/real_time",
      "tiny/opencl/f32/batch:1/real_time",
      "tiny/opencl/f32/batch:2/real_time",
      "tiny/opencl/bf16/batch:1/real_time",
      "tiny/opencl/bf16/batch:2/real_time",
      "mlp_small/eigen/f32/batch:4/real_time",
      "mlp_sizes/eigen/f32/n_hidden:32/batch:1/real_time",
      "mlp_sizes/eigen/f32/n_hidden:64/batch:1/real_time",
      "mlp_offline/eigen/f32/batch:2/real_time",
      "mlp_offline/eigen/f32/offline/streams:1/batch:2/iterations:1/manual_time",
      "mlp_offline/eigen/f32/offline/streams:2/batch:2/iterations:1/manual_time"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(doc["context"]["ntpbench_version"], "0.1.0");
  EXPECT_TRUE(doc["context"].contains("ntpbench_threads"));
  EXPECT_EQ(doc["context"]["ntpbench_backend.eigen"].get<std::string>().rfind("Eigen 3.", 0), 0u);
}

TEST(Registration, UnsupportedPairsAreSkippedWithAReason) {
  const json doc = RunJson("");
  // Eigen runs bf16 as stored values (rounded where stored, f32 arithmetic), with its accuracy.
  const json* bf16 = Find(doc, "tiny/eigen/bf16/batch:1/real_time");
  ASSERT_NE(bf16, nullptr);
  EXPECT_FALSE(bf16->value("error_occurred", false)) << *bf16;
  EXPECT_TRUE(bf16->contains("acc.rms_rel_err")) << *bf16;
  // OpenCL runs f32 where the build and the machine have a device, and skips it saying why
  // where not; it has no bf16 kernels, so that is skipped everywhere, with the reason.
  const json* opencl = Find(doc, "tiny/opencl/f32/batch:1/real_time");
  ASSERT_NE(opencl, nullptr);
  if (const Support s = BackendSupportFor("opencl", Precision::kF32); !s.ok) {
    EXPECT_EQ((*opencl)["error_message"], "skipped: " + s.reason);
  } else {
    EXPECT_FALSE(opencl->contains("error_occurred")) << opencl->dump();
    EXPECT_GT((*opencl)["net.flops"].get<double>(), 0);
  }
  const json* opencl_bf16 = Find(doc, "tiny/opencl/bf16/batch:1/real_time");
  ASSERT_NE(opencl_bf16, nullptr);
  EXPECT_NE((*opencl_bf16)["error_message"].get<std::string>().find("bf16"), std::string::npos);
  const json* onednn = Find(doc, "tiny/onednn/f32/batch:2/real_time");
  ASSERT_NE(onednn, nullptr);
  if (const Support s = BackendSupportFor("onednn", Precision::kF32); !s.ok) {
    // A build without oneDNN skips its benchmarks, saying so.
    EXPECT_EQ((*onednn)["error_message"], "skipped: " + s.reason);
    return;
  }
  EXPECT_FALSE(onednn->contains("error_occurred")) << onednn->dump();
  EXPECT_GT((*onednn)["net.flops"].get<double>(), 0);
  // oneDNN runs bf16, and says how far its outputs are from the Eigen f32 reference; where it
  // has no bf16 kernels (below AVX-512) the benchmark is skipped with the backend's reason.
  const json* onednn_bf16 = Find(doc, "tiny/onednn/bf16/batch:2/real_time");
  ASSERT_NE(onednn_bf16, nullptr);
  if (const Support s = BackendSupportFor("onednn", Precision::kBf16); !s.ok) {
    EXPECT_EQ((*onednn_bf16)["error_message"], "skipped: " + s.reason);
  } else {
    EXPECT_FALSE(onednn_bf16->contains("error_occurred")) << onednn_bf16->dump();
    EXPECT_GT((*onednn_bf16)["acc.cosine"].get<double>(), 0.99);
    EXPECT_LT((*onednn_bf16)["acc.max_rel_err"].get<double>(), 0.05);
  }
  EXPECT_FALSE(onednn->contains("acc.cosine")) << "f32 is the reference's own precision";
}

TEST(Registration, CountersCarryTheAnalyticSignatureAndTimeShares) {
  const json doc = RunJson("");
  for (int64_t batch : {1, 2}) {
    const json* b = Find(doc, "tiny/eigen/f32/batch:" + std::to_string(batch) + "/real_time");
    ASSERT_NE(b, nullptr);
    ASSERT_FALSE(b->contains("error_occurred") && (*b)["error_occurred"] == true);
    EXPECT_EQ((*b)["time_unit"], "ms");
    const TopologyAnalysis a = TinyAnalysis(batch, 4);
    EXPECT_EQ((*b)["net.flops"].get<double>(), static_cast<double>(a.total.flops));
    EXPECT_EQ((*b)["net.params"].get<double>(), static_cast<double>(a.total.params));
    EXPECT_EQ((*b)["mem.weight_bytes"].get<double>(), static_cast<double>(a.total.weight_bytes));
    EXPECT_EQ((*b)["mem.peak_activation_bytes"].get<double>(),
              static_cast<double>(a.peak_activation_bytes));
    EXPECT_GT((*b)["net.samples_per_second"].get<double>(), 0);
    // samples/s is the batch over the summed step times of an iteration (the layer times), not
    // over Google Benchmark's real time, which also holds its own loop bookkeeping.
    double step_ms = 0;
    for (const LayerAnalysis& l : a.layers)
      step_ms += (*b)["layer." + l.name + ".ms"].get<double>();
    EXPECT_NEAR((*b)["net.samples_per_second"].get<double>() * step_ms * 1e-3, batch, 1e-6 * batch);
    EXPECT_LE(step_ms, (*b)["real_time"].get<double>() * 1.0001);
    double share = 0;
    for (const LayerAnalysis& l : a.layers) {
      ASSERT_TRUE(b->contains("layer." + l.name + ".time_share")) << l.name;
      ASSERT_TRUE(b->contains("layer." + l.name + ".gflops")) << l.name;
      ASSERT_TRUE(b->contains("layer." + l.name + ".ms")) << l.name;
      share += (*b)["layer." + l.name + ".time_share"].get<double>();
    }
    EXPECT_NEAR(share, 1.0, 1e-6);
    for (const char* marker : {"stem", "block", "tail"}) {
      const double s = (*b)[std::string(marker) + ".time_share"].get<double>();
      EXPECT_GT(s, 0.0) << marker;
      EXPECT_LT(s, 1.0) << marker;
      EXPECT_GT((*b)[std::string(marker) + ".gflops"].get<double>(), 0.0) << marker;
    }
    const double stem = (*b)["stem.ms"].get<double>();
    const double parts = (*b)["layer.conv1.ms"].get<double>() + (*b)["layer.bn1.ms"].get<double>() +
                         (*b)["layer.relu1.ms"].get<double>();
    EXPECT_NEAR(stem, parts, 1e-9 + 1e-6 * parts);
  }
}

// Each benchmark's JSON entry carries what no counter can: the setup and each step's op, shape,
// layers and analytic cost, for `ntpbench compare` and `report`.
TEST(Registration, JsonEntriesCarryTheirDescription) {
  const json doc = RunJson("--benchmark_filter=tiny/eigen/f32/batch:2");
  const json* b = Find(doc, "tiny/eigen/f32/batch:2/real_time");
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->contains("ntpbench")) << b->dump();
  RunMeasurement m;
  DecodeDescription((*b)["ntpbench"], &m);
  EXPECT_EQ(m.setup.backend, "eigen");
  EXPECT_EQ(m.setup.precision, "f32");
  EXPECT_EQ(m.setup.batch, 2);
  const TopologyAnalysis a = TinyAnalysis(2, 4);
  ASSERT_EQ(m.steps.size(), a.layers.size());
  for (std::size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(m.steps[i].name, a.layers[i].name);
    EXPECT_EQ(m.steps[i].op, a.layers[i].op);
    EXPECT_EQ(m.steps[i].cost.flops, static_cast<double>(a.layers[i].cost.flops))
        << m.steps[i].name;
    EXPECT_EQ(m.steps[i].layers, std::vector<std::string>{a.layers[i].name});
    EXPECT_FALSE(m.steps[i].shape.empty());
  }
}

TEST(Registration, GoogleBenchmarkFlagsKeepWorking) {
  const json filtered = RunJson("--benchmark_filter=mlp_small --benchmark_repetitions=2");
  std::vector<std::string> names;
  for (const json& b : filtered["benchmarks"]) names.push_back(b["name"]);
  EXPECT_EQ(names.front(), "mlp_small/eigen/f32/batch:4/real_time");
  EXPECT_NE(std::find(names.begin(), names.end(), "mlp_small/eigen/f32/batch:4/real_time_median"),
            names.end());
  for (const std::string& n : names) EXPECT_EQ(n.rfind("mlp_small/", 0), 0u) << n;
  // Repetitions' aggregates hold non-numbers (the CV of a counter that is always 0): the JSON
  // stays strict JSON, and each repetition carries its description.
  const CommandResult strict = RunCommand(kSuite + kFast +
                                          " --benchmark_format=json --benchmark_filter=mlp_small"
                                          " --benchmark_repetitions=2");
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  const json parsed = json::parse(strict.out, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << "not strict JSON: " << strict.out.substr(0, 2000);
  int described = 0;
  for (const json& b : parsed["benchmarks"]) described += b.contains("ntpbench");
  EXPECT_EQ(described, 2) << "one description per repetition, none on aggregates";

  const CommandResult list = RunCommand(kSuite + " --benchmark_list_tests");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("tiny/eigen/bf16/batch:2/real_time"), std::string::npos) << list.out;
}

TEST(Registration, NtpbSetOverridesParamsOnTheCommandLine) {
  // A param the command line changes is part of the name: never the registered benchmark's.
  const json doc = RunJson("--benchmark_filter=tiny/eigen/f32/ --ntpb_set=width=2");
  EXPECT_EQ(Find(doc, "tiny/eigen/f32/batch:1/real_time"), nullptr);
  const json* b = Find(doc, "tiny/eigen/f32/width:2/batch:1/real_time");
  ASSERT_NE(b, nullptr);
  // The context records the whole configuration under the family's name.
  const nlohmann::json config = nlohmann::json::parse(
      doc["context"]["ntpbench_config.tiny/eigen/f32/width:2"].get<std::string>());
  EXPECT_EQ(config["params"]["width"], 2);
  EXPECT_EQ(config["seed"], 42);
  EXPECT_EQ((*b)["net.flops"].get<double>(), static_cast<double>(TinyAnalysis(1, 2).total.flops));
}

TEST(Registration, ListedValuesRunOneFamilyEachWithItsParams) {
  // Values() in the suite, and a list in --ntpb_set: each value its own named family.
  const json doc = RunJson("--benchmark_filter='mlp_sizes|tiny/eigen/f32/' --ntpb_set=width=2,3");
  for (const int64_t width : {2, 3}) {
    const std::string family = "tiny/eigen/f32/width:" + std::to_string(width);
    const json* b = Find(doc, family + "/batch:1/real_time");
    ASSERT_NE(b, nullptr) << family;
    EXPECT_EQ((*b)["net.flops"].get<double>(),
              static_cast<double>(TinyAnalysis(1, width).total.flops));
    const json config = json::parse(doc["context"]["ntpbench_config." + family].get<std::string>());
    EXPECT_EQ(config["params"]["width"], width);
  }
  const Topology mlp = ReadTopologyJsonFile(SourcePath("topologies/mlp.json"));
  for (const int64_t n_hidden : {32, 64}) {
    const json* b = Find(
        doc, "mlp_sizes/eigen/f32/n_hidden:" + std::to_string(n_hidden) + "/batch:1/real_time");
    ASSERT_NE(b, nullptr) << n_hidden;
    const ResolvedTopology r = Resolve(mlp, {{"N", 1}, {"n_hidden", n_hidden}});
    EXPECT_EQ((*b)["net.flops"].get<double>(),
              static_cast<double>(Analyze(r, f32, {}).total.flops));
  }
  const CommandResult twice = RunCommand(kSuite + " --ntpb_set=width=2,2");
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("'width' lists 2 twice"), std::string::npos) << twice.err;
}

TEST(Registration, ScenarioFamiliesReportThroughputAndTheirStreams) {
  const json doc = RunJson("--benchmark_filter=mlp_offline --ntpb_threads=2");
  const json* b = Find(
      doc, "mlp_offline/eigen/f32/nthreads:2/offline/streams:2/batch:2/iterations:1/manual_time");
  ASSERT_NE(b, nullptr) << doc.dump(1);
  EXPECT_EQ((*b)["scenario.streams"], 2);
  EXPECT_EQ((*b)["scenario.threads_per_stream"], 1);  // 2 threads split over 2 streams
  EXPECT_EQ((*b)["scenario.queries"], 1000);
  EXPECT_EQ((*b)["scenario.queries_needed"], 1000);
  EXPECT_EQ((*b)["scenario.samples_per_query"], 2);
  const double qps = (*b)["scenario.achieved_qps"];
  EXPECT_GT(qps, 0);
  EXPECT_DOUBLE_EQ((*b)["net.samples_per_second"].get<double>(), 2 * qps);
  // The reported time is the wall time per query: one over the throughput in queries (ms).
  EXPECT_NEAR((*b)["real_time"].get<double>() * qps, 1e3, 1e-6);
  EXPECT_EQ((*b)["time_unit"], "ms");
  EXPECT_GT((*b)["net.p99_ms"].get<double>(), 0);
  EXPECT_GE((*b)["net.p99_ms"].get<double>(), (*b)["net.p50_ms"].get<double>());
  const Topology mlp = ReadTopologyJsonFile(SourcePath("topologies/mlp.json"));
  const ResolvedTopology r = Resolve(mlp, {{"N", 2}, {"n_hidden", 32}});
  EXPECT_NEAR((*b)["net.gflops"].get<double>(),
              static_cast<double>(Analyze(r, f32, {}).total.flops) * qps * 1e-9, 1e-9);
  // The run file finds the family's configuration under the name less "/streams:2/batch:2"
  // (what the signature checks: another configuration is not the same benchmark).
  const RunResults parsed = ParseRunResults(doc.dump(), "suite.json");
  const nlohmann::json& config =
      parsed.benchmarks
          .at("mlp_offline/eigen/f32/nthreads:2/offline/streams:2/batch:2/iterations:1/manual_time")
          .config;
  ASSERT_TRUE(config.is_object()) << config.dump();
  EXPECT_EQ(config["params"]["n_hidden"], 32);
  // Single-stream next to it has no scenario counters.
  const json* single = Find(doc, "mlp_offline/eigen/f32/nthreads:2/batch:2/real_time");
  ASSERT_NE(single, nullptr);
  EXPECT_FALSE(single->contains("scenario.streams"));
}

TEST(Registration, ConsoleShowsHeadlineCountersUnlessAskedForAll) {
  const CommandResult plain = RunCommand(kSuite + kFast + " --benchmark_filter=mlp_small");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("mlp_small/eigen/f32/batch:4"), std::string::npos);
  EXPECT_NE(plain.out.find("net.samples_per_second"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("net.p99_ms"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("layer.fc1"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("mem.weight_bytes"), std::string::npos) << plain.out;
  const CommandResult layers =
      RunCommand(kSuite + kFast + " --benchmark_filter=mlp_small --ntpb_console_layers");
  EXPECT_NE(layers.out.find("layer.fc1.time_share"), std::string::npos) << layers.out;
}

TEST(Registration, BadFlagsAndParamsFailWithOneLine) {
  const CommandResult unknown_param = RunCommand(kSuite + " --ntpb_set=widht=3");
  EXPECT_EQ(unknown_param.exit_code, 1);
  EXPECT_NE(unknown_param.err.find("no registered topology has a param 'widht'"), std::string::npos)
      << unknown_param.err;
  const CommandResult unknown_flag = RunCommand(kSuite + " --ntpb_sett=width=3");
  EXPECT_EQ(unknown_flag.exit_code, 1);
  EXPECT_NE(unknown_flag.err.find("unknown flag (did you mean '--ntpb_set'?)"), std::string::npos)
      << unknown_flag.err;
  const CommandResult wrapping = RunCommand(kSuite + " --ntpb_threads=4294967297");
  EXPECT_EQ(wrapping.exit_code, 1);
  EXPECT_NE(wrapping.err.find("--ntpb_threads"), std::string::npos) << wrapping.err;
  const CommandResult repetitions = RunCommand(kSuite + " --benchmark_repetitions=-3");
  EXPECT_EQ(repetitions.exit_code, 1);
  EXPECT_NE(repetitions.err.find("option '--benchmark_repetitions': expected a whole number"),
            std::string::npos)
      << repetitions.err;
  const CommandResult gb_flag = RunCommand(kSuite + " --benchmark_nonsense=1");
  EXPECT_NE(gb_flag.exit_code, 0);
}

TEST(RegionCounters, SdeFlopsOfEachMarkerEqualTheAnalyticFlops) {
  SKIP_UNLESS_COUNTER("sde");
  const CommandResult r =
      RunCommand(kSuite + kFast + " --benchmark_format=json --benchmark_filter=tiny/eigen/f32" +
                 " --ntpb_counters=sde,rusage,memory --ntpb_layer_counters");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = ParseBenchmarkJson(r.out, "suite stdout");
  for (int64_t batch : {1, 2}) {
    const json* b = Find(doc, "tiny/eigen/f32/batch:" + std::to_string(batch) + "/real_time");
    ASSERT_NE(b, nullptr);
    const TopologyAnalysis a = TinyAnalysis(batch, 4);
    EXPECT_EQ((*b)["net.sde_flops"].get<double>(), static_cast<double>(a.total.flops));
    EXPECT_EQ((*b)["net.sde_steps"].get<double>(), static_cast<double>(a.layers.size()));
    for (const MarkerAnalysis& m : a.markers) {
      EXPECT_EQ((*b)[m.name + ".sde_flops"].get<double>(), static_cast<double>(m.cost.flops))
          << m.name;
      EXPECT_EQ((*b)[m.name + ".sde_bytes_written"].get<double>(),
                static_cast<double>(m.cost.output_bytes))
          << m.name;
    }
    for (const LayerAnalysis& l : a.layers) {
      EXPECT_EQ((*b)["layer." + l.name + ".sde_flops"].get<double>(),
                static_cast<double>(l.cost.flops))
          << l.name;
    }
    // The timed loop allocates nothing; Google Benchmark's MemoryManager run is reported too.
    EXPECT_EQ((*b)["net.allocs"].get<double>(), 0.0);
    EXPECT_TRUE(b->contains("allocs_per_iter"));
    EXPECT_TRUE(b->contains("net.minor_faults")) << "rusage counted per net";
    for (const char* p : {"net.p50_ms", "net.p90_ms", "net.p99_ms"}) {
      EXPECT_GT((*b)[p].get<double>(), 0.0) << p;
    }
    EXPECT_LE((*b)["net.p50_ms"].get<double>(), (*b)["net.p99_ms"].get<double>());
  }
  EXPECT_EQ(doc["context"]["ntpbench_counters"], "memory,rusage,sde");
}

TEST(RegionCounters, UnavailableEventIsReportedOnceOrCounted) {
  // Two families ask for PAPI_TOT_CYC: without a hardware PMU the fallback line appears exactly
  // once and the JSON context says why; with one, the counter is in every result.
  const CommandResult r =
      RunCommand(kSuite + kFast + " --benchmark_format=json --benchmark_filter=/f32/" +
                 " --ntpb_counters=PAPI_TOT_CYC,perf");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = ParseBenchmarkJson(r.out, "suite stdout");
  const json* b = Find(doc, "mlp_small/eigen/f32/batch:4/real_time");
  ASSERT_NE(b, nullptr);
  size_t lines = 0;
  for (size_t pos = r.err.find("PAPI_TOT_CYC: unavailable"); pos != std::string::npos;
       pos = r.err.find("PAPI_TOT_CYC: unavailable", pos + 1)) {
    ++lines;
  }
  if (b->contains("net.PAPI_TOT_CYC")) {
    EXPECT_EQ(lines, 0u);
  } else {
    EXPECT_EQ(lines, 1u) << r.err;
    EXPECT_NE(doc["context"]["ntpbench_counters_missing"].get<std::string>().find("PAPI_TOT_CYC"),
              std::string::npos);
    EXPECT_GT((*b)["net.task_clock_ms"].get<double>(), 0.0) << "perf still measures";
  }
}

TEST(RegionCounters, MisspelledEventFailsTheRun) {
  SKIP_UNLESS_COUNTER("sde");  // without PAPI no event name is known: each is noted instead
  const CommandResult r = RunCommand(kSuite + " --ntpb_counters=PAPI_TOT_CYK");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown PAPI event 'PAPI_TOT_CYK'"), std::string::npos) << r.err;
}

TEST(ShippedSuite, RegistersEveryShippedTopology) {
  const CommandResult list = RunCommand(std::string(SHIPPED_SUITE) + " --benchmark_list_tests");
  EXPECT_EQ(list.exit_code, 0) << list.err;
  for (const char* name :
       {"deepspeech/eigen/f32/batch:1", "mlp/eigen/f32/batch:64", "tiny_cnn/eigen/f32/batch:8",
        "mobilenet_v2/eigen/f32/batch:1", "resnet50/eigen/f32/batch:1"}) {
    EXPECT_NE(list.out.find(name), std::string::npos) << name << "\n" << list.out;
  }
}

}  // namespace
}  // namespace ntpb::testing
