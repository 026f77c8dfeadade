// The ntpbench command: tables, JSON, and one clear line with a non-zero exit on bad input.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ntpbench/backend.h"
#include "ntpbench/latency_calibration.h"
#include "ntpbench/machine.h"
#include "ntpbench/machine_class.h"
#include "ntpbench/run_file.h"
#include "src/common/benchmark_json.h"
#include "src/topology/op_catalog.h"
#include "tests/command.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

const std::string kCli = NTPBENCH_CLI;

std::string Topo(const std::string& name) { return SourcePath("topologies/" + name); }

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = TestDir() + "/" + name;
  std::ofstream(path) << content;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// A sweep records each point as it finishes, a failing point with its reason; after an
// interruption (here: the file cut back to its first point) --resume runs only the rest.
TEST(Cli, SweepRecordsPointsAndResumesAfterAnInterruption) {
  const std::string sweep = WriteTemp("ntpb_sweep.json", R"({"name": "mlp_sizes",
    "topology": ")" + Topo("mlp.json") + R"(",
    "base": {"n_hidden": 16}, "min_time": 0.01,
    "factors": [{"name": "n_hidden", "values": [16, 32]},
                {"name": "precision", "values": ["f32", "i8"]}]})");
  const std::string results = TestDir() + "/ntpb_sweep.results.json";
  std::remove(results.c_str());
  const CommandResult dry = RunCommand(kCli + " sweep " + sweep + " --dry-run");
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("3 points (one-at-a-time)"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("n_hidden=32,precision=f32"), std::string::npos) << dry.out;
  // Any setting of `ntpbench run` is a factor without new code: seed, a backend option, ...
  const std::string seeds = WriteTemp("ntpb_sweep_seeds.json", R"({"name": "mlp_seeds",
    "topology": ")" + Topo("mlp.json") + R"(", "base": {"n_hidden": 16}, "min_time": 0.01,
    "factors": [{"name": "seed", "values": [1, 2]}]})");
  const std::string seeds_results = TestDir() + "/ntpb_sweep_seeds.results.json";
  const CommandResult seeded = RunCommand(kCli + " sweep " + seeds + " -o " + seeds_results);
  ASSERT_EQ(seeded.exit_code, 0) << seeded.err;
  const std::string seeded_file = ReadFile(seeds_results);
  EXPECT_NE(seeded_file.find("mlp/eigen/f32/n_hidden:16/seed:2/batch:1"), std::string::npos)
      << "the second point ran with --seed 2: " << seeded_file.substr(0, 3000);
  const std::string bad_seed = WriteTemp(
      "ntpb_sweep_bad_seed.json", R"({"name": "bad",
    "topology": ")" + Topo("mlp.json") +
                                      R"(", "factors": [{"name": "seed", "values": [1, "x"]}]})");
  const CommandResult refused = RunCommand(kCli + " sweep " + bad_seed + " --dry-run");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("field 'factors[0].values[1]': expected a seed >= 0, got 'x'"),
            std::string::npos)
      << refused.err;

  const CommandResult first = RunCommand(kCli + " sweep " + sweep + " -o " + results);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("[3/3]"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("ETA"), std::string::npos) << first.err;
  EXPECT_NE(first.out.find("n_hidden  p50 ms"), std::string::npos) << first.out;
  nlohmann::json r = nlohmann::json::parse(ReadFile(results));
  ASSERT_EQ(r["points"].size(), 3u);
  EXPECT_TRUE(r["points"][0]["ok"].get<bool>());
  EXPECT_FALSE(r["points"][0]["run"]["benchmarks"].empty());
  const nlohmann::json& i8 = r["points"][2];
  EXPECT_EQ(i8["id"], "n_hidden=16,precision=i8");
  // Eigen has no i8: the point failed, with the reason, and the sweep went on.
  EXPECT_FALSE(i8["ok"].get<bool>());
  EXPECT_NE(i8["reason"].get<std::string>().find("not i8"), std::string::npos) << i8;

  // As if stopped after the first point: it stays as it was; the others run again.
  r["points"].erase(1);
  r["points"].erase(1);
  r["points"][0]["seconds"] = 12345;
  std::ofstream(results) << r.dump();
  const CommandResult again = RunCommand(kCli + " sweep " + sweep + " -o " + results);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;
  const CommandResult resumed =
      RunCommand(kCli + " sweep " + sweep + " -o " + results + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("1 done before, 2 to run"), std::string::npos) << resumed.err;
  r = nlohmann::json::parse(ReadFile(results));
  ASSERT_EQ(r["points"].size(), 3u);
  EXPECT_EQ(r["points"][0]["seconds"], 12345);
  EXPECT_EQ(r["points"][1]["id"], "n_hidden=32,precision=f32");
  EXPECT_TRUE(r["points"][1]["ok"].get<bool>());

  // The page plots it; a changed sweep does not resume into the old file.
  const std::string page = TestDir() + "/ntpb_sweep.html";
  const CommandResult report = RunCommand(kCli + " report " + results + " -o " + page);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(ReadFile(page).find("Throughput against operation density"), std::string::npos);
  const CommandResult changed =
      RunCommand(kCli + " sweep " + sweep + " -o " + results + " --resume --base batch=2");
  EXPECT_NE(changed.exit_code, 0);
  EXPECT_NE(changed.err.find("holds another sweep"), std::string::npos) << changed.err;
}

// Two sweeps recording into one results file at once, in a folder not made yet: each reads
// back its own run files (they shared one name, and a point came back FAILED with "the run wrote
// no run file", exit 0), and the folder is made first (every point failed writing into it).
TEST(Cli, TwoSweepsShareAResultsFileInANewFolder) {
  const std::string sweep = WriteTemp("ntpb_sweep_shared.json", R"({"name": "mlp_shared",
    "topology": ")" + Topo("mlp.json") + R"(", "base": {"n_hidden": 16}, "min_time": 0.01,
    "factors": [{"name": "n_hidden", "values": [16, 32, 64, 128]}]})");
  const std::string folder = TestDir() + "/ntpb_sweep_new_" + std::to_string(::getpid());
  const std::string results = folder + "/deeper/shared.json";
  const std::string one = kCli + " sweep " + sweep + " --resume -o " + results;
  const CommandResult both =
      RunCommand("(" + one + " 2>" + folder + ".a.log & a=$!; " + one + " 2>" + folder +
                 ".b.log; b=$?; wait $a; exit $(( $? + b )))");
  ASSERT_EQ(both.exit_code, 0) << ReadFile(folder + ".a.log") << ReadFile(folder + ".b.log");
  const nlohmann::json r = nlohmann::json::parse(ReadFile(results));
  std::set<std::string> ids;
  for (const nlohmann::json& p : r["points"]) {
    EXPECT_TRUE(p["ok"].get<bool>()) << p.dump().substr(0, 300);
    ids.insert(p["id"].get<std::string>());
  }
  EXPECT_EQ(ids.size(), 4u);
  const CommandResult left = RunCommand("ls " + folder + "/deeper");
  EXPECT_EQ(left.out, "shared.json\n") << "no point files left behind";
}

// A run that uses no OpenCL does not start its driver (PoCL mapped ~220 MB of LLVM into every
// command: ResNet-50 on eigen failed under `ulimit -v 400000`); --version and `ops` neither.
TEST(Cli, OnlyARunOnOpenclStartsItsDriver) {
  const std::string out = TestDir() + "/ntpb_no_driver_" + std::to_string(::getpid()) + ".json";
  const CommandResult r =
      RunCommand(kCli + " run " + Topo("mlp.json") + " --benchmark_min_time=0.001 --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json context = nlohmann::json::parse(ReadFile(out))["context"];
  if (!FindBackend("opencl")) GTEST_SKIP() << "built without OpenCL";
  EXPECT_EQ(context["ntpbench_backend.opencl"], MachineClass::kNotStarted);
  EXPECT_NE(context["ntpbench_machine"].get<std::string>().find(std::string("opencl=") +
                                                                MachineClass::kNotStarted),
            std::string::npos)
      << context["ntpbench_machine"];
  EXPECT_NE(context["ntpbench_backend.eigen"], MachineClass::kNotStarted);
  const CommandResult on = RunCommand(kCli + " run " + Topo("mlp.json") +
                                      " --backend opencl --benchmark_min_time=0.001 --json " + out);
  if (on.exit_code != 0) GTEST_SKIP() << "no OpenCL driver here: " << on.err;
  EXPECT_NE(nlohmann::json::parse(ReadFile(out))["context"]["ntpbench_backend.opencl"],
            MachineClass::kNotStarted);
}

// A backend built as a module outside ntpbench's own list (one ntpbench_backend_module() call) is
// found by its file in a module folder, with no other edit: listed, run by name, and refused
// with the reason where the file is from another build.
TEST(Cli, ABackendModuleIsFoundByItsFileAlone) {
  const std::string env = "NTPB_BACKEND_MODULE_PATH=" NTPBENCH_TEST_MODULES;
  const CommandResult version = RunCommand(env + "/this_build " + kCli + " --version");
  ASSERT_EQ(version.exit_code, 0) << version.err;
  EXPECT_NE(version.out.find("stubmod (started when a run uses it)"), std::string::npos)
      << version.out;
  const std::string run =
      kCli + " run " + Topo("mlp.json") + " --backend stubmod --benchmark_min_time=0.01 --quiet";
  const CommandResult ours = RunCommand(env + "/this_build " + run);
  EXPECT_NE(ours.out.find("mlp/stubmod/f32/batch:1"), std::string::npos) << ours.out << ours.err;
  EXPECT_NE(ours.out.find("skipped: the stub module runs nothing"), std::string::npos) << ours.out;
  const CommandResult other = RunCommand(env + "/other_build " + run);
  EXPECT_NE(other.out.find("is from another build of ntpbench (another-build"), std::string::npos)
      << other.out;
  // Without the folder, no such backend.
  const CommandResult none = RunCommand(kCli + " run " + Topo("mlp.json") + " --backend stubmod");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("unknown backend 'stubmod'"), std::string::npos) << none.err;
}

// The torch backend is a module (module_backend.h): --version and a run on another backend never
// load it (libtorch's static initialisers would cost each of them ~2 s); a run on torch does.
TEST(Cli, OnlyARunOnTorchLoadsItsModule) {
  if (!FindBackend("torch")) GTEST_SKIP() << "built without torch";
  const std::string out = TestDir() + "/ntpb_torch_module_" + std::to_string(::getpid()) + ".json";
  const std::string traced = "LD_DEBUG=files ";
  const CommandResult version = RunCommand(traced + kCli + " --version");
  ASSERT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.err.find("libntpbench_torch.so"), std::string::npos);
  EXPECT_NE(version.out.find("torch (started when a run uses it)"), std::string::npos)
      << version.out;
  const CommandResult other = RunCommand(traced + kCli + " run " + Topo("mlp.json") +
                                         " --benchmark_min_time=0.001 --json " + out);
  ASSERT_EQ(other.exit_code, 0) << other.err.substr(0, 2000);
  EXPECT_EQ(other.err.find("libntpbench_torch.so"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(out))["context"]["ntpbench_backend.torch"],
            MachineClass::kNotStarted);
  const CommandResult on = RunCommand(traced + kCli + " run " + Topo("mlp.json") +
                                      " --backend torch --benchmark_min_time=0.001 --json " + out);
  ASSERT_EQ(on.exit_code, 0) << on.err.substr(0, 2000);
  EXPECT_NE(on.err.find("libntpbench_torch.so"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(out))["context"]["ntpbench_backend.torch"]
                .get<std::string>()
                .rfind("PyTorch ", 0),
            0u);
}

// A decoder's prompt swept under the generate scenario: each point's time to first token and
// per output token, in the table and the page (on eigen: every build has it); a scenario that is
// no scenario is refused.
TEST(Cli, SweepUnderTheGenerateScenario) {
  const std::string sweep = WriteTemp("ntpb_sweep_generate.json", R"({"name": "toy_generate",
    "topology": ")" + Topo("llama.json") + R"(",
    "base": {"backend": "eigen", "scenario": "generate", "hidden": 32, "heads": 4,
             "kv_heads": 2, "ffn": 48, "vocab": 50, "layers": 2, "gen": 4, "prompt": 8},
    "factors": [{"name": "prompt", "values": [8, 32]}], "min_time": 0.05})");
  const std::string results =
      TestDir() + "/ntpb_sweep_generate_" + std::to_string(::getpid()) + ".json";
  const CommandResult r = RunCommand(kCli + " sweep " + sweep + " -o " + results);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("prompt  TTFT p50 ms  TPOT p50 ms  tokens/s"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[2/2] prompt=32: TTFT "), std::string::npos) << r.err;
  const nlohmann::json points = nlohmann::json::parse(ReadFile(results))["points"];
  ASSERT_EQ(points.size(), 2u);
  for (const nlohmann::json& p : points) {
    EXPECT_TRUE(p["ok"].get<bool>()) << p.dump().substr(0, 400);
    EXPECT_EQ(p["settings"]["scenario"], "generate");
  }
  const std::string page = results + ".html";
  ASSERT_EQ(RunCommand(kCli + " report " + results + " -o " + page).exit_code, 0);
  EXPECT_NE(ReadFile(page).find("time to first token ms"), std::string::npos);

  const std::string bad = WriteTemp("ntpb_sweep_bad_scenario.json", R"({"name": "bad",
    "topology": ")" + Topo("mlp.json") + R"(",
    "factors": [{"name": "scenario", "values": ["single-stream", "warp"]}]})");
  const CommandResult refused = RunCommand(kCli + " sweep " + bad + " --dry-run");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("factors[0].values[1]"), std::string::npos) << refused.err;
}

TEST(Cli, RunPrintsAPerLayerTablePerBatch) {
  const CommandResult r =
      RunCommand(kCli + " run " + Topo("tiny_cnn.json") + " --batch 1,2 --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text :
       {"tiny_cnn/eigen/f32/batch:1", "tiny_cnn/eigen/f32/batch:2", "layer", "share", "GFLOP/s",
        "conv1", "residual", "[stem]", "[block]", "total", "samples/s", "peak activations"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
  // The header names the context's JSON values (they are for the JSON output) instead of
  // printing them: no line of it is a JSON document.
  EXPECT_NE(r.err.find("in the JSON output only: ntpbench_config.tiny_cnn/eigen/f32"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("ntpbench_machine_facts: {"), std::string::npos) << r.err;
}

// Every backend with what it runs on; a backend with devices lists each with the spec --device
// takes, or says why it has none. Lines fit 120 columns.
TEST(Cli, DevicesListsEveryBackendAndItsDevices) {
  const CommandResult r = RunCommand(kCli + " devices");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("BACKEND"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("eigen    host"), std::string::npos) << r.out;
  if (BackendUnavailableReason("opencl").empty()) {
    EXPECT_TRUE(r.out.find("opencl   opencl:0:0") != std::string::npos ||
                r.out.find("opencl   none") != std::string::npos)
        << r.out;
  }
  EXPECT_EQ(r.out.find("hetero"), std::string::npos) << r.out;
  for (size_t at = 0; at < r.out.size();) {
    const size_t end = std::min(r.out.find('\n', at), r.out.size());
    EXPECT_LE(end - at, 120u) << r.out.substr(at, end - at);
    at = end + 1;
  }
}

TEST(Cli, RunWithCountersPrintsThemPerMarker) {
  SKIP_UNLESS_COUNTER("sde");
  const CommandResult r = RunCommand(kCli + " run " + Topo("tiny_cnn.json") +
                                     " --counters sde,rusage --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"counter per iteration", "[stem]", "[block]", "sde_flops",
                           "minor_faults", "bytes_per_flop", "p50/p90/p99"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
}

// Counting costs time (reads at every region boundary): the counters come from a pass of their
// own after the timed loop, whose size and cost the JSON and the table state.
TEST(Cli, RunCountsInAPassOfItsOwn) {
  const std::string out = TestDir() + "/ntpb_cli_counted.json";
  const CommandResult r =
      RunCommand(kCli + " run " + Topo("mlp.json") + " --counters rusage --layer-counters --json " +
                 out + " --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("counters from a pass of their own after the timed one: "),
            std::string::npos)
      << r.out;
  const nlohmann::json doc = ParseBenchmarkJson(ReadFile(out), out);
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  const nlohmann::json& b = doc["benchmarks"][0];
  ASSERT_TRUE(b.contains("net.counted_iterations")) << b.dump();
  EXPECT_GE(b["net.counted_iterations"].get<double>(), 1.0);
  EXPECT_LE(b["net.counted_iterations"].get<double>(), b["iterations"].get<double>());
  EXPECT_GT(b["net.counted_ms"].get<double>(), 0.0);
  EXPECT_TRUE(b.contains("layer.fc1.minor_faults")) << "layer counters, from the counted pass";
  std::remove(out.c_str());
}

TEST(Cli, RunWritesGoogleBenchmarkJson) {
  const std::string out = TestDir() + "/ntpb_cli_run.json";
  const CommandResult r = RunCommand(kCli + " run " + Topo("mlp.json") +
                                     " --set n_hidden=32 --marker head=fc3:probs --json " + out +
                                     " --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = ParseBenchmarkJson(ReadFile(out), out);
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  const nlohmann::json& b = doc["benchmarks"][0];
  EXPECT_EQ(b["name"], "mlp/eigen/f32/n_hidden:32/batch:1/real_time");
  EXPECT_TRUE(b.contains("head.time_share"));
  EXPECT_TRUE(b.contains("hidden.gflops"));
  EXPECT_TRUE(b.contains("layer.fc1.ms"));
  // Each step's and marker's median and range over the kept iterations.
  ASSERT_TRUE(b.contains("layer.fc1.p50_ms") && b.contains("head.max_ms")) << b.dump();
  EXPECT_LE(b["layer.fc1.min_ms"].get<double>(), b["layer.fc1.p50_ms"].get<double>());
  EXPECT_LE(b["layer.fc1.p50_ms"].get<double>(), b["layer.fc1.max_ms"].get<double>());
  EXPECT_GE(b["net.step_samples"].get<double>(), 1.0);
  EXPECT_LE(b["net.step_samples"].get<double>(), b["iterations"].get<double>());
  // 784*32 + 32*32 + 32*10 multiply-adds, softmax 3 per output
  EXPECT_EQ(b["net.flops"], 2.0 * (784 * 32 + 32 * 32 + 32 * 10) + 30);
  std::remove(out.c_str());
}

// The run file alone holds what `run` prints after its runs (layers, ops, shapes, cost, markers,
// precision paths, accuracy; fused layers: Report.RunTableShowsFusedLayersUnderTheirStep): `report
// --table` prints the table `run` printed, with the topology gone.
TEST(Cli, ReportTableRendersTheRunFileAlone) {
  const std::string dir = TestDir() + "/report_table";
  std::filesystem::create_directories(dir);
  const std::string topology = dir + "/tiny_cnn.json", out = dir + "/run.json";
  std::filesystem::copy_file(SourcePath("topologies/tiny_cnn.json"), topology,
                             std::filesystem::copy_options::overwrite_existing);
  const CommandResult run = RunCommand(kCli + " run " + topology + " --precision f32,bf16" +
                                       " --wide --json " + out + " --benchmark_min_time=0.01");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::filesystem::remove(topology);
  const CommandResult table = RunCommand(kCli + " report " + out + " --table text --wide");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  // From the first table's header row on, both print the same lines (each run's table, how
  // the machine ran each precision, the precisions' speed against accuracy), but for the line
  // naming each run (its time per iteration; the file).
  auto tables = [](const std::string& text) {
    std::string kept;
    for (size_t at = text.find("\nlayer "); at != std::string::npos && at < text.size();) {
      const size_t end = std::min(text.find('\n', at + 1), text.size());
      const std::string line = text.substr(at, end - at);
      if (line.find("/real_time  (") == std::string::npos) kept += line;
      at = end;
    }
    return kept;
  };
  ASSERT_NE(tables(run.out), "") << run.out;
  EXPECT_EQ(tables(table.out), tables(run.out)) << table.out;
  for (const char* text : {"bn1", "[stem]", "conv1..relu1", "[1, 8, 16, 16]", "total",
                           "eigen bf16 here: ", "Precisions: speed against accuracy"}) {
    EXPECT_NE(table.out.find(text), std::string::npos) << text << "\n" << table.out;
  }
  const CommandResult csv = RunCommand(kCli + " report " + out + " --table csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("benchmark,layer,op,kind,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find(",bn1,batchnorm,"), std::string::npos) << csv.out;
  const CommandResult bad = RunCommand(kCli + " report " + out + " --table xml");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("option '--table': unknown format 'xml'"), std::string::npos) << bad.err;
}

// Two real runs, another backend and precision: the network, the marker and every layer side by
// side, the executed kernels that differ, in the three formats; bad files are one line.
TEST(Cli, CompareTwoRunsLayerByLayer) {
  const std::string a = TestDir() + "/ntpb_cmp_a.json";
  const std::string b = TestDir() + "/ntpb_cmp_b.json";
  const std::string run = kCli + " run " + Topo("mlp.json") +
                          " --set n_hidden=64 --benchmark_min_time=0.01 --benchmark_repetitions=2";
  ASSERT_EQ(RunCommand(run + " --json " + a).exit_code, 0);
  const CommandResult second = RunCommand(run + " --backend onednn --precision bf16 --json " + b);
  if (second.exit_code != 0) GTEST_SKIP() << "no bf16 on onednn here: " << second.err;
  const CommandResult text = RunCommand(kCli + " compare " + a + " " + b);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* row : {"network", "[hidden]", "fc1", "fc2", "fc3", "probs"}) {
    EXPECT_NE(text.out.find("\n" + std::string(row) + " "), std::string::npos) << row << text.out;
  }
  EXPECT_NE(text.out.find("mlp/onednn/bf16/n_hidden:64/batch:1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("bytes x0.50"), std::string::npos) << "bf16 moves half the weights";
  const CommandResult csv = RunCommand(kCli + " compare " + a + " " + b + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("comparison,row,kind,aligned,op,run,ms", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find(",fc2,step,name,dense,B,"), std::string::npos) << csv.out;

  const std::string junk = WriteTemp("ntpb_cmp_junk.json", "{\"benchmarks\": 3}");
  const CommandResult bad = RunCommand(kCli + " compare " + a + " " + junk);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(Lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find(junk), std::string::npos) << bad.err;
  std::remove(a.c_str());
  std::remove(b.c_str());
}

// One file of several configurations (`run --backend a,b` or `--precision f32,bf16`) compares
// them, the first as the reference; a file of one says what compare needs.
TEST(Cli, CompareOneFileOfSeveralConfigurations) {
  const std::string both = TestDir() + "/ntpb_cmp_both.json";
  const std::string one = TestDir() + "/ntpb_cmp_one.json";
  const std::string run = kCli + " run " + Topo("mlp.json") + " --backend eigen" +
                          " --set n_hidden=64 --benchmark_min_time=0.01 --quiet";
  ASSERT_EQ(RunCommand(run + " --precision f32,bf16 --json " + both).exit_code, 0);
  const CommandResult text = RunCommand(kCli + " compare " + both);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("mlp/eigen/bf16/n_hidden:64/batch:1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\nfc2 "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("bytes x0.50"), std::string::npos) << "bf16 moves half the weights";
  ASSERT_EQ(RunCommand(run + " --json " + one).exit_code, 0);
  const CommandResult single = RunCommand(kCli + " compare " + one);
  EXPECT_EQ(single.exit_code, 1);
  EXPECT_EQ(Lines(single.err), 1) << single.err;
  EXPECT_NE(single.err.find(one + ": one configuration ran in it: compare needs a second file"),
            std::string::npos)
      << single.err;
  std::remove(both.c_str());
  std::remove(one.c_str());
}

// The trace-event format's rules a viewer relies on: every event has a name, a phase, a pid and
// (but metadata) a time; complete events a non-negative duration; on each thread, complete
// events nest (one starting inside another ends inside it) and come in time order. Returns the
// first problem, or "".
std::string TraceProblem(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    return "no traceEvents array";
  }
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, double>>> open;
  std::map<std::pair<int64_t, int64_t>, double> last_start;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (!e.contains("name") || !e["name"].is_string()) return "an event without a name";
    if (!e.contains("ph") || !e["ph"].is_string()) return "no ph: " + e.dump();
    const std::string ph = e["ph"];
    if (ph != "X" && ph != "C" && ph != "M") return "unexpected phase " + ph;
    if (!e.contains("pid") || !e["pid"].is_number_integer()) return "no pid: " + e.dump();
    if (ph == "M") continue;
    if (!e.contains("ts") || !e["ts"].is_number() || e["ts"].get<double>() < 0) {
      return "no ts: " + e.dump();
    }
    if (ph == "C") {
      if (!e.contains("args") || !e["args"].is_object()) return "counter without args";
      continue;
    }
    if (!e.contains("tid") || !e["tid"].is_number_integer()) return "no tid: " + e.dump();
    if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
      return "no dur: " + e.dump();
    }
    const auto thread = std::make_pair(e["pid"].get<int64_t>(), e["tid"].get<int64_t>());
    const double begin = e["ts"], end = begin + e["dur"].get<double>();
    if (last_start.count(thread) && begin < last_start[thread]) {
      return "out of time order: " + e.dump();
    }
    last_start[thread] = begin;
    auto& stack = open[thread];
    while (!stack.empty() && begin >= stack.back().second - 1e-6) stack.pop_back();
    if (!stack.empty() && end > stack.back().second + 1e-6) {
      return "overlaps its enclosing slice without nesting: " + e.dump();
    }
    stack.emplace_back(begin, end);
  }
  return "";
}

TEST(Cli, TraceValidatorCatchesWhatViewersReject) {
  using nlohmann::json;
  auto x = [](double ts, double dur) {
    return json{{"name", "s"}, {"ph", "X"}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", dur}};
  };
  EXPECT_EQ(TraceProblem({{"traceEvents", {x(0, 10), x(0, 4), x(4, 6)}}}), "");
  EXPECT_NE(TraceProblem({{"traceEvents", {x(0, 10), x(5, 10)}}}), "") << "overlap";
  EXPECT_NE(TraceProblem({{"traceEvents", {x(5, 1), x(0, 1)}}}), "") << "time order";
  EXPECT_NE(TraceProblem({{"traceEvents", {json{{"ph", "X"}}}}}), "") << "no name";
  EXPECT_NE(TraceProblem({{"events", json::array()}}), "");
}

// --trace: the measured iterations, each step a slice inside its markers and iteration, the
// inlays marked, valid for a trace viewer.
TEST(Cli, RunTraceIsAValidChromeTrace) {
  const std::string trace = TestDir() + "/ntpb_run.trace.json";
  const std::string run = TestDir() + "/ntpb_traced_run.json";
  const CommandResult r =
      RunCommand(kCli + " run " + Topo("tiny_cnn.json") +
                 " --backend eigen,onednn --marker tail=conv2:probs --marker head=conv1:relu1"
                 " --benchmark_min_time=0.01 --quiet --json " +
                 run + " --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(ReadFile(trace));
  EXPECT_EQ(TraceProblem(doc), "");
  std::map<std::string, int> by_category;
  std::set<std::string> processes;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    by_category[e.value("cat", e["ph"].get<std::string>())]++;
    if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_TRUE(processes.count("tiny_cnn/eigen/f32/batch:1"));
  EXPECT_GT(by_category["iteration"], 0);
  EXPECT_EQ(by_category["C"], by_category["iteration"]) << "a counter sample per iteration";
  // tiny_cnn's own markers (stem, block) and the two given here, in every iteration.
  EXPECT_EQ(by_category["marker"], 4 * by_category["iteration"]);
  EXPECT_GT(by_category["layer"] + by_category["fused"], by_category["iteration"]);
  // The backends' inlays (oneDNN's reorders, where the ISA's kernels want a blocked layout: with
  // AVX-512 it reorders the image, with AVX2 not) are marked as such, as many as the run had.
  int inlay_steps = 0;
  for (const auto& [name, benchmark] : ReadRunResults(run).benchmarks) {
    for (const StepMeasure& s : benchmark.Measurement().steps) {
      inlay_steps += s.kind == StepKind::kInlay ? 1 : 0;
    }
  }
  EXPECT_EQ(by_category["inlay"] > 0, inlay_steps > 0) << inlay_steps << " inlay steps";
  std::remove(trace.c_str());
}

// Suites: --ntpb_trace keeps the traced iterations in the run file, `ntpbench trace` writes the
// Chrome trace from it; a file without them is one line saying how to get them.
TEST(Cli, SuiteTraceGoesThroughTheRunFile) {
  const std::string run = TestDir() + "/ntpb_traced_run.json";
  const std::string trace = TestDir() + "/ntpb_suite.trace.json";
  const CommandResult suite =
      RunCommand(std::string(REGISTRATION_SUITE) +
                 " --benchmark_filter=mlp_small --benchmark_min_time=0.01 --ntpb_trace"
                 " --benchmark_out=" +
                 run);
  ASSERT_EQ(suite.exit_code, 0) << suite.err;
  const CommandResult r = RunCommand(kCli + " trace " + run + " -o " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(ReadFile(trace));
  EXPECT_EQ(TraceProblem(doc), "");
  int iterations = 0;
  for (const nlohmann::json& e : doc["traceEvents"])
    iterations += e.value("cat", "") == "iteration";
  EXPECT_GT(iterations, 0);
  const CommandResult untraced =
      RunCommand(std::string(REGISTRATION_SUITE) +
                 " --benchmark_filter=mlp_small --benchmark_min_time=0.01 --benchmark_out=" + run);
  ASSERT_EQ(untraced.exit_code, 0) << untraced.err;
  const CommandResult none = RunCommand(kCli + " trace " + run + " -o " + trace);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(Lines(none.err), 1) << none.err;
  EXPECT_NE(none.err.find("--ntpb_trace"), std::string::npos) << none.err;
  std::remove(run.c_str());
  std::remove(trace.c_str());
}

// diff: layers resized, one removed, one added, aligned by name; the
// totals per side; --fail-on-difference for CI.
TEST(Cli, DiffShowsWhatChangedBetweenTwoTopologies) {
  const std::string head = R"({"format": "ntpbench-topology", "version": 1, "name": "net",
    "inputs": [{"name": "x", "shape": ["N", 16]}], "layers": [)";
  const std::string a = WriteTemp("ntpb_diff_a.json", head + R"(
    {"name": "fc1", "op": "dense", "units": 32}, {"name": "act", "op": "relu"},
    {"name": "drop", "op": "relu"}, {"name": "fc2", "op": "dense", "units": 10}]})");
  const std::string b = WriteTemp("ntpb_diff_b.json", head + R"(
    {"name": "fc1", "op": "dense", "units": 64}, {"name": "act", "op": "relu"},
    {"name": "fc2", "op": "dense", "units": 10}, {"name": "probs", "op": "softmax"}]})");
  const CommandResult r = RunCommand(kCli + " diff " + a + " " + b + " --all");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row_of = [&](const std::string& start) {
    const size_t at = r.out.find("\n" + start);
    return at == std::string::npos ? std::string()
                                   : r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(row_of("fc1 ").find("resized"), std::string::npos) << r.out;
  EXPECT_NE(row_of("fc1 ").find("[1, 32] -> [1, 64]"), std::string::npos) << r.out;
  EXPECT_NE(row_of("fc1 ").find("544 -> 1.09 k"), std::string::npos) << r.out;
  EXPECT_NE(row_of("act ").find("resized"), std::string::npos) << "its input grew";
  EXPECT_NE(row_of("drop ").find("removed"), std::string::npos) << r.out;
  EXPECT_NE(row_of("fc2 ").find("resized"), std::string::npos) << "more inputs: more params";
  EXPECT_NE(row_of("- ").find("added"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 added, 1 removed, 3 resized"), std::string::npos) << r.out;
  const CommandResult same = RunCommand(kCli + " diff " + a + " " + a);
  EXPECT_NE(same.out.find("rows: 4 same"), std::string::npos) << same.out;
  EXPECT_EQ(RunCommand(kCli + " diff " + a + " " + b + " --fail-on-difference").exit_code, 1);
  EXPECT_EQ(RunCommand(kCli + " diff " + a + " " + a + " --fail-on-difference").exit_code, 0);
  const CommandResult missing = RunCommand(kCli + " diff " + a + " " + MissingPath("x.json"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(Lines(missing.err), 1) << missing.err;
}

// A mono 16-bit PCM WAV of `samples` zeros: the header by hand (RIFF, fmt, data).
void WriteWav(const std::string& path, int rate, int samples) {
  std::ofstream out(path, std::ios::binary);
  auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
  out << "RIFF";
  u32(36 + 2 * samples);
  out << "WAVEfmt ";
  u32(16), u16(1), u16(1), u32(rate), u32(2 * rate), u16(2), u16(16);
  out << "data";
  u32(2 * samples);
  for (int i = 0; i < samples; ++i) u16(0);
}

// --input: a recording feeds the end-to-end DeepSpeech; too long, another sample rate or a
// missing input is one line naming what to change.
TEST(Cli, ARecordingFeedsTheSpeechPipeline) {
  const std::string e2e = kCli + " run " + Topo("deepspeech_e2e.json") +
                          " --set n_hidden=16 --set beam=2 --benchmark_min_time=0.01 --quiet";
  const std::string speech = SourcePath("tests/data/speech_16k.wav");
  const CommandResult fits = RunCommand(e2e + " --set seconds=4 --input audio=" + speech);
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_NE(fits.err.find("zero-padded to 64000"), std::string::npos) << fits.err;
  EXPECT_NE(fits.out.find("[decoder]"), std::string::npos) << fits.out;
  const CommandResult too_long = RunCommand(e2e + " --input audio=" + speech);
  EXPECT_EQ(too_long.exit_code, 1);
  EXPECT_EQ(Lines(too_long.err), 1) << too_long.err;
  EXPECT_NE(too_long.err.find("--set seconds=4"), std::string::npos) << too_long.err;
  const std::string slow = TestDir() + "/ntpb_8k.wav";
  WriteWav(slow, 8000, 8000);
  const CommandResult rate = RunCommand(e2e + " --input audio=" + slow);
  EXPECT_EQ(rate.exit_code, 1);
  EXPECT_NE(rate.err.find("layer 'mfcc'"), std::string::npos) << rate.err;
  EXPECT_NE(rate.err.find("8000 Hz, the layer reads 16000 Hz"), std::string::npos) << rate.err;
  const CommandResult name = RunCommand(e2e + " --input sound=" + slow);
  EXPECT_EQ(name.exit_code, 2);  // a mistake in the command line
  EXPECT_NE(name.err.find("no input 'sound' (inputs: audio)"), std::string::npos) << name.err;
  const CommandResult junk = RunCommand(e2e + " --input audio=" + Topo("mlp.json"));
  EXPECT_EQ(junk.exit_code, 1);
  EXPECT_EQ(Lines(junk.err), 1) << junk.err;
  std::remove(slow.c_str());
}

TEST(Cli, BenchmarkFormatJsonKeepsStdoutPureJson) {
  const CommandResult r = RunCommand(kCli + " run " + Topo("mlp.json") +
                                     " --set n_hidden=16 --benchmark_format=json"
                                     " --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = ParseBenchmarkJson(r.out, "stdout");
  EXPECT_EQ(doc["benchmarks"][0]["name"], "mlp/eigen/f32/n_hidden:16/batch:1/real_time");
}

TEST(Cli, SkippedPrecisionsSayWhy) {
  const CommandResult r = RunCommand(kCli + " run " + Topo("mlp.json") +
                                     " --set n_hidden=16 --precision f32,i8"
                                     " --benchmark_min_time=0.01");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("skipped: the eigen reference backend runs f32, bf16 and f16 as stored "
                       "values, and w8/w4 as their dequantized weights, not i8"),
            std::string::npos)
      << r.out;
  const CommandResult only_i8 = RunCommand(kCli + " run " + Topo("mlp.json") + " --precision i8");
  EXPECT_EQ(only_i8.exit_code, 1) << "nothing ran";
}

// A lower precision reports how far its outputs are from the Eigen f32 reference; i8 shows its
// quantize steps as inlays.
TEST(Cli, LowerPrecisionRunsReportTheirAccuracyDelta) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  const CommandResult r = RunCommand(kCli + " run " + Topo("mlp.json") +
                                     " --backend onednn --precision f32,bf16,i8"
                                     " --benchmark_min_time=0.01");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mlp/onednn/bf16/batch:1"), std::string::npos) << r.out;
  for (const char* text : {"accuracy vs the Eigen f32 reference", "  outputs: relative error ",
                           "  logits (fc3, before the softmax): relative error ",
                           "predictions of 64 seeded inputs (argmax of the logits)",
                           "  steps losing most (their output's relative error): "}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("acc.cosine"), std::string::npos) << r.out;  // the console counter
  const size_t i8 = r.out.find("mlp/onednn/i8/batch:1");
  ASSERT_NE(i8, std::string::npos) << r.out;
  // The quantize step oneDNN inserts, as an inlay row (its name shortened to fit 120 columns
  // beside the error column).
  const size_t inlay = r.out.find("(inlay)  quantize", i8);
  ASSERT_NE(inlay, std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("\nfc1.", inlay) != std::string::npos, true) << r.out;
  EXPECT_NE(r.out.find("rel. err", i8), std::string::npos) << r.out;
  // Only a precision this machine's oneDNN has no kernels for is skipped, with the reason.
  const Support bf16 = BackendSupportFor("onednn", Precision::kBf16);
  EXPECT_EQ(r.out.find("skipped") == std::string::npos, bf16.ok) << r.out;
  if (!bf16.ok) {
    EXPECT_NE(r.out.find("skipped: " + bf16.reason), std::string::npos) << r.out;
  }
}

// --table csv owns stdout: the header once, then rows of every benchmark (Google Benchmark's
// own table goes to stderr), so the output pipes into a spreadsheet.
TEST(Cli, RunTableCsvWritesOnlyCsvToStdout) {
  const CommandResult r = RunCommand(kCli + " run " + Topo("mlp.json") +
                                     " --batch 1,2 --table csv --benchmark_min_time=0.01");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("benchmark,layer,op,kind,output,ms,", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("benchmark,", 1), std::string::npos) << "one header: " << r.out;
  EXPECT_NE(r.out.find("\nmlp/eigen/f32/batch:1/real_time,fc1,dense,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nmlp/eigen/f32/batch:2/real_time,fc1,dense,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("samples/s"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Iterations"), std::string::npos) << "Google Benchmark's table: " << r.err;
  const CommandResult bad = RunCommand(kCli + " run " + Topo("mlp.json") + " --table xml");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("option '--table': unknown format 'xml' (one of: text, csv)"),
            std::string::npos)
      << bad.err;
}

// nn.LSTM(x, (h0, c0)) and nn.GRU(y, h0) exported with dynamic axes: the initial states are
// graph inputs with the batch on their second axis; stored as the whole batch, they feed every
// backend of this build, whose outputs must be PyTorch's (tests/onnx/rnn_initial_states).
TEST(Cli, RecurrentLayersStartFromInitialStatesGivenAsInputs) {
  const std::string dir = SourcePath("tests/onnx/rnn_initial_states");
  const std::string set = dir + "/test_data_set_0/";
  int checked = 0;
  for (const std::string& backend : BackendNames()) {
    // hetero runs by a placement; an engine of a fixed operator set (xnnpack) has no LSTM.
    if (backend == "hetero" || !FindBackend(backend)->RunsEveryOp()) continue;
    const CommandResult r = RunCommand(
        kCli + " run " + dir + "/model.onnx --backend " + backend + " --batch 3 --set T=7" +
        " --input x=" + set + "input_0.pb --input h0=" + set + "input_1.pb --input c0=" + set +
        "input_2.pb --input g0=" + set + "input_3.pb --check-output z=" + set +
        "output_0.pb --check-output hg=" + set + "output_1.pb --benchmark_min_time=0.01 --quiet");
    if (r.err.find("without ONNX support") != std::string::npos) GTEST_SKIP() << r.err;
    if (r.out.find("skipped") != std::string::npos && backend == "opencl") continue;
    ASSERT_EQ(r.exit_code, 0) << backend << ": " << r.err;
    for (const char* out : {"z", "hg"}) {
      EXPECT_NE(r.out.find("check-output " + backend + " f32 output '" + out + "'"),
                std::string::npos)
          << r.out;
    }
    EXPECT_EQ(r.out.find("BEYOND TOLERANCE"), std::string::npos) << r.out;
    ++checked;
  }
  EXPECT_GE(checked, 1);
  // A state of another batch size: one line naming the file and the shape wanted.
  const CommandResult misfit = RunCommand(
      kCli + " run " + dir + "/model.onnx --backend eigen --batch 2 --set T=7 --input h0=" + set +
      "input_1.pb");
  EXPECT_NE(misfit.exit_code, 0);
  EXPECT_NE(misfit.err.find("input_1.pb: field '--input': holds a [4, 3, 6] tensor; input 'h0' "
                            "is [4, 1, 6] at batch 1"),
            std::string::npos)
      << misfit.err;
}

// --set with a list: one benchmark per value, each named, each table with its own shapes.
// An ONNX model exported with dynamic axes and its test data (the ONNX layout): the stored input
// at other sizes than the export's, bound by the dims' own names; the stored output checked on
// every backend before anything is measured, a wrong one exit 1, a misfit file one line.
TEST(Cli, RunChecksAnOnnxTestDataSetAtTheSizesItWasMadeAt) {
  const std::string dir = SourcePath("tests/onnx/corpus/encoder_block_dyn_op17");
  const std::string set = dir + "/test_data_set_1";
  const CommandResult r =
      RunCommand(kCli + " run " + dir + "/model.onnx --backend eigen --batch 3 --set seq=9" +
                 " --input input=" + set + "/input_0.pb --check-output output=" + set +
                 "/output_0.pb --benchmark_min_time=0.01 --quiet");
  if (r.err.find("without ONNX support") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("check-output eigen f32 output 'output': relative error "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(tolerance 1.0e-04): ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model/eigen/f32/T:9/batch:3"), std::string::npos) << r.out;
  // The other set's output (batch 2, seq 16) at these sizes: a misfit file, named.
  const CommandResult misfit =
      RunCommand(kCli + " run " + dir + "/model.onnx --backend eigen --batch 3 --set seq=9" +
                 " --check-output output=" + dir + "/test_data_set_0/output_0.pb");
  EXPECT_NE(misfit.exit_code, 0);
  EXPECT_NE(misfit.err.find("test_data_set_0/output_0.pb: field '--check-output': holds a [2, "
                            "16, 32] tensor; output 'output' is [3, 9, 32] at batch 3"),
            std::string::npos)
      << misfit.err;
  // Random inputs instead of the stored ones: the output differs, exit 1, nothing measured.
  const CommandResult wrong =
      RunCommand(kCli + " run " + dir + "/model.onnx --backend eigen --batch 3 --set seq=9" +
                 " --check-output output=" + set + "/output_0.pb");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.err;
  EXPECT_NE(wrong.out.find("BEYOND TOLERANCE"), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find("batch:3"), std::string::npos) << wrong.out;
}

// A model of fixed sizes whose batch is not the first axis (an RNN's [T, N, C] at N 2): its own
// test data is its input as it is. Every output of `y, (h, c) = lstm(x)` checked, the final cell
// state (Y_c) among them.
TEST(Cli, RunChecksAStaticRecurrentExportsTestDataAsItIs) {
  const std::string dir = SourcePath("tests/onnx/corpus/lstm_state_op13");
  const std::string set = dir + "/test_data_set_0/";
  const CommandResult r = RunCommand(
      kCli + " run " + dir + "/model.onnx --backend eigen,onednn --input input=" + set +
      "input_0.pb --check-output output=" + set + "output_0.pb --check-output output_1=" + set +
      "output_1.pb --check-output output_2=" + set +
      "output_2.pb --benchmark_min_time=0.01 --quiet");
  if (r.err.find("without ONNX support") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* backend : {"eigen", "onednn"}) {
    for (const char* output : {"output", "output_1", "output_2"}) {
      EXPECT_NE(r.out.find("check-output " + std::string(backend) + " f32 output '" + output +
                           "': relative error "),
                std::string::npos)
          << backend << " " << output << "\n"
          << r.out;
    }
  }
  EXPECT_EQ(r.out.find("BEYOND TOLERANCE"), std::string::npos) << r.out;
}

TEST(Cli, RunSetListRunsEachValue) {
  const CommandResult r = RunCommand(kCli + " run " + Topo("mlp.json") +
                                     " --set n_hidden=32,48 --table csv --benchmark_min_time=0.01");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nmlp/eigen/f32/n_hidden:32/batch:1/real_time,fc1,dense,layer,\"[1, 32]\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nmlp/eigen/f32/n_hidden:48/batch:1/real_time,fc1,dense,layer,\"[1, 48]\""),
            std::string::npos)
      << r.out;
  // A value no layer can take names the value it was at.
  const CommandResult bad = RunCommand(kCli + " run " + Topo("mlp.json") + " --set n_hidden=32,-1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--set n_hidden=-1"), std::string::npos) << bad.err;
  const CommandResult inspect =
      RunCommand(kCli + " inspect " + Topo("mlp.json") + " --set n_hidden=32,48");
  EXPECT_NE(inspect.exit_code, 0);
  EXPECT_NE(inspect.err.find("'n_hidden' takes one value here, got 2"), std::string::npos)
      << inspect.err;
}

// The batching decision: --scenario with --streams and --batch prints throughput against p99 per
// (streams, batch), the Pareto front marked; options that do not apply are one line each.
TEST(Cli, RunScenariosPrintTheStreamsByBatchTable) {
  const CommandResult r = RunCommand(
      kCli + " run " + Topo("mlp.json") +
      " --set n_hidden=32 --scenario single-stream,offline --streams 1,2 --batch 1,2 --threads 2"
      " --queries 200 --benchmark_min_time=0.01 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t table = r.out.find("Scenarios: throughput against p99 latency");
  ASSERT_NE(table, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("benchmarks mlp/eigen/f32/n_hidden:32/nthreads:2/...", table),
            std::string::npos)
      << r.out;
  for (const char* row : {"\noffline/queries:200/streams:1/batch:1 ",
                          "\noffline/queries:200/streams:2/batch:2 ", "\nbatch:2 "}) {
    EXPECT_NE(r.out.find(row, table), std::string::npos) << row << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("2x1t", table), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("200 of 1000", table), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("*", table), std::string::npos) << "a Pareto front: " << r.out;

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--streams 2", "option '--streams': applies to --scenario offline, server or multi-stream"},
      {"--scenario server", "server needs a rate (--target-qps QPS;"},
      {"--scenario server --find-max-qps", "option '--find-max-qps': needs the bound"},
      {"--scenario offline --target-qps 5",
       "option '--target-qps': does not apply to --scenario offline (it applies to --scenario "
       "server or generate)"},
      {"--scenario server --find-max-qps --p99 fast", "expected a time like 50ms"},
      {"--scenario ofline", "unknown scenario 'ofline'"},
      {"--scenario offline --samples-per-query 4", "applies to --scenario multi-stream"}};
  for (const auto& [args, message] : refused) {
    const CommandResult bad = RunCommand(kCli + " run " + Topo("mlp.json") + " " + args);
    EXPECT_NE(bad.exit_code, 0) << args;
    EXPECT_NE(bad.err.find(message), std::string::npos) << args << ": " << bad.err;
  }
}

// A decoder's generation: time to first token, time per output token, tokens per second, the
// caches' bytes and a per-layer table per phase; a prompt and gen that make no generation, or a
// topology without caches, are one line before any run.
TEST(Cli, RunGenerateReportsTtftTpotAndPhases) {
  const std::string toy =
      " --set hidden=32 --set heads=4 --set kv_heads=2 --set ffn=48 --set vocab=50 --set layers=2";
  const CommandResult r =
      RunCommand(kCli + " run " + Topo("llama.json") + toy +
                 " --set prompt=6 --set gen=4 --scenario generate --batch 2 --queries 3 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t table = r.out.find("Generation: time to first token");
  ASSERT_NE(table, std::string::npos) << r.out;
  // 2 sequences x 2 layers x (k + v) x 2 key/value heads x 8 x 4 bytes x (6 + 4) tokens.
  EXPECT_NE(r.out.find("\neigen/f32      2       6    4 ", table), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5.00 KiB", table), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 of 250", table), std::string::npos) << r.out;
  const size_t phases = r.out.find("(per layer and phase)");
  ASSERT_NE(phases, std::string::npos) << r.out;
  for (const char* row : {"\nblk1.k_cache ", "\nblk1.attn ", "\nlm_head ", "\ntotal "}) {
    EXPECT_NE(r.out.find(row, phases), std::string::npos) << row << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("(3 measured), one decode step at the mean context (12 measured)", phases),
            std::string::npos)
      << r.out;

  // Requests arriving at a rate: the row says it, TTFT counts from the arrival.
  const CommandResult rate = RunCommand(kCli + " run " + Topo("llama.json") + toy +
                                        " --set prompt=6 --set gen=4 --scenario generate"
                                        " --target-qps 50 --queries 3 --quiet");
  ASSERT_EQ(rate.exit_code, 0) << rate.err;
  EXPECT_NE(rate.out.find("\neigen/f32 @50/s      1       6    4 "), std::string::npos) << rate.out;
  EXPECT_NE(rate.out.find("their TTFT counts\nfrom the arrival"), std::string::npos) << rate.out;
  // A rate so low that nothing arrives within the time limit ends it, never a sleep of decades.
  const CommandResult none = RunCommand(kCli + " run " + Topo("llama.json") + toy +
                                        " --set prompt=6 --set gen=4 --scenario generate"
                                        " --target-qps 0.000001 --scenario-seconds 1 --quiet");
  EXPECT_NE(none.exit_code, 0);
  EXPECT_NE((none.out + none.err).find("no request arrived within the time limit"),
            std::string::npos)
      << none.out << none.err;

  const std::vector<std::pair<std::string, std::string>> refused = {
      {Topo("llama.json") + toy + " --set gen=0",
       "field 'params.gen': must be at least 1 (the tokens decoded after the prompt), got 0"},
      {Topo("gpt2.json") + " --set layers=1 --set prompt=1000 --set gen=25",
       "prompt 1000 + gen 25 is more than the context of 1024 positions"},
      {Topo("mlp.json"), "--scenario generate needs a decoder with the param 'prompt'"},
      {Topo("llama.json") + toy + " --set past=3",
       "field 'params.past': --scenario generate sets it itself"},
      {Topo("llama.json") + toy + " --streams 2",
       "option '--streams': does not apply to --scenario generate"}};
  for (const auto& [args, message] : refused) {
    const CommandResult bad = RunCommand(kCli + " run " + args + " --scenario generate");
    EXPECT_NE(bad.exit_code, 0) << args;
    EXPECT_NE(bad.err.find(message), std::string::npos) << args << ": " << bad.err;
  }
}

TEST(Cli, InspectShowsTheAnalysisWithoutRunning) {
  const CommandResult r =
      RunCommand(kCli + " inspect " + Topo("deepspeech.json") + " --set n_hidden=1024 --batch 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bilstm"), std::string::npos);
  EXPECT_NE(r.out.find("[2, 100, 2048]"), std::string::npos) << r.out;
  const CommandResult j = RunCommand(kCli + " inspect " + Topo("resnet50.json") + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["total"]["params"], 25557032);
  EXPECT_EQ(doc["layers"][0]["output_shape"], nlohmann::json({1, 64, 112, 112}));
}

TEST(Cli, OpsListsTheCatalog) {
  const CommandResult r = RunCommand(kCli + " ops");
  ASSERT_EQ(r.exit_code, 0);
  for (const OpDef& op : AllOps()) EXPECT_NE(r.out.find(op.name), std::string::npos) << op.name;
}

struct BadCli {
  std::string args;
  std::string message;
};

// Google Benchmark's conventions hold through `ntpbench run`: --benchmark_list_tests exits 0,
// --benchmark_out and --json both get the document, newer GBs' "0.5s" is read as seconds.
// An output in a folder that is not there yet (results/run.json in a fresh checkout) gets its
// folder, as `mkdir -p` would, for every command that writes one: before, `run --json`,
// `run --trace`, `report -o` and `convert` failed where `sweep -o` and `compare --report` did not.
TEST(Cli, AnOutputsMissingFolderIsMade) {
  const std::string out = TestDir() + "/made_" + std::to_string(::getpid());
  const CommandResult run =
      RunCommand(kCli + " run " + Topo("mlp.json") + " --benchmark_min_time=0.001 --json " + out +
                 "/a/run.json --trace " + out + "/b/trace.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const std::string& command : {"report " + out + "/a/run.json -o " + out + "/c/report.html",
                                     "convert " + Topo("mlp.json") + " " + out + "/e/mlp.xml"}) {
    const CommandResult r = RunCommand(kCli + " " + command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
  }
  for (const char* file : {"/a/run.json", "/b/trace.json", "/c/report.html", "/e/mlp.xml"}) {
    EXPECT_EQ(::access((out + file).c_str(), R_OK), 0) << file;
  }
}

TEST(Cli, RunKeepsGoogleBenchmarkConventions) {
  const CommandResult list =
      RunCommand(kCli + " run " + Topo("mlp.json") + " --batch 1,2 --benchmark_list_tests");
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("mlp/eigen/f32/batch:2/real_time"), std::string::npos) << list.out;
  const std::string a = TestDir() + "/ntpb_both_a.json", b = TestDir() + "/ntpb_both_b.json";
  const CommandResult both =
      RunCommand(kCli + " run " + Topo("mlp.json") + " --json " + a + " --benchmark_out=" + b +
                 " --benchmark_min_time=0.01s --quiet");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const std::string a_text = ReadFile(a), b_text = ReadFile(b);
  EXPECT_EQ(a_text, b_text);
  const nlohmann::json doc = nlohmann::json::parse(b_text, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "strict JSON";
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  EXPECT_TRUE(doc["benchmarks"][0].contains("ntpbench")) << "ntpbench's descriptions in both";
  // Debian's Google Benchmark warns that it is a DEBUG build: said once in ntpbench's words, with
  // ntpbench's own build type in the JSON.
  const CommandResult plain =
      RunCommand(kCli + " run " + Topo("mlp.json") + " --benchmark_min_time=0.01");
  EXPECT_EQ(plain.err.find("***WARNING*** Library was built as DEBUG"), std::string::npos);
  if (doc["context"]["library_build_type"] == "debug") {  // Debian's libbenchmark
    EXPECT_NE(plain.err.find("The code ntpbench times is built release"), std::string::npos)
        << plain.err;
  }
  EXPECT_EQ(doc["context"]["ntpbench_build_type"], "release");
  const CommandResult two_formats =
      RunCommand(kCli + " run " + Topo("mlp.json") + " --json " + a + " --benchmark_out=" + b +
                 " --benchmark_out_format=csv");
  EXPECT_EQ(two_formats.exit_code, 2) << two_formats.err;  // a mistake in the command line
  EXPECT_NE(two_formats.err.find("Google Benchmark writes one"), std::string::npos)
      << two_formats.err;
}

TEST(Cli, BadInputGivesOneLineAndNonZeroExit) {
  const std::string unknown_op = WriteTemp(
      "ntpb_unknown_op.json",
      R"({"name": "u", "inputs": [{"name": "x", "shape": [1, 4]}], "layers": [{"name": "l1", "op": "dens"}]})");
  const std::string truncated = WriteTemp("ntpb_truncated.json", R"({"name": "u", "inputs": [)");
  const std::vector<BadCli> cases = {
      {"run " + MissingPath("x.json"), MissingPath("x.json") + ": cannot read"},
      {"run " + unknown_op, unknown_op + ": layer 'l1', field 'op': unknown op 'dens'"},
      {"inspect " + truncated, truncated + ": malformed JSON"},
      {"run " + Topo("mlp.json") + " --set n_hiden=3", "cannot set unknown param 'n_hiden'"},
      {"run " + Topo("mlp.json") + " --batch 0", "--batch"},
      {"run " + Topo("mlp.json") + " --precision f64", "unknown precision 'f64'"},
      {"run " + Topo("mlp.json") + " --backend cuda", "unknown backend 'cuda'"},
      {"run " + Topo("mlp.json") + " --marker m=fc3:fc1", "runs after end layer"},
      {"run " + Topo("mlp.json") + " --marker net=fc1:fc2", "'net' is ntpbench's own region name"},
      {"inspect " + Topo("mlp.json") + " --backend nosuch", "unknown backend 'nosuch'"},
      {"inspect " + Topo("mlp.json") + " --counters bogus", "unknown counter source 'bogus'"},
      {"run " + Topo("mlp.json") + " --batch= 4", "needs a value after '='"},
      {"run " + Topo("mlp.json") + " --frobnicate", "unknown option"},
      {"inspect " + Topo("mlp.json") + " --set n_hidden=-5", "must be positive"},
      {"launch", "unknown command 'launch'"},
      {"run " + Topo("mlp.json") + " --json " + Topo("mlp.json") + "/x.json",
       Topo("mlp.json") + "/x.json: cannot make its folder " + Topo("mlp.json") +
           ": Not a directory"},
      // Options that cannot apply to what was asked: usage errors, before anything runs.
      {"run " + Topo("mlp.json") + " --place fc1=eigen,default=eigen",
       "option '--place': applies to --backend hetero"},
      {"run " + Topo("mlp.json") + " --device opencl:0", "option '--device': applies to a backend"},
      {"run " + Topo("mlp.json") + " --threads 0", "expected a count from 1 to 4096"},
      {"run " + Topo("mlp.json") + " --backend hetero --place fc9=eigen,default=eigen",
       "layer 'fc9', field '--place': no layer named 'fc9' in the topology (did you mean 'fc1'?)"},
      {"run " + Topo("mlp.json") + " --benchmark_min_time=10x", "counts iterations"},
      // Values CLI11 or Google Benchmark would drop or ignore, going on with exit 0.
      {"run " + Topo("mlp.json") + " --batch 1,,4", "option '--batch': an empty item in the list"},
      {"run " + Topo("mlp.json") + " --precision=f32,", "an empty item in the list 'f32,'"},
      {"run " + Topo("mlp.json") + " --scenario offline --streams ,2", "option '--streams'"},
      {"run " + Topo("mlp.json") + " --json ''", "option '--json': an empty argument after it"},
      {"run " + Topo("mlp.json") + " --benchmark_format=xml", "expected console, json or csv"},
      // One benchmark registered twice would collide in the JSON and in compare.
      {"run " + Topo("mlp.json") + " --backend eigen,eigen",
       "option '--backend': eigen is listed twice"},
      {"run " + Topo("mlp.json") + " --batch 4,1,4", "option '--batch': 4 is listed twice"},
      {"run " + Topo("mlp.json") + " --precision f32,f32",
       "option '--precision': f32 is listed twice"},
      // Another tool's name for a precision; a folder or a device for a topology; a topology for
      // a sweep; a gate without its suite.
      {"run " + Topo("mlp.json") + " --precision int8", "(did you mean 'i8'?)"},
      {"run " + Topo("mlp.json") + " --precision bfloat16", "(did you mean 'bf16'?)"},
      {"run " + SourcePath("topologies"), "cannot read a topology: is a directory"},
      // A shipped topology by its name; a file with no extension.
      {"run " + Topo("mobilenet_v2"),
       "no such file (did you mean " + Topo("mobilenet_v2.json") + "?)"},
      {"inspect " + Topo("no_such_net"), "no_such_net: no such file (a topology is a .json"},
      {"run " + SourcePath(".ci/run"), "run: has no extension: a topology is a .json, .xml"},
      {"inspect /dev/zero", "/dev/zero: cannot read a topology: a character device"},
      {"sweep " + Topo("mlp.json"), "this is a topology, not a sweep"},
      {"gate", "option '--suite-binary': is missing: gate needs --suite-binary"},
      {"run " + Topo("mlp.json") + " --backend hetero",
       "option '--backend': hetero places layers on the other backends: it needs --place"},
  };
  for (const BadCli& c : cases) {
    const CommandResult r = RunCommand(kCli + " " + c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_LT(r.exit_code, 3) << c.args << " must not crash: " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    if (c.args != "launch") {
      EXPECT_EQ(Lines(r.err), 1) << c.args << "\n" << r.err;
    }
  }
}

// The command line is CLI11's: help per command (stdout, exit 0, lines that fit 120 columns),
// --version, "did you mean" for a near miss, and exit 2 for any mistake in the command line.
TEST(Cli, HelpVersionAndNearMisses) {
  // The backends' options are listed where they apply (and in the overview), not under every
  // command.
  for (const std::string command : {"", " run", " sweep"}) {
    EXPECT_NE(RunCommand(kCli + command + " --help").out.find("Backend options ("),
              std::string::npos)
        << command;
  }
  for (const std::string command : {" convert", " ops", " report", " diff", " devices"}) {
    EXPECT_EQ(RunCommand(kCli + command + " --help").out.find("Backend options ("),
              std::string::npos)
        << command;
  }
  const CommandResult version = RunCommand(kCli + " --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("ntpbench " NTPBENCH_VERSION, 0), 0u) << version.out;
  EXPECT_NE(version.out.find("eigen (Eigen "), std::string::npos) << version.out;

  for (const std::string command : {"", " run", " inspect", " gate", " compare", " baseline update",
                                    " machine", " convert", " ops"}) {
    const CommandResult help = RunCommand(kCli + command + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_GT(Lines(help.out), 3) << command;
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(line.size(), 120u) << command << ": " << line;
    }
  }
  // `ops` lists every op with its summary wrapped to the same 120 columns.
  const CommandResult ops = RunCommand(kCli + " ops");
  EXPECT_EQ(ops.exit_code, 0);
  EXPECT_NE(ops.out.find("\nattention "), std::string::npos) << ops.out;
  std::istringstream op_lines(ops.out);
  for (std::string line; std::getline(op_lines, line);) {
    EXPECT_LE(line.size(), 120u) << "ops: " << line;
  }
  const CommandResult run_help = RunCommand(kCli + " help run");
  EXPECT_NE(run_help.out.find("--batch"), std::string::npos) << run_help.out;
  EXPECT_NE(run_help.out.find("--benchmark_repetitions"), std::string::npos) << run_help.out;

  const std::vector<BadCli> near_misses = {
      {"rnu " + Topo("mlp.json"), "unknown command 'rnu' (did you mean 'run'?)"},
      {"run " + Topo("mlp.json") + " --bach 4",
       "unknown option '--bach' (did you mean '--batch'?)"},
      {"run " + Topo("mlp.json") + " --backend onednnn", "did you mean 'onednn'?"},
      {"run " + Topo("mlp.json") + " --precision bf61", "did you mean 'bf16'?"},
      {"inspect " + Topo("mlp.json") + " --counters rusge", "did you mean 'rusage'?"},
      {"run " + Topo("mlp.json") + " --table cvs",
       "unknown format 'cvs' (one of: text, csv) (did "
       "you mean 'csv'?)"},
      {"run " + Topo("mlp.json") + " " + Topo("tiny_cnn.json"), "unexpected argument"},
      {"inspect " + Topo("mlp.json") + " --threads 2", "unknown option '--threads'"},
      {"machine --threads 0", "option '--threads': expected an integer from 1 to 4096, got '0'"},
      {"gate --filter '('", "option '--filter': not a regular expression"},
      {"gate --alpha 5", "option '--alpha': expected a significance level between 0 and 1"},
      {"gate --judge latncy", "did you mean 'latency'?"},
      {"gate --suite s --frobnicate", "a suite's with --ntpb_"},
      {"baseline update --run x.json", "--suite is required; options: ntpbench baseline update"},
      {"convert in.onnx", "OUT is required"},
  };
  for (const BadCli& c : near_misses) {
    const CommandResult r = RunCommand(kCli + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(Lines(r.err), 1) << c.args << "\n" << r.err;
  }
}

// "-" reads the topology from standard input, its format told by its first byte.
TEST(Cli, ATopologyOnStandardInput) {
  const CommandResult json = RunCommand(kCli + " inspect - < " + Topo("mlp.json"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind("mlp (-), batch 1, 4 layers", 0), 0u) << json.out;
  const CommandResult xml = RunCommand(kCli + " inspect - < " + Topo("deepspeech.xml"));
  ASSERT_EQ(xml.exit_code, 0) << xml.err;
  EXPECT_EQ(xml.out.rfind("deepspeech (-)", 0), 0u) << xml.out;
  const CommandResult garbage = RunCommand("echo '{ garbage' | " + kCli + " inspect -");
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_NE(garbage.err.find("<stdin>: malformed JSON"), std::string::npos) << garbage.err;
  // A byte-order mark before the JSON (as Windows editors write) is no ONNX model.
  const CommandResult bom = RunCommand("(printf '\\357\\273\\277'; cat " + Topo("mlp.json") +
                                       ") | " + kCli + " inspect -");
  EXPECT_EQ(bom.exit_code, 0) << bom.err;
  EXPECT_EQ(bom.out.rfind("mlp (-)", 0), 0u) << bom.out;
  // `run -` runs it too (through a temporary file, removed afterwards).
  const CommandResult run =
      RunCommand(kCli + " run - --benchmark_min_time=0.001 < " + Topo("mlp.json"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("mlp/eigen/f32/batch:1"), std::string::npos) << run.out;
  const CommandResult empty = RunCommand(kCli + " run - < /dev/null");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("<stdin>: is empty"), std::string::npos) << empty.err;
}

// inspect --backend says how each backend runs the precision here; --counters which of them this
// machine gives, without running anything.
TEST(Cli, InspectSaysHowBackendsAndCountersWouldRun) {
  const CommandResult r =
      RunCommand(kCli + " inspect " + Topo("mlp.json") + " --backend eigen --counters rusage");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("eigen f32 here:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counters a run would measure:"), std::string::npos) << r.out;
  const CommandResult j = RunCommand(kCli + " inspect " + Topo("mlp.json") +
                                     " --backend eigen --counters rusage --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_TRUE(doc["backends"].contains("eigen")) << j.out;
  EXPECT_FALSE(doc["counters"].empty()) << j.out;
}

// A/B mode: the candidate against a control build, run alternately. A candidate run with another
// configuration (a wider hidden layer) is another benchmark: it fails deterministically, the
// control's one missing; a 3x slower layer fails on latency.
TEST(Cli, GateAgainstAControlBuildFindsWhatChanged) {
  const std::string gate = kCli + " gate --suite-binary " + REGISTRATION_SUITE +
                           " --control-binary " + REGISTRATION_SUITE +
                           " --suite reg --repetitions 3 --min-time 0.02 --filter mlp_small";
  const CommandResult wider = RunCommand(gate + " --ntpb_set=n_hidden=65");
  EXPECT_EQ(wider.exit_code, 1) << wider.out << wider.err;
  EXPECT_NE(wider.out.find("mlp_small/eigen/f32/n_hidden:65/batch:4"), std::string::npos)
      << wider.out;
  EXPECT_NE(wider.out.find("MISSING"), std::string::npos);
  EXPECT_NE(wider.err.find("A/B round 3 of 3"), std::string::npos) << wider.err;
  const CommandResult slower = RunCommand(gate + " --ntpb_inject_slowdown=fc1:3");
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  EXPECT_NE(slower.out.find("latency_ms"), std::string::npos);
}

// --control-dir (what ctest -L perf passes with NTPBENCH_PERF_CONTROL_REF): A/B when the folder
// holds a suite of the same name, the stored baseline otherwise. --confirm re-measures only the
// doubtful benchmarks, and a regression must show twice.
TEST(Cli, GateControlDirUsesTheControlBuildWhenThereIsOne) {
  const std::string dir = TestDir() + "/ntpb_control_" + std::to_string(getpid());
  ASSERT_EQ(RunCommand("mkdir -p " + dir).exit_code, 0);
  const std::string gate = kCli + " gate --suite-binary " + REGISTRATION_SUITE + " --control-dir " +
                           dir + " --baseline-dir " + dir +
                           " --suite reg --repetitions 3 --min-time 0.02 --filter mlp_small";
  const CommandResult none = RunCommand(gate);
  EXPECT_EQ(none.exit_code, 1) << none.out << none.err;  // no stored baseline either: a failure
  EXPECT_NE(none.err.find("no control build"), std::string::npos) << none.err;
  EXPECT_NE(none.out.find("no baseline for this machine"), std::string::npos) << none.out;

  // Latency alone, with no baseline for this machine class: said without running the suite.
  const CommandResult latency = RunCommand(gate + " --judge latency --allow-no-baseline");
  EXPECT_EQ(latency.exit_code, 77) << latency.out << latency.err;  // allowed: a skip
  EXPECT_NE(latency.out.find("not judged: latency: no baseline for this machine class"),
            std::string::npos)
      << latency.out;
  EXPECT_EQ(latency.err.find("running " REGISTRATION_SUITE), std::string::npos) << latency.err;

  ASSERT_EQ(RunCommand(std::string("ln -sf ") + REGISTRATION_SUITE + " " + dir + "/").exit_code, 0);
  const CommandResult slower = RunCommand(gate + " --confirm --ntpb_inject_slowdown=fc1:3");
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  EXPECT_NE(slower.err.find("A/B, "), std::string::npos) << slower.err;
  EXPECT_NE(slower.err.find("latency verdicts to confirm"), std::string::npos) << slower.err;
  EXPECT_NE(slower.out.find("[first run REGRESSION"), std::string::npos) << slower.out;
  RunCommand("rm -rf " + dir);
}

// `ntpbench machine` measures once and caches; `run` then shows each layer's roofline share.
TEST(Cli, MachineMeasuresOnceAndRunShowsTheRoofline) {
  const std::string cache = TestDir() + "/ntpb_cache_" + std::to_string(getpid());
  const std::string env = "NTPB_CACHE_DIR=" + cache + " ";
  const CommandResult first = RunCommand(env + kCli + " machine --threads 1 --force");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("measured now"), std::string::npos) << first.out;
  EXPECT_EQ(RunCommand("ls " + cache + "/machine").out.find(".lock"), std::string::npos)
      << "the lock file goes with the lock";
  EXPECT_NE(first.out.find("f32"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("memory read"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("last-level cache"), std::string::npos) << first.out;
  // Every ceiling with its spread; one measurement is not confirmed yet.
  for (const char* ceiling :
       {"gemm.f32", "read.dram", "triad.dram", "read.256MiB", "spread", "one measurement so far"}) {
    EXPECT_NE(first.out.find(ceiling), std::string::npos) << ceiling << "\n" << first.out;
  }
  const CommandResult again = RunCommand(env + kCli + " machine --threads 1 --json --force");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const nlohmann::json j = nlohmann::json::parse(again.out);
  EXPECT_GT(j.at("peak_gflops").at("f32").get<double>(), 0);
  EXPECT_GT(j.at("bandwidth_gbs").get<double>(), 0);
  EXPECT_EQ(j.at("ceilings").at("read.dram").at("history").size(), 1u) << "read from the cache";
  // A refresh continues each ceiling's history, and the roofline takes the kept figures.
  const CommandResult refreshed =
      RunCommand(env + kCli + " machine --threads 1 --refresh --json --force");
  ASSERT_EQ(refreshed.exit_code, 0) << refreshed.err;
  const nlohmann::json r = nlohmann::json::parse(refreshed.out);
  EXPECT_EQ(r.at("ceilings").at("read.dram").at("history").size(), 2u);
  EXPECT_EQ(r.at("bandwidth_gbs"), r.at("ceilings").at("read.dram").at("kept"));
  EXPECT_EQ(r.at("peak_gflops").at("f32"), r.at("ceilings").at("gemm.f32").at("kept"));

  const std::string run =
      kCli + " run " + Topo("mlp.json") + " --threads 1 --benchmark_min_time=0.01";
  const CommandResult with = RunCommand(env + run);
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.out.find("roof"), std::string::npos) << with.out;
  // Each layer's share of its bound and what sets it: batch-1 dense layers are memory-bound,
  // and mlp's 7 MiB stay in a last-level cache of 14 MiB or more.
  const bool cached = r.at("cache_bandwidth_gbs").get<double>() > 0 &&
                      r.at("cache_bytes").get<int64_t>() >= (int64_t{14} << 20);
  // Which bound that is follows from what was measured (a busy machine measures a low peak):
  // fc1 moves 3.2 MiB of weights for 1.6 MFLOPs, 0.4985 FLOPs per byte.
  const double bandwidth = r.at(cached ? "cache_bandwidth_gbs" : "bandwidth_gbs").get<double>();
  const bool memory_bound = 0.4985 * bandwidth < r.at("peak_gflops").at("f32").get<double>();
  EXPECT_NE(with.out.find(!memory_bound ? "% c"
                          : cached      ? "% l3"
                                        : "% m"),
            std::string::npos)
      << with.out;
  EXPECT_NE(with.out.find(cached ? "last-level cache" : "memory"), std::string::npos) << with.out;
  const CommandResult without = RunCommand("NTPB_CACHE_DIR=" + cache + "/none " + run);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_NE(without.err.find("ntpbench machine --threads 1"), std::string::npos) << without.err;
  EXPECT_EQ(without.out.find("% m"), std::string::npos) << without.out;
  RunCommand("rm -rf " + cache);
}

// A probe sweep of tiny_cnn on eigen at `points` widths from 8, each point timed for `min_time`
// s at least.
std::string WidthProbe(const std::string& name, double min_time, int points) {
  std::string widths, list;
  for (int w = 8; w < 8 + points; ++w) {
    widths += (w > 8 ? ", " : "") + std::to_string(w);
    list += std::string(w > 8 ? ", " : "") + "{\"width\": " + std::to_string(w) + "}";
  }
  return WriteTemp("ntpb_" + name + ".json",
                   R"({"name": ")" + name + R"(", "topology": ")" + Topo("tiny_cnn.json") +
                       R"(", "mode": "points", "base": {"backend": "eigen", "width": 8, "size": 16},
    "min_time": )" + std::to_string(min_time) +
                       R"(, "factors": [{"name": "width", "values": [)" + widths +
                       R"(]}], "points": [)" + list + "]}");
}

// Calibrate on a small probe sweep, then predict a topology at a size no probe ran: every step
// priced, in the run table's shape, with the calibrated machine named; --check measures it here.
// A bad calibration file gets one line and exit 1.
// `calibrate --budget`: each probe runs its points coarse to fine (the first, the middle, the
// quarters...) until its share of the budget is spent, and the calibration says how much of it
// it holds; running again without a budget measures the rest.
TEST(Cli, CalibrateWithinABudgetCoversTheDesignCoarsely) {
  // Eight points of at least 0.2 s of timed runs each: far more than a budget of 1 s.
  const std::string probe = WidthProbe("probe_budget", 0.2, 8);
  const std::string calibration =
      TestDir() + "/ntpb_calibration_budget_" + std::to_string(::getpid()) + ".json";
  // One pass: the budget is a pass's (two passes share it).
  const std::string command =
      kCli + " calibrate " + probe + " --backend eigen --threads 1 --passes 1 -o " + calibration;
  const CommandResult partial = RunCommand(command + " --budget 1");
  ASSERT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_NE(partial.err.find("budget of 1 s spent after"), std::string::npos) << partial.err;
  // Coarse to fine: width 8 (the first point), then width 12 (the middle one).
  const size_t first = partial.err.find("] width=8:"), second = partial.err.find("] width=12:");
  EXPECT_NE(first, std::string::npos) << partial.err;
  if (second != std::string::npos) {
    EXPECT_LT(first, second) << partial.err;
  }
  EXPECT_EQ(partial.err.find("] width=9:"), std::string::npos) << partial.err;
  nlohmann::json c = nlohmann::json::parse(ReadFile(calibration));
  EXPECT_LT(c["points"].get<int>(), 8);
  ASSERT_FALSE(c["problems"].empty());
  EXPECT_NE(c["problems"][0].get<std::string>().find("of its 8 points measured within --budget"),
            std::string::npos)
      << c["problems"];

  const CommandResult rest = RunCommand(command);
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  c = nlohmann::json::parse(ReadFile(calibration));
  EXPECT_EQ(c["points"], 8);
  for (const nlohmann::json& problem : c["problems"]) {
    EXPECT_EQ(problem.get<std::string>().find("--budget"), std::string::npos) << problem;
  }
  EXPECT_EQ(RunCommand(command + " --budget 0").exit_code, 2);
}

// A budget's share left unspent by a quick probe goes back to a probe cut short before it.
TEST(Cli, CalibrateGivesTheBudgetLeftToAProbeCutShort) {
  // Sixteen points of at least 0.3 s each (0.5 s with the process), more than their half of
  // 12 s; the quick probe's one leaves over 4 s of its share (on a machine up to 3x slower, over
  // a point's time).
  const std::string slow = WidthProbe("probe_cut", 0.3, 16);
  const std::string quick = WriteTemp("ntpb_probe_quick.json", R"({"name": "probe_quick",
    "topology": ")" + Topo("tiny_cnn.json") + R"(", "mode": "points",
    "base": {"backend": "eigen", "width": 8, "size": 16}, "min_time": 0.01,
    "factors": [{"name": "width", "values": [8]}], "points": [{"width": 8}]})");
  const std::string calibration =
      TestDir() + "/ntpb_calibration_cut_" + std::to_string(::getpid()) + ".json";
  const CommandResult r =
      RunCommand(kCli + " calibrate " + slow + " " + quick +
                 " --backend eigen --threads 1 --passes 1 --budget 12 -o " + calibration);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t again = r.err.find("probe_cut again with the budget left");
  ASSERT_NE(again, std::string::npos) << r.err;
  // Points of probe_cut ran before its second turn and in it.
  const size_t quick_began = r.err.find("probe 2 of 2: probe_quick");
  ASSERT_NE(quick_began, std::string::npos) << r.err;
  EXPECT_LT(r.err.find("] width="), quick_began) << r.err;
  EXPECT_LT(quick_began, again);
  EXPECT_NE(r.err.find("] width=", again), std::string::npos) << r.err;
  int before = 0, all = 0;
  for (size_t at = r.err.find("] width="); at != std::string::npos;
       at = r.err.find("] width=", at + 1)) {
    all += at < quick_began || at > again;
    before += at < quick_began;
  }
  const nlohmann::json c = nlohmann::json::parse(ReadFile(calibration));
  EXPECT_EQ(c["points"].get<int>(), all + 1);  // and probe_quick's one
  EXPECT_GT(all, before);
  RunCommand("rm -rf " + calibration + " " + calibration + ".d");
}

// A point that ran far slower than the other points price its steps (here: its recorded times
// made 5x) is run again at the end of the calibration, and the faster second run is kept.
TEST(Cli, CalibrateRunsAPointFarSlowerThanTheOthersAgainAndKeepsTheFasterRun) {
  const std::string probe = WriteTemp("ntpb_probe_slow.json", R"({"name": "probe_slow",
    "topology": ")" + Topo("tiny_cnn.json") + R"(", "mode": "points",
    "base": {"backend": "eigen", "size": 16}, "min_time": 0.02,
    "factors": [{"name": "width", "values": [8, 10, 12, 14, 16, 20]}],
    "points": [{"width": 8}, {"width": 10}, {"width": 12}, {"width": 14}, {"width": 16},
               {"width": 20}]})");
  const std::string calibration =
      TestDir() + "/ntpb_calibration_slow_" + std::to_string(::getpid()) + ".json";
  const std::string work = calibration + ".d";
  std::filesystem::remove_all(work);
  // One pass: a second would keep each step's faster pass over the 5x run on its own.
  const std::string command = kCli + " calibrate " + probe +
                              " --backend eigen --threads 1 --passes 1 -o " + calibration +
                              " --work " + work;
  const CommandResult first = RunCommand(command);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto point_ms = [&](const std::string& file) {
    double ms = 0;
    const nlohmann::json c = nlohmann::json::parse(ReadFile(file));
    for (const nlohmann::json& s : c["samples"]) {
      if (s["source"].get<std::string>().rfind("probe_slow width=14 /", 0) == 0) {
        ms += s["ms"].get<double>();
      }
    }
    return ms;
  };
  const double measured = point_ms(calibration);
  ASSERT_GT(measured, 0) << first.err;

  // The machine "was slow" for the point width=14: every time of its run 5x.
  const std::string results = work + "/probe_slow.results.json";
  nlohmann::json recorded = nlohmann::json::parse(ReadFile(results));
  for (nlohmann::json& point : recorded["points"]) {
    if (point["id"] != "width=14") continue;
    for (nlohmann::json& b : point["run"]["benchmarks"]) {
      for (auto& [key, value] : b.items()) {
        const bool time = key == "real_time" || key == "cpu_time" ||
                          (key.size() > 3 && key.compare(key.size() - 3, 3, "_ms") == 0) ||
                          (key.size() > 3 && key.compare(key.size() - 3, 3, ".ms") == 0);
        if (time && value.is_number()) value = value.get<double>() * 5;
      }
    }
  }
  { std::ofstream(results) << recorded.dump(); }

  const CommandResult again = RunCommand(command);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("probe_slow width=14 ran "), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("(the faster run is kept)"), std::string::npos) << again.err;
  // Scaled to the second run: near what it measured before, far from 5x.
  EXPECT_LT(point_ms(calibration), 2.5 * measured) << again.err;
  const nlohmann::json c = nlohmann::json::parse(ReadFile(calibration));
  bool said = false;
  for (const nlohmann::json& problem : c["problems"]) {
    said = said || problem.get<std::string>().find("probe_slow width=14: ran") != std::string::npos;
  }
  EXPECT_TRUE(said) << c["problems"];
  // The second run is kept in the work folder: calibrating again reuses it.
  const nlohmann::json kept = nlohmann::json::parse(ReadFile(work + "/probe_slow.again.json"));
  ASSERT_TRUE(kept.contains("width=14")) << kept;
  EXPECT_GT(kept["width=14"]["first_ms"].get<double>(), kept["width=14"]["again_ms"].get<double>());
  std::filesystem::remove_all(work);
  std::remove(calibration.c_str());
}

int CpuVectorLanes() {
  MachineClass m;
  m.isa = ThisMachine().isa();
  return VectorLanes(m);
}

// oneDNN's kernels under ONEDNN_MAX_CPU_ISA=AVX2 are 8 f32 lanes wide on any CPU: a calibration
// made so counts 8 output channels as filling them, as the "other machine" it stands for would.
TEST(Cli, ACalibrationUnderAnIsaCapCountsTheCappedVectorWidth) {
  SKIP_UNLESS_BACKEND_RUNS("onednn", Precision::kF32);
  if (CpuVectorLanes() < 8) GTEST_SKIP() << "no AVX2 here";
  // Under the cap the kernels are 8 lanes wide anywhere; the check names that a cap only where
  // the CPU has wider vectors (on an AVX2-only CPU it is this machine itself).
  const bool narrows = CpuVectorLanes() > 8;
  const std::string probe = WriteTemp("ntpb_probe_capped.json", R"({"name": "probe_capped",
    "topology": ")" + Topo("tiny_cnn.json") + R"(", "mode": "points",
    "base": {"backend": "onednn", "width": 8, "size": 16}, "min_time": 0.01,
    "factors": [{"name": "width", "values": [8]}, {"name": "size", "values": [16]}],
    "points": [{"width": 8, "size": 16}]})");
  const std::string calibration = TestDir() + "/ntpb_calibration_capped.json";
  std::remove(calibration.c_str());
  const CommandResult capped = RunCommand("ONEDNN_MAX_CPU_ISA=AVX2 " + kCli + " calibrate " +
                                          probe + " --backend onednn --threads 1 -o " +
                                          calibration + " --work " + calibration + ".d");
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  const nlohmann::json c = nlohmann::json::parse(ReadFile(calibration));
  EXPECT_EQ(c["vector_lanes"], 8);
  bool conv1 = false;
  for (const nlohmann::json& s : c["samples"]) {
    if (s["source"].get<std::string>().find("/ conv1") == std::string::npos) continue;
    conv1 = true;
    EXPECT_DOUBLE_EQ(s["lane_fill"].get<double>(), 1) << s;  // 8 of 8 lanes
  }
  EXPECT_TRUE(conv1) << c["samples"];
  // Its check names it as the other machine it stands for.
  const std::string check_out = calibration + ".check.json";
  const CommandResult check = RunCommand(
      "ONEDNN_MAX_CPU_ISA=AVX2 " + kCli + " predict --check " + Topo("tiny_cnn.json") +
      " --set width=8,size=16 --batch 1 --passes 1 -c " + calibration + " -o " + check_out);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  const nlohmann::json checked = nlohmann::json::parse(ReadFile(check_out));
  EXPECT_EQ(checked["machine"].get<std::string>().find("kernels 8 f32 lanes wide (an ISA cap)") !=
                std::string::npos,
            narrows)
      << checked["machine"];
}

TEST(Cli, CalibrateThenPredictWithoutRunning) {
  const std::string probe = WriteTemp("ntpb_probe.json", R"({"name": "probe_tiny",
    "topology": ")" + Topo("tiny_cnn.json") + R"(", "mode": "points",
    "base": {"backend": "eigen", "width": 8, "size": 16}, "min_time": 0.01,
    "factors": [{"name": "width", "values": [8, 16]}, {"name": "size", "values": [16, 32]},
                {"name": "batch", "values": [1, 2]}],
    "points": [{"width": 8, "size": 16, "batch": 1}, {"width": 16, "size": 32, "batch": 1},
               {"width": 16, "size": 16, "batch": 2}, {"width": 8, "size": 32, "batch": 2}]})");
  const std::string calibration = TestDir() + "/ntpb_calibration.json";
  const CommandResult calibrated =
      RunCommand(kCli + " calibrate " + probe + " --backend eigen --threads 1 -o " + calibration);
  ASSERT_EQ(calibrated.exit_code, 0) << calibrated.err;
  EXPECT_NE(calibrated.err.find("[4/4]"), std::string::npos) << calibrated.err;
  EXPECT_NE(calibrated.out.find("conv2d.depthwise"), std::string::npos) << calibrated.out;
  const nlohmann::json c = nlohmann::json::parse(ReadFile(calibration));
  EXPECT_EQ(c["backend"], "eigen");
  EXPECT_EQ(c["threads"], 1);
  EXPECT_EQ(c["points"], 4);
  // Eigen does not say its vector width: the CPU's.
  EXPECT_EQ(c["vector_lanes"], CpuVectorLanes()) << c["machine"];
  // A point ran again after the last (none took 1 ms: the slowest): the machine's drift.
  ASSERT_TRUE(c["probe_drift"].contains("probe_tiny")) << c["probe_drift"];
  EXPECT_GT(c["probe_drift"]["probe_tiny"].get<double>(), -1);
  const size_t again_at = calibrated.err.find("run again at the end: ");
  ASSERT_NE(again_at, std::string::npos) << calibrated.err;
  EXPECT_NE(calibrated.err.rfind("probe_tiny: width=", again_at), std::string::npos)
      << calibrated.err;
  // That point is kept for the check to run again: the machine's speed then against now.
  ASSERT_TRUE(c["speed_references"].contains("probe_tiny")) << c;
  const nlohmann::json& reference = c["speed_references"]["probe_tiny"];
  EXPECT_EQ(reference["sweep"], probe);
  EXPECT_NE(calibrated.err.find(reference["point"].get<std::string>() + " run again at the end"),
            std::string::npos)
      << reference << calibrated.err;
  EXPECT_GT(reference["ms"].get<double>(), 0);
  // tiny_cnn has 11 layers, each a step on eigen: 11 samples a point, each its faster pass of
  // the two (the default), whose second is kept beside the first in the work folder.
  EXPECT_EQ(c["samples"].size(), 44u);
  EXPECT_EQ(c["passes"], 2);
  EXPECT_NE(calibrated.err.find("pass 2 of 2: probe_tiny"), std::string::npos) << calibrated.err;
  EXPECT_NE(calibrated.err.find("pass 2: "), std::string::npos) << calibrated.err;
  const nlohmann::json second =
      nlohmann::json::parse(ReadFile(calibration + ".d/probe_tiny.pass2.results.json"));
  ASSERT_EQ(second["points"].size(), 4u) << second;
  {
    // The first pass alone, from the same work folder (nothing runs again): each sample of the
    // two passes is at most its step's time in the first.
    const std::string one = calibration + ".one.json";
    const CommandResult first =
        RunCommand(kCli + " calibrate " + probe + " --backend eigen --threads 1 --passes 1 -o " +
                   one + " --work " + calibration + ".d");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_NE(first.err.find("4 done before, 0 to run"), std::string::npos) << first.err;
    const nlohmann::json f = nlohmann::json::parse(ReadFile(one));
    EXPECT_EQ(f["passes"], 1);
    // A sample slower than the first pass's comes from another run (the second pass, or a point
    // run again because it ran with the cores apart: calibrate prefers a sample placed as its
    // nearest placement to a faster one), which read the cores' placement otherwise.
    auto placed = [](const nlohmann::json& s) { return s.value("core_to_core_ns", 0.0); };
    std::map<std::string, nlohmann::json> first_of;
    for (const nlohmann::json& s : f["samples"]) first_of[s["source"]] = s;
    int compared = 0;
    for (const nlohmann::json& s : c["samples"]) {
      const auto it = first_of.find(s["source"].get<std::string>());
      if (it == first_of.end()) continue;
      EXPECT_TRUE(s["ms"].get<double>() <= it->second["ms"].get<double>() ||
                  placed(s) != placed(it->second))
          << s << " first pass: " << it->second;
      ++compared;
    }
    EXPECT_EQ(compared, 44);
    std::remove(one.c_str());
  }
  // Run again: every point is kept from the first time.
  const CommandResult again =
      RunCommand(kCli + " calibrate " + probe + " --backend eigen --threads 1 -o " + calibration);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("4 done before, 0 to run"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("4 done before, 0 to run", again.err.find("pass 2 of 2")),
            std::string::npos)
      << again.err;
  // --threads 0, the documented default (one per core), was refused as out of range.
  const CommandResult per_core =
      RunCommand(kCli + " calibrate " + probe + " --backend eigen --threads 0 -o " + calibration +
                 ".per_core.json");
  EXPECT_EQ(per_core.exit_code, 0) << per_core.err;

  const std::string predict = kCli + " predict " + Topo("tiny_cnn.json") +
                              " --set width=12,size=24 --calibration " + calibration;
  const CommandResult predicted = RunCommand(predict);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.err;
  EXPECT_NE(predicted.out.find("tiny_cnn"), std::string::npos) << predicted.out;
  EXPECT_NE(predicted.out.find("predicted for eigen f32, 1 thread on"), std::string::npos)
      << predicted.out;
  EXPECT_NE(predicted.out.find("conv2d.dw[k3s1]"), std::string::npos) << predicted.out;
  // Fits 120 columns (the first line names the machine, as long as its name).
  std::istringstream lines(predicted.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("predicted for") == std::string::npos) {
      EXPECT_LE(line.size(), 120u) << line;
    }
  }
  const CommandResult wide = RunCommand(predict + " --wide");
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(wide.out.find("of its kind"), std::string::npos) << wide.out;
  // And the samples each step rests on: the probe points they were measured at, their time and
  // that time scaled to the step.
  EXPECT_NE(wide.out.find("the samples each step rests on"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find("probe_tiny width="), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find(" -> "), std::string::npos) << wide.out;
  EXPECT_EQ(predicted.out.find("the samples each step rests on"), std::string::npos);
  EXPECT_NE(predicted.out.find("1x12x24x24"), std::string::npos) << predicted.out;
  EXPECT_NE(predicted.out.find("total"), std::string::npos) << predicted.out;
  EXPECT_EQ(predicted.out.find("not calibrated"), std::string::npos) << predicted.out;
  const CommandResult json = RunCommand(predict + " --json --batch 1,2");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json p = nlohmann::json::parse(json.out);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1]["batch"], 2);
  EXPECT_EQ(p[0]["steps"].size(), 11u);
  EXPECT_GT(p[0]["ms"].get<double>(), 0);
  EXPECT_GT(p[1]["ms"].get<double>(), p[0]["ms"].get<double>());
  const nlohmann::json& from = p[0]["steps"][0]["from"];
  ASSERT_EQ(from.size(), p[0]["steps"][0]["samples"].get<size_t>()) << p[0]["steps"][0];
  EXPECT_EQ(from[0]["source"].get<std::string>().rfind("probe_tiny width=", 0), 0u) << from;
  EXPECT_GT(from[0]["estimate_ms"].get<double>(), 0);
  // Beside a run of the same topology: its measured steps and the error of each prediction.
  const std::string run = TestDir() + "/ntpb_predicted_run.json";
  ASSERT_EQ(RunCommand(kCli + " run " + Topo("tiny_cnn.json") +
                       " --set width=12,size=24 --threads 1 --quiet --benchmark_min_time=0.01"
                       " --json " +
                       run)
                .exit_code,
            0);
  const CommandResult beside = RunCommand(predict + " --measured " + run);
  ASSERT_EQ(beside.exit_code, 0) << beside.err;
  const size_t header = beside.out.find("step ");
  ASSERT_NE(header, std::string::npos) << beside.out;
  const std::string columns = beside.out.substr(header, beside.out.find('\n', header) - header);
  EXPECT_NE(columns.find(" measured "), std::string::npos) << columns;
  EXPECT_NE(columns.find(" error "), std::string::npos) << columns;
  EXPECT_NE(beside.out.find("measured: tiny_cnn/eigen/f32/"), std::string::npos) << beside.out;
  const CommandResult other_batch = RunCommand(predict + " --batch 2 --measured " + run);
  EXPECT_EQ(other_batch.exit_code, 1);
  EXPECT_NE(other_batch.err.find("has no single-stream run of eigen f32 at batch 2"),
            std::string::npos)
      << other_batch.err;
  // Two calibrations: a column each.
  const CommandResult two = RunCommand(predict + " --calibration " + calibration);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find("A ms"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("B: "), std::string::npos) << two.out;

  const std::string check_out = TestDir() + "/ntpb_check.json";
  const CommandResult check = RunCommand(kCli + " predict --check " + Topo("tiny_cnn.json") +
                                         " --set width=12,size=24 --batch 1 --calibration " +
                                         calibration + " -o " + check_out);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("1 predictions: within +-5%"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("between passes"), std::string::npos) << check.out;
  std::istringstream check_lines(check.out);
  for (std::string line; std::getline(check_lines, line);) EXPECT_LE(line.size(), 120u) << line;
  EXPECT_NE(check.err.find("[3/3] pass 3"), std::string::npos) << check.err;  // three by default
  // The header wraps at 120 columns where the machine's description runs long (an Intel Xeon
  // guest's ISA list with AMX broke "each model's | fastest pass"): read as one text.
  std::string check_text = check.out;
  std::replace(check_text.begin(), check_text.end(), '\n', ' ');
  // Against a calibration of two passes, each model's fastest pass counts, as it kept each step's.
  EXPECT_NE(check_text.find("measured: each model's fastest pass"), std::string::npos) << check.out;
  const nlohmann::json checked = nlohmann::json::parse(ReadFile(check_out));
  EXPECT_EQ(checked["measured"], "fastest pass");
  EXPECT_GT(checked["results"][0]["measured_ms"].get<double>(), 0);
  // The probe's point ran again before and after the passes: how the machine's speed compares
  // with its calibration's.
  EXPECT_NE(check_text.find("the machine against its calibration: the probes' reference points "
                            "ran "),
            std::string::npos)
      << check.out;
  ASSERT_TRUE(checked["machine_change"].contains("probe_tiny")) << checked;
  EXPECT_GT(checked["machine_change"]["probe_tiny"].get<double>(), -1);
  // Each pass kept with how far apart the cores were; the calibration's placement beside them.
  // Three passes, and two more where the host moved the cores apart since the calibration.
  EXPECT_GE(checked["results"][0]["passes"].size(), 3u) << checked["results"][0];
  EXPECT_LE(checked["results"][0]["passes"].size(), 5u) << checked["results"][0];
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  if (CPU_COUNT(&allowed) >= 2) {
    // The calibration as the check read it: running calibrate again above runs again the points
    // it finds placed apart, and so may have changed its placement.
    const nlohmann::json now = nlohmann::json::parse(ReadFile(calibration));
    ASSERT_TRUE(now.contains("core_to_core_ns")) << "two CPUs: the placement is measured";
    EXPECT_GT(now["core_to_core_ns"].get<double>(), 0);
    EXPECT_EQ(checked["core_to_core_ns"], now["core_to_core_ns"]);
    EXPECT_TRUE(checked["results"][0]["passes"][0].contains("core_to_core_ns"));
    // Calibrated (as this file says) with the cores far farther apart than any run here: every
    // pass ran in another placement, so the model runs again (twice more, at most), every pass
    // counts, and the row and the summary say so.
    nlohmann::json far = now;
    far["core_to_core_ns"] = 1e6;
    const std::string far_path = WriteTemp("ntpb_calibration_far.json", far.dump());
    const std::string far_out = TestDir() + "/ntpb_check_far.json";
    const CommandResult apart =
        RunCommand(kCli + " predict --check " + Topo("tiny_cnn.json") +
                   " --set width=12,size=24 --batch 1 --passes 1 --calibration " + far_path +
                   " -o " + far_out);
    ASSERT_EQ(apart.exit_code, 0) << apart.err;
    const nlohmann::json far_checked = nlohmann::json::parse(ReadFile(far_out));
    // A pass whose placement could not be measured (both CPUs busy with other tests) counts as
    // placed alike: nothing to tell.
    const nlohmann::json& far_row = far_checked["results"][0];
    if (far_row["passes"][0]["core_to_core_ns"].get<double>() > 0) {
      EXPECT_NE(apart.err.find("1 models ran only with the cores placed farther apart than while "
                               "calibrated (1000000 ns); running them again"),
                std::string::npos)
          << apart.err;
      EXPECT_NE(apart.out.find("(cores apart)"), std::string::npos) << apart.out;
      EXPECT_NE(apart.out.find("1 of them ran only with the cores placed farther apart"),
                std::string::npos)
          << apart.out;
      EXPECT_GE(far_row["passes"].size(), 2u) << far_row;
      EXPECT_LE(far_row["passes"].size(), 3u) << far_row;
      EXPECT_EQ(far_row.value("placed_apart", false),
                far_row["passes"].back()["core_to_core_ns"].get<double>() > 0);
    }
  }
  // Where the probe's file is not (a check run elsewhere), the check says so and goes on.
  nlohmann::json moved = c;
  moved["speed_references"]["probe_tiny"]["sweep"] = TestDir() + "/ntpb_no_such_probe.json";
  const std::string moved_path = WriteTemp("ntpb_calibration_moved.json", moved.dump());
  const CommandResult without =
      RunCommand(kCli + " predict --check " + Topo("tiny_cnn.json") +
                 " --set width=12,size=24 --batch 1 --passes 1 " + "--calibration " + moved_path);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_NE(without.err.find("probe_tiny's speed reference ("), std::string::npos) << without.err;
  EXPECT_NE(without.err.find("ntpb_no_such_probe.json"), std::string::npos) << without.err;
  EXPECT_EQ(without.out.find("the machine against its calibration"), std::string::npos)
      << without.out;
  const std::string page = TestDir() + "/ntpb_check.html";
  const CommandResult report = RunCommand(kCli + " report " + check_out + " -o " + page);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = ReadFile(page);
  EXPECT_NE(html.find("ntpbench prediction check"), std::string::npos);
  EXPECT_NE(html.find("Measured: each model's fastest pass"), std::string::npos);
  EXPECT_NE(html.find("predicted ms</text>"), std::string::npos) << "the agreement chart";
  EXPECT_NE(html.find("tiny_cnn.json size=24 width=12 batch 1: predicted"), std::string::npos)
      << html.substr(0, 4000);
  // The table's rows have a cell under every heading.
  const size_t row = html.find("<tr><td>");
  ASSERT_NE(row, std::string::npos);
  const std::string cells = html.substr(row, html.find("</tr>", row) - row);
  size_t count = 0;
  for (size_t at = cells.find("<td"); at != std::string::npos; at = cells.find("<td", at + 1)) {
    ++count;
  }
  size_t headings = 0;
  for (size_t at = html.find("<th>"); at != std::string::npos; at = html.find("<th>", at + 1)) {
    ++headings;
  }
  EXPECT_EQ(count, headings) << cells;
  const CommandResult mixed = RunCommand(kCli + " report " + check_out + " " + calibration);
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_NE(mixed.err.find(calibration), std::string::npos) << mixed.err;
  EXPECT_EQ(Lines(mixed.err), 1) << mixed.err;

  // A calibration of a backend this ntpbench lacks: priced a step per layer, said so; not
  // checked here.
  nlohmann::json foreign = nlohmann::json::parse(ReadFile(calibration));
  foreign["backend"] = "tensorrt";
  const std::string other = WriteTemp("ntpb_foreign_calibration.json", foreign.dump());
  const CommandResult priced =
      RunCommand(kCli + " predict " + Topo("tiny_cnn.json") + " --calibration " + other);
  EXPECT_EQ(priced.exit_code, 0) << priced.err;
  EXPECT_NE(priced.err.find("no tensorrt backend to plan its steps with"), std::string::npos)
      << priced.err;
  const CommandResult unchecked =
      RunCommand(kCli + " predict --check " + Topo("tiny_cnn.json") + " --calibration " + other);
  EXPECT_EQ(unchecked.exit_code, 1);
  EXPECT_NE(unchecked.err.find("--check runs the models on tensorrt"), std::string::npos)
      << unchecked.err;

  const std::string cut =
      WriteTemp("ntpb_cut_calibration.json", ReadFile(calibration).substr(0, 300));
  const CommandResult bad =
      RunCommand(kCli + " predict " + Topo("tiny_cnn.json") + " --calibration " + cut);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(Lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find(cut + ": not a latency calibration: not JSON"), std::string::npos)
      << bad.err;
  const CommandResult none = RunCommand(kCli + " predict " + Topo("tiny_cnn.json"));
  EXPECT_EQ(none.exit_code, 2) << "a command-line mistake";
  EXPECT_NE(none.err.find("--calibration"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace ntpb::testing
