// The red team: the ntpbench command run on generated careless and hostile inputs. Each case
// must end with an exit code from 1 to 125 and one line on stderr that names the culprit (the
// file, option or field), or succeed with a correct result; never a signal, an "internal error",
// a hang (every case runs under a time limit) or a damaged file. Grow the table whenever a bug is
// found. The summary (cases and passes per class) is printed at the end.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "tests/command.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

const std::string kCli = NTPBENCH_CLI;
constexpr int kTimeLimitSeconds = 30;

struct HostileCase {
  std::string klass;  // what kind of mistake or attack
  std::string args;   // after `ntpbench`
  std::string names;  // what the error line must contain (the file, option or field)
  // Files that must not exist afterwards (an output that a failed command must not leave).
  std::vector<std::string> must_not_exist;
};

class RedTeam : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = TestDir() + "/ntpb_red_team_" + std::to_string(getpid());
    ASSERT_EQ(RunCommand("rm -rf " + dir_ + " && mkdir -p " + dir_ + "/folder").exit_code, 0);
    ASSERT_EQ(mkfifo((dir_ + "/fifo.json").c_str(), 0600), 0);
    Write("empty.json", "");
    Write("garbage.json", std::string("\x7f"
                                      "ELF\x02\x01\x01\0\0\0garbage",
                                      18));
    Write("truncated.json", R"({"name": "t", "inputs": [{"name": "x", "shape": [1, )");
    Write("array.json", "[1, 2, 3]");
    Write("nul.json", std::string("{\"name\": \"a\0b\"}", 15));
    Write("deep.json", std::string(200000, '[') + std::string(200000, ']'));
    std::string deep_xml;
    for (int i = 0; i < 100000; ++i) deep_xml += "<a>";
    Write("deep.xml", deep_xml);
    Write("random.onnx", std::string(4096, '\x9c'));
    Write("bom.json", "\xef\xbb\xbf{\"name\": \"x\"}");
    Write("duplicate_key.json",
          R"({"name": "a", "name": "b", "inputs": [{"name": "x", "shape": [1, 4]}], )"
          R"("layers": [{"name": "fc", "op": "dense", "units": 4}]})");
    Write("odd.xml", R"(<topology name="t"><x/></topology>)");
    Write("truncated.xml", R"(<topology name="t"><input name="x" shape="1,)");
    Write("truncated.onnx", std::string("\x08\x07\x12\x04", 4));
    Write("upper.JSON", "{}");
    Write("no_extension", "{}");
    ASSERT_EQ(RunCommand(kCli + " run " + SourcePath("topologies/mlp.json") +
                         " --batch 1,2 --benchmark_min_time=0.001 --json " + dir_ + "/run.json")
                  .exit_code,
              0);
    ASSERT_EQ(RunCommand(kCli + " baseline update --run " + dir_ +
                         "/run.json --suite s --baseline " + dir_ + "/baseline.json")
                  .exit_code,
              0);
  }
  static void TearDownTestSuite() { RunCommand("rm -rf " + dir_); }

  static void Write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << content;
  }
  static std::string dir_;
};
std::string RedTeam::dir_;

// Every command that reads a file, with `file` in each place a file goes.
std::vector<HostileCase> FileCases(const std::string& klass, const std::string& file,
                                   const std::string& dir) {
  const std::string out = dir + "/out_" + std::to_string(std::hash<std::string>()(file)) + ".json";
  return {
      {klass, "inspect " + file, file, {}},
      {klass, "inspect " + file + " --json", file, {}},
      {klass, "run " + file + " --benchmark_min_time=0.01", file, {}},
      {klass, "convert " + file + " " + out, file, {out}},
      {klass, "compare " + file + " " + file, file, {}},
      {klass, "report " + file + " -o " + dir + "/report.html", file, {dir + "/report.html"}},
      {klass, "diff " + file + " " + file, file, {}},
      {klass,
       "baseline update --run " + file + " --suite s --baseline-dir " + dir + "/baselines",
       file,
       {dir + "/baselines"}},
  };
}

TEST_F(RedTeam, EveryCaseFailsCleanlyOrSucceeds) {
  std::vector<HostileCase> cases;
  auto add = [&](const std::vector<HostileCase>& more) {
    cases.insert(cases.end(), more.begin(), more.end());
  };
  // Not regular files: a FIFO would hang a reader, /dev/zero never ends, a folder is no file.
  for (const std::string& f : {dir_ + "/fifo.json", std::string("/dev/zero"), dir_ + "/folder",
                               std::string("/dev/null")}) {
    add(FileCases("not a regular file", f, dir_));
  }
  // Files that are not what they claim.
  for (const char* name :
       {"empty.json", "garbage.json", "truncated.json", "array.json", "nul.json", "missing.json",
        "deep.json", "deep.xml", "random.onnx", "bom.json", "duplicate_key.json", "odd.xml",
        "truncated.xml", "truncated.onnx", "upper.JSON", "no_extension"}) {
    add(FileCases("broken or missing file", dir_ + "/" + name, dir_));
  }

  // A sweep's results file missing a setting its readers look points up by ("internal error:
  // map::at" from report before).
  Write("sweep_missing_precision.json",
        R"({"format": "ntpbench-sweep-results", "version": 1, "machine": "m",
            "sweep": {"name": "t", "factors": [{"name": "batch", "values": [1]}]},
            "points": [{"id": "batch=1", "settings": {"backend": "eigen", "batch": "1"},
                        "ok": false, "reason": "x"}]})");
  add({{"sweep results missing a setting",
        "report " + dir_ + "/sweep_missing_precision.json -o " + dir_ + "/sweep.html",
        "points[0].settings.precision",
        {dir_ + "/sweep.html"}}});

  // Outputs that are inputs: the command would destroy what it reads.
  const std::string topology = dir_ + "/own.json";
  ASSERT_EQ(RunCommand("cp " + SourcePath("topologies/mlp.json") + " " + topology).exit_code, 0);
  for (const std::string& same : {topology, dir_ + "/./own.json", dir_ + "/folder/../own.json"}) {
    add({{"output over an input", "run " + topology + " --json " + same, "--json", {}},
         {"output over an input", "convert " + topology + " " + same, "OUT", {}},
         {"output over an input",
          "compare " + topology + " " + topology + " --report " + same,
          "--report",
          {}}});
  }
  // Names that become file names must stay in their folder.
  for (const char* suite : {"../../x", "/abs", ".hidden", "a/b", "''"}) {
    add({{"name that is a path",
          "baseline update --run " + topology + " --suite " + suite + " --baseline-dir " + dir_,
          "--suite",
          {}}});
  }

  // Values a file accepts as JSON but that mean nothing (or overflow into a plausible answer).
  const std::string mlp = SourcePath("topologies/mlp.json");
  const std::vector<std::pair<std::string, std::string>> layers = {
      {R"({"name": "c", "op": "conv2d", "filters": 4, "kernel": 3, "padding": 4611686018427387904})",
       "field 'padding': value 4611686018427387904 is out of range"},
      {R"({"name": "c", "op": "conv2d", "filters": 4, "kernel": 18446744073709551615})",
       "field 'kernel': value 18446744073709551615 is out of range"},
      {R"({"name": "c", "op": "conv2d", "filters": -4, "kernel": 3})", "layer 'c'"},
      {R"({"name": "c", "op": "conv2d", "filters": 4, "kernel": 3, "stride": 0})", "layer 'c'"},
      {R"({"name": "c", "op": "conv2d", "filters": 4, "kernel": 99})", "layer 'c'"},
      {R"({"name": "b", "op": "batchnorm", "epsilon": -1})", "field 'epsilon': must be greater"},
      {R"({"name": "b", "op": "batchnorm", "epsilon": 0})", "field 'epsilon': must be greater"},
      {R"({"name": "b", "op": "batchnorm", "epsilon": "x"})", "field 'epsilon'"},
      {R"({"name": "r", "op": "clipped_relu", "clip": -1})", "field 'clip': must be at least 0"},
      {R"({"name": "d", "op": "dense", "units": 4, "activation": "clipped_relu", "clip": -3})",
       "field 'clip'"},
      {R"({"name": "p", "op": "maxpool", "kernel": 0})", "layer 'p'"},
      {R"({"name": "e\u001b[31m", "op": "dens"})", R"(layer 'e\x1b[31m')"},
      {R"({"name": "n\nl", "op": "relu", "inputs": ["nowhere"]})", R"(layer 'n\x0al')"},
  };
  int index = 0;
  for (const auto& [layer, message] : layers) {
    const std::string file = "bad_value_" + std::to_string(index++) + ".json";
    Write(file, R"({"name": "v", "inputs": [{"name": "x", "shape": [1, 4, 8, 8]}], "layers": [)" +
                    layer + "]}");
    add({{"meaningless value", "inspect " + dir_ + "/" + file, message, {}},
         {"meaningless value",
          "run " + dir_ + "/" + file + " --benchmark_min_time=0.01",
          message,
          {}}});
  }
  for (const std::string& name : {std::string("a/b"), std::string(""), std::string("two words"),
                                  std::string(R"(bell\u0007)")}) {
    const std::string file = "bad_name_" + std::to_string(index++) + ".json";
    Write(
        file,
        R"({"name": ")" + name +
            R"(", "inputs": [{"name": "x", "shape": [1, 4]}], "layers": [{"name": "fc", "op": "dense", "units": 4}]})");
    add({{"name that is a path",
          "run " + dir_ + "/" + file + " --benchmark_min_time=0.01",
          "field 'name'",
          {}}});
  }
  // Command-line values Google Benchmark or the shape arithmetic would not survive.
  const std::string deep(100, '('), deep_end(100, ')');
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--benchmark_repetitions=-3", "--benchmark_repetitions"},
           {"--benchmark_repetitions=99999999999999999999", "--benchmark_repetitions"},
           {"--benchmark_min_time=-1", "--benchmark_min_time"},
           {"--benchmark_min_time=nan", "--benchmark_min_time"},
           {"--benchmark_filter='" + deep + deep_end + "'", "--benchmark_filter"},
           {"--set N=8", "N is the batch size"},
           {"--batch \"$(printf '\\033[31m')\"", "got '\\x1b[31m'"},
           {"--set n_hidden=99999999999", "layer"},
           {"--set n_hidden=0", "must be positive"},
           {"--batch 4294967297", "--batch"},
           {"--threads 4294967297", "--threads"},
           {"--threads -1", "--threads"},
           {"--seed -5", "--seed"},
           {"--marker m=fc1:nowhere", "nowhere"},
           {"--marker layer.x=fc1:fc2", "ntpbench's own region name"},
           {"--counters rusage,bogus", "unknown counter source 'bogus'"},
       }) {
    add({{"bad command-line value", "run " + mlp + " " + args, message, {}}});
  }
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--repetitions 0", "--repetitions"},
           {"--repetitions 2.5", "--repetitions"},
           {"--min-time -1", "--min-time"},
           {"--threshold 5", "--threshold"},
           {"--alpha 2", "--alpha"},
           {"--threshold-for x=5", "--threshold-for"},
           {"--sessions 0", "--sessions"},
           {"--filter '" + deep + deep_end + "'", "--filter"},
       }) {
    add({{"bad command-line value",
          "gate --suite s --suite-binary /bin/false " + args,
          message,
          {}}});
  }

  // Run files with a mistyped or meaningless field: one line naming the file, benchmark and field.
  std::ifstream run_in(dir_ + "/run.json");
  const nlohmann::json run = nlohmann::json::parse(run_in);
  const std::vector<std::tuple<std::string, nlohmann::json, std::string>> run_edits = {
      {"/benchmarks/0/real_time", "x", ".real_time': expected a positive number"},
      {"/benchmarks/0/real_time", -5, ".real_time': expected a positive number"},
      {"/benchmarks/0/real_time", 0, ".real_time': expected a positive number"},
      {"/benchmarks/0/real_time", nullptr, ".real_time': expected a positive number"},
      {"/benchmarks/0/time_unit", "fortnights", ".time_unit': expected ns, us, ms or s"},
      {"/benchmarks/0/time_unit", 3, ".time_unit'"},
      {"/benchmarks/0/run_name", 7, "run_name and run_type must be non-empty strings"},
      {"/benchmarks/0/run_name", "", "run_name and run_type must be non-empty strings"},
      {"/benchmarks/0/error_occurred", "yes", ".error_occurred'"},
      {"/benchmarks/0/net.flops", "many", ".net.flops': expected a number"},
      {"/benchmarks", nlohmann::json::object(), "field 'benchmarks'"},
      {"/benchmarks/0", 5, "entry without run_name"},
      {"/context/ntpbench_machine_json", 5, "context.ntpbench_machine_json"},
      {"/context/ntpbench_machine_json", "{\"cpu\": 5}", "machine class"},
  };
  for (const auto& [pointer, value, message] : run_edits) {
    nlohmann::json edited = run;
    edited[nlohmann::json::json_pointer(pointer)] = value;
    const std::string file = "run_edit_" + std::to_string(index++) + ".json";
    Write(file, edited.dump());
    const std::string path = dir_ + "/" + file;
    add({{"mistyped run file",
          "baseline update --run " + path + " --suite s --baseline-dir " + dir_ + "/bl_" + file,
          message,
          {dir_ + "/bl_" + file}},
         {"mistyped run file", "compare " + dir_ + "/baseline.json " + path, message, {}},
         {"mistyped run file", "compare " + path + " " + path, message, {}},
         {"mistyped run file", "report " + path, message, {}}});
  }
  // Baselines edited by hand or damaged: the same, for the baseline's fields.
  std::ifstream baseline_in(dir_ + "/baseline.json");
  const nlohmann::json baseline = nlohmann::json::parse(baseline_in);
  const std::string first = baseline["benchmarks"].begin().key();
  nlohmann::json::json_pointer first_pointer("/benchmarks");
  first_pointer /= first;
  const std::vector<std::tuple<nlohmann::json::json_pointer, nlohmann::json, std::string>>
      baseline_edits = {
          {nlohmann::json::json_pointer("/thresholds"), {{"x", 5}}, "thresholds.x"},
          {nlohmann::json::json_pointer("/thresholds"), {{"x", -0.1}}, "thresholds.x"},
          {nlohmann::json::json_pointer("/peak_rss_bytes"), -3, "peak_rss_bytes"},
          {nlohmann::json::json_pointer("/suite"), 5, "field 'suite'"},
          {nlohmann::json::json_pointer("/version"), 99, "unsupported baseline version 99"},
          {nlohmann::json::json_pointer("/schema"), "other", "not an ntpbench baseline"},
          {nlohmann::json::json_pointer("/benchmarks"), 3, "field 'benchmarks'"},
          {first_pointer / "real_time_ms", {-1.0}, "latencies must be positive"},
          {first_pointer / "real_time_ms", "fast", "malformed entry"},
          {first_pointer / "analytic", {{"net.flops", "many"}}, "malformed entry"},
      };
  for (const auto& [pointer, value, message] : baseline_edits) {
    nlohmann::json edited = baseline;
    edited[pointer] = value;
    const std::string file = "baseline_edit_" + std::to_string(index++) + ".json";
    Write(file, edited.dump());
    add({{"damaged baseline",
          "compare " + dir_ + "/" + file + " " + dir_ + "/run.json",
          message,
          {}}});
  }
  // Numbers a run file may not hold (issue 46, kind 5), written as Google Benchmark writes them
  // (NaN and Infinity as bare words): refused naming the field, never compared or stored.
  const std::string first_run = "/benchmarks/0/";
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"net.p50_ms", "NaN"},
           {"net.p50_ms", "Infinity"},
           {"net.p50_ms", "-1"},
           {"layer.fc1.ms", "-3"},
           {"real_time", "1e-320"},
           {"iterations", "-5"},
           {"mem.peak_activation_bytes", "1e300"},
           {"layer.fc1.order", "2.5"},
       }) {
    nlohmann::json edited = run;
    edited[nlohmann::json::json_pointer(first_run + key)] = "@value@";
    std::string text = edited.dump();
    text.replace(text.find("\"@value@\""), 9, value);
    const std::string file = "run_number_" + std::to_string(index++) + ".json";
    Write(file, text);
    const std::string path = dir_ + "/" + file;
    add({{"impossible number in a run file",
          "baseline update --run " + path + " --suite s --baseline-dir " + dir_ + "/bl_" + file,
          "." + key + "'",
          {dir_ + "/bl_" + file}},
         {"impossible number in a run file", "compare " + path + " " + path, "." + key + "'", {}},
         {"impossible number in a run file",
          "report " + path + " -o " + dir_ + "/" + file + ".html",
          "." + key + "'",
          {dir_ + "/" + file + ".html"}}});
  }
  // Values that overflowed into "internal error: stoi" or std::bad_alloc, a FIFO that hung a
  // recording's reader (issue 46, kinds 1 and 3).
  Write("sweep.json", R"({"format": "ntpbench-sweep", "version": 1, "name": "s", "topology": ")" +
                          mlp + R"(", "factors": [{"name": "batch", "values": [1, 2]}]})");
  for (const std::string base : {"threads=99999999999999999999", "batch=99999999999999999999",
                                 "n_hidden=99999999999999999999", "threads=5000"}) {
    add({{"bad command-line value",
          "sweep " + dir_ + "/sweep.json --dry-run -o " + dir_ + "/sweep_out.json --base " + base,
          "base." + base.substr(0, base.find('=')),
          {dir_ + "/sweep_out.json"}}});
  }
  add({{"bad command-line value",
        "calibrate " + dir_ + "/sweep.json --threads 2.5",
        "--threads",
        {}},
       {"bad command-line value",
        "run " + mlp + " --scenario offline --queries 4000000000",
        "--queries",
        {}},
       {"not a regular file",
        "run " + SourcePath("topologies/deepspeech_e2e.json") + " --input audio=" + dir_ +
            "/fifo.json",
        "not a regular file",
        {}}});
  // Inputs that are no numbers: a float recording or a NumPy array holding NaN ran (and was
  // timed) as data, every output NaN.
  {
    std::string wav = "RIFF";
    auto u32 = [&wav](uint32_t v) { wav.append(reinterpret_cast<const char*>(&v), 4); };
    auto u16 = [&wav](uint16_t v) { wav.append(reinterpret_cast<const char*>(&v), 2); };
    const uint32_t samples = 1600;
    u32(36 + 4 * samples);
    wav += "WAVEfmt ";
    u32(16), u16(3), u16(1), u32(16000), u32(64000), u16(4), u16(32);  // IEEE float, mono
    wav += "data";
    u32(4 * samples);
    const float nan = std::nanf("");
    for (uint32_t i = 0; i < samples; ++i) wav.append(reinterpret_cast<const char*>(&nan), 4);
    Write("nan.wav", wav);
    std::string npy = "\x93NUMPY\x01";
    npy += '\0';
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 784), }";
    header.resize(118, ' ');
    header += '\n';
    npy += static_cast<char>(header.size() & 255);
    npy += static_cast<char>(header.size() >> 8);
    npy += header;
    std::vector<float> pixels(784, 0.5f);
    pixels[3] = std::numeric_limits<float>::infinity();
    npy.append(reinterpret_cast<const char*>(pixels.data()), pixels.size() * sizeof(float));
    Write("inf.npy", npy);
  }
  add({{"meaningless value",
        "run " + SourcePath("topologies/deepspeech_e2e.json") +
            " --set n_hidden=16 --input audio=" + dir_ + "/nan.wav",
        "not a finite number",
        {}},
       {"meaningless value",
        "run " + mlp + " --input pixels=" + dir_ + "/inf.npy",
        "value 3 of input 'pixels' is infinite",
        {}}});

  // Names that are no names (issue 46, kind 6): a sweep named with an escape sequence would head
  // its tables and name its results file; a NUL would cut a layer's name short in C APIs.
  Write("sweep_escape.json",
        "{\"format\": \"ntpbench-sweep\", \"version\": 1, \"name\": \"s\\u001b[2J\", "
        "\"topology\": \"" +
            mlp + "\", \"factors\": [{\"name\": \"batch\", \"values\": [1]}]}");
  add({{"name that is a path",
        "sweep " + dir_ + "/sweep_escape.json --dry-run",
        "field 'name'",
        {}}});
  for (const std::string& name : {std::string("fc\\u0000x"), std::string(5000, 'L')}) {
    const std::string file = "name_" + std::to_string(index++) + ".json";
    Write(file, R"({"name": "v", "inputs": [{"name": "x", "shape": [1, 4]}], "layers": [)"
                R"({"name": ")" +
                    name + R"(", "op": "dense", "units": 4}]})");
    add({{"meaningless value", "inspect " + dir_ + "/" + file, "without NUL characters", {}}});
  }

  // A marker that redefines one of the topology's own is refused, not mixed into it.
  add({{"name that collides",
        "run " + SourcePath("topologies/tiny_cnn.json") + " --marker stem=conv1:bn1",
        "the topology already has a marker 'stem'",
        {}},
       {"name that collides", "run " + mlp + " --marker net=fc1:fc2", "ntpbench's own region", {}},
       {"name that collides",
        "run " + mlp + " --marker a=fc1:fc2 --marker a=fc2:fc3",
        "duplicate marker name",
        {}}});

  std::map<std::string, std::pair<int, int>> by_class;  // cases, passes
  for (const HostileCase& c : cases) {
    const CommandResult r = RunCommand("timeout -s KILL " + std::to_string(kTimeLimitSeconds) +
                                       " " + kCli + " " + c.args);
    const int lines = static_cast<int>(std::count(r.err.begin(), r.err.end(), '\n'));
    const bool failed_cleanly = r.exit_code >= 1 && r.exit_code <= 125 && lines == 1 &&
                                r.err.find(c.names) != std::string::npos &&
                                r.err.find("internal error") == std::string::npos;
    bool ok = failed_cleanly;
    for (const std::string& path : c.must_not_exist) {
      struct stat st;
      const bool exists = stat(path.c_str(), &st) == 0;
      EXPECT_FALSE(exists) << c.args << ": left " << path;
      ok = ok && !exists;
    }
    EXPECT_TRUE(failed_cleanly) << "[" << c.klass << "] ntpbench " << c.args << "\n  exit "
                                << r.exit_code << ", stderr: " << r.err;
    ++by_class[c.klass].first;
    by_class[c.klass].second += ok ? 1 : 0;
  }
  int total = 0, passed = 0;
  std::cout << "red team: class, cases, passed\n";
  for (const auto& [klass, counts] : by_class) {
    std::cout << "  " << klass << ": " << counts.first << ", " << counts.second << "\n";
    total += counts.first;
    passed += counts.second;
  }
  std::cout << "  all: " << total << ", " << passed << "\n";
}

// A damaged OpenCL program cache (a killed copy, a full disk, another tool) costs a rebuild: an
// entry cut short crashed PoCL, one that is a FIFO hung the run, a link to /dev/zero was read
// until memory ran out. Each run succeeds and leaves a whole entry behind.
TEST_F(RedTeam, ADamagedOpenclProgramCacheIsRebuilt) {
  const std::string cache = dir_ + "/opencl_cache";
  const std::string run = "NTPB_CACHE_DIR=" + cache + " timeout -s KILL 120 " + kCli + " run " +
                          SourcePath("topologies/mlp.json") +
                          " --backend opencl --benchmark_min_time=0.001 --quiet";
  const CommandResult first = RunCommand(run);
  if (first.exit_code != 0) GTEST_SKIP() << "no OpenCL here: " << first.err;
  const std::string listed = RunCommand("ls " + cache + "/opencl/*.bin").out;
  ASSERT_FALSE(listed.empty());
  const std::string entry = listed.substr(0, listed.find('\n'));
  const std::string size = RunCommand("stat -c %s " + entry).out;
  for (const std::string& damage :
       {"truncate -s 100 " + entry, "head -c 3000 /dev/urandom > " + entry,
        "rm " + entry + " && mkfifo " + entry, "rm " + entry + " && ln -s /dev/zero " + entry,
        "truncate -s 0 " + entry}) {
    ASSERT_EQ(RunCommand(damage).exit_code, 0) << damage;
    const CommandResult r = RunCommand(run);
    EXPECT_EQ(r.exit_code, 0) << damage << "\n" << r.err;
    struct stat st;
    ASSERT_EQ(lstat(entry.c_str(), &st), 0) << damage;
    EXPECT_TRUE(S_ISREG(st.st_mode)) << damage;
    EXPECT_EQ(RunCommand("stat -c %s " + entry).out, size) << damage << ": not rebuilt";
  }
}

// Every count and shape that inspect --json prints for a layer is non-negative and finite (an
// overflow shows as a negative count or a zero dimension).
bool CountsAreSane(const nlohmann::json& j) {
  if (j.is_number()) return std::isfinite(j.get<double>()) && j.get<double>() >= 0;
  bool sane = true;
  if (j.is_structured()) {
    for (const auto& item : j) sane = sane && CountsAreSane(item);
  }
  return sane;
}
bool LayersAreSane(const nlohmann::json& inspected) {
  bool sane = inspected.contains("layers") && !inspected["layers"].empty();
  for (const nlohmann::json& layer : inspected.value("layers", nlohmann::json::array())) {
    for (const char* key : {"cost", "output_shape", "input_shapes"}) {
      sane = sane && layer.contains(key) && CountsAreSane(layer[key]);
    }
  }
  return sane;
}

// The shipped topologies, with one field at a time of each (op, field) pair they use, and each
// param and input shape, given a hostile or careless value. `inspect --json` must refuse it in
// one line naming the file and a field (the layer where the value stops fitting may be a later
// one), or accept it with sane counts.
TEST_F(RedTeam, ShippedTopologiesWithHostileValues) {
  const std::vector<nlohmann::json> values = {0,
                                              -1,
                                              2147483649LL,
                                              9223372036854775807LL,
                                              18446744073709551615ULL,
                                              1.5,
                                              -2.5,
                                              1e300,
                                              "1/0",
                                              "2*",
                                              "99999 * 99999 * 99999 * 99999",
                                              "N * 65536",
                                              "nowhere",
                                              nullptr,
                                              true,
                                              nlohmann::json::array(),
                                              nlohmann::json::object(),
                                              nlohmann::json::array({1, 2, 3, 4, 5}),
                                              nlohmann::json::array({-1, -1}),
                                              std::string("\x1b[2J", 4)};
  struct Mutation {
    std::string file, layer, field;
    nlohmann::json value, topology;
  };
  std::vector<Mutation> mutations;
  std::set<std::string> seen;  // op/field pairs already mutated
  for (const char* name :
       {"mlp.json", "tiny_cnn.json", "deepspeech.json", "mobilenet_v2.json", "resnet50.json"}) {
    std::ifstream in(SourcePath(std::string("topologies/") + name));
    const nlohmann::json topology = nlohmann::json::parse(in);
    for (size_t i = 0; i < topology["layers"].size(); ++i) {
      const nlohmann::json& layer = topology["layers"][i];
      for (const auto& item : layer.items()) {
        if (item.key() == "name" || item.key() == "op") continue;
        if (!seen.insert(layer["op"].get<std::string>() + "/" + item.key()).second) continue;
        for (const nlohmann::json& v : values) {
          nlohmann::json t = topology;
          t["layers"][i][item.key()] = v;
          mutations.push_back({name, layer["name"], item.key(), v, t});
        }
      }
    }
    const nlohmann::json params = topology.value("params", nlohmann::json::object());
    for (const auto& param : params.items()) {
      for (const nlohmann::json& v : values) {
        nlohmann::json t = topology;
        t["params"][param.key()] = v;
        mutations.push_back({name, "", "params." + param.key(), v, t});
      }
    }
    for (const nlohmann::json& v : values) {
      nlohmann::json t = topology;
      t["inputs"][0]["shape"][1] = v;
      mutations.push_back({name, "", "inputs", v, t});
    }
  }
  int accepted = 0, refused = 0, passed = 0;
  for (size_t i = 0; i < mutations.size(); ++i) {
    const Mutation& m = mutations[i];
    const std::string path = dir_ + "/mutated_" + std::to_string(i) + "_" + m.file;
    Write(path.substr(dir_.size() + 1), m.topology.dump());
    const CommandResult r = RunCommand("timeout -s KILL " + std::to_string(kTimeLimitSeconds) +
                                       " " + kCli + " inspect " + path + " --json");
    const std::string what = m.file + ", layer '" + m.layer + "', field '" + m.field +
                             "' = " + m.value.dump() + "\n  exit " + std::to_string(r.exit_code) +
                             ", stderr: " + r.err;
    bool ok = false;
    if (r.exit_code == 0) {
      ++accepted;
      ok = r.err.empty() && nlohmann::json::accept(r.out) &&
           LayersAreSane(nlohmann::json::parse(r.out));
    } else {
      ++refused;
      const int lines = static_cast<int>(std::count(r.err.begin(), r.err.end(), '\n'));
      ok = r.exit_code >= 1 && r.exit_code <= 125 && lines == 1 &&
           r.err.find(path) != std::string::npos &&
           r.err.find("internal error") == std::string::npos &&
           r.err.find("field '") != std::string::npos;
    }
    EXPECT_TRUE(ok) << what;
    passed += ok ? 1 : 0;
  }
  std::cout << "red team, shipped topologies with hostile values: " << mutations.size()
            << " cases (" << refused << " refused, " << accepted << " accepted), " << passed
            << " passed\n";
}

// Six baseline updates at once, each replacing its own benchmark (--filter) in one machine
// class's baseline (the signature beside it takes every benchmark of the run anyway): all
// land, whatever the interleaving (they serialise through a lock file), ten times over.
TEST_F(RedTeam, ConcurrentBaselineUpdatesLoseNothing) {
  const std::string run = dir_ + "/six_batches.json";
  ASSERT_EQ(RunCommand(kCli + " run " + SourcePath("topologies/mlp.json") +
                       " --batch 1,2,3,4,5,6 --benchmark_min_time=0.001 --json " + run)
                .exit_code,
            0);
  for (int round = 0; round < 10; ++round) {
    const std::string baselines = dir_ + "/concurrent" + std::to_string(round);
    const std::string update =
        kCli + " baseline update --run " + run + " --suite s --baseline-dir " + baselines;
    std::string all;
    for (int batch = 1; batch <= 6; ++batch) {
      all += update + " --filter batch:" + std::to_string(batch) + "/ & ";
    }
    const CommandResult after =
        RunCommand("(" + all + "wait) >/dev/null 2>&1; find " + baselines +
                   " -name s.json -not -path '*any-machine*' -exec cat {} +");
    for (int batch = 1; batch <= 6; ++batch) {
      EXPECT_NE(after.out.find("batch:" + std::to_string(batch) + "/"), std::string::npos)
          << "round " << round << ": the update of batch " << batch << " was lost";
    }
  }
}

// Updating a baseline again from the same run leaves the machine-independent signature's file
// byte for byte as it was and says it is unchanged: only the machine class's file is new.
TEST_F(RedTeam, AnUnchangedSignatureIsNotRewritten) {
  const std::string run = dir_ + "/same.json";
  ASSERT_EQ(RunCommand(kCli + " run " + SourcePath("topologies/mlp.json") +
                       " --benchmark_min_time=0.001 --json " + run)
                .exit_code,
            0);
  const std::string update =
      kCli + " baseline update --run " + run + " --suite s --baseline-dir " + dir_ + "/same";
  const CommandResult first = RunCommand(update);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string signature = dir_ + "/same/any-machine/s.json";
  const std::string before = RunCommand("cat " + signature + " && stat -c %Y.%y " + signature).out;
  ASSERT_NE(before, "");
  RunCommand("sleep 1.1");  // a rewrite would show in the modification time too
  const CommandResult second = RunCommand(update);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find(signature + " (every machine): unchanged"), std::string::npos)
      << second.out;
  EXPECT_EQ(RunCommand("cat " + signature + " && stat -c %Y.%y " + signature).out, before);
}

// A write that fails (here a file size limit, as a full disk would) exits non-zero naming the
// file and leaves the previous file as it was, and no temporary behind.
TEST_F(RedTeam, AFailedWriteKeepsThePreviousFile) {
  const std::string out = dir_ + "/kept.json";
  Write("kept.json", "previous content\n");
  const std::string limited = "bash -c \"trap '' XFSZ; ulimit -f 2; exec " + kCli;
  const CommandResult convert =
      RunCommand(limited + " convert " + SourcePath("topologies/resnet50.json") + " " + out + "\"");
  EXPECT_EQ(convert.exit_code, 1) << convert.err;
  EXPECT_NE(convert.err.find(out + ": write failed"), std::string::npos) << convert.err;
  const CommandResult json = RunCommand(limited + " run " + SourcePath("topologies/mlp.json") +
                                        " --benchmark_min_time=0.01 --quiet --json " + out +
                                        "\"");  // --quiet: stderr too is under the size limit
  EXPECT_EQ(json.exit_code, 1) << json.err;
  EXPECT_NE(json.err.find(out + ": the JSON report was not written completely"), std::string::npos)
      << json.err;
  std::ifstream in(out);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "previous content\n");
  EXPECT_EQ(RunCommand("ls " + out + ".tmp.* 2>/dev/null").out, "");
  // A baseline update that cannot write keeps the previous baseline whole.
  ASSERT_EQ(RunCommand("mkdir -p " + dir_ + "/full && cp " + dir_ + "/baseline.json " + dir_ +
                       "/full/s.json")
                .exit_code,
            0);
  const std::string before = RunCommand("cat " + dir_ + "/full/s.json").out;
  const CommandResult update =
      RunCommand(limited + " baseline update --run " + dir_ + "/run.json --suite s --baseline " +
                 dir_ + "/full/s.json\"");
  EXPECT_EQ(update.exit_code, 1) << update.err;
  EXPECT_NE(update.err.find(dir_ + "/full/s.json"), std::string::npos) << update.err;
  EXPECT_EQ(RunCommand("cat " + dir_ + "/full/s.json").out, before);
  EXPECT_EQ(RunCommand("ls " + dir_ + "/full/*.tmp.* 2>/dev/null").out, "");
}

// An output that is a FIFO (or a device such as /dev/null, which a test must not risk) is
// written in place: renaming a temporary over it would replace it with a regular file. A
// reader on the FIFO receives the whole content, and it is still a FIFO afterwards.
TEST_F(RedTeam, AnOutputThatIsAFifoStaysAFifo) {
  const std::string fifo = dir_ + "/out.fifo";
  struct Case {
    std::string command, expect;
  };
  const std::vector<Case> cases = {
      {"convert " + SourcePath("topologies/mlp.json") + " " + fifo + ".json", "\"layers\""},
      {"run " + SourcePath("topologies/mlp.json") + " --benchmark_min_time=0.001 --quiet --json " +
           fifo + ".json",
       "\"benchmarks\""},
      {"run " + SourcePath("topologies/mlp.json") + " --benchmark_min_time=0.001 --quiet --trace " +
           fifo + ".json",
       "\"traceEvents\""}};
  for (const Case& c : cases) {
    const std::string path = fifo + ".json";
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << path;
    // The reader copies what arrives; both sides are bounded in time.
    const CommandResult r =
        RunCommand("(timeout -s KILL 60 cat " + path + " > " + dir_ +
                   "/fifo_read.txt &) ; timeout -s KILL 120 " + kCli + " " + c.command +
                   " && sleep 0.2 && cat " + dir_ + "/fifo_read.txt");
    EXPECT_EQ(r.exit_code, 0) << c.command << "\n" << r.err;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.command;
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << c.command << ": replaced by a regular file";
    EXPECT_EQ(RunCommand("ls " + dir_ + "/out.fifo.json.tmp.* 2>/dev/null").out, "");
    unlink(path.c_str());
  }
}

// A report written over what the run reads (here the --input recording) is refused before
// anything runs, the recording kept.
TEST_F(RedTeam, AnOutputOverAnInputRecordingIsRefused) {
  const std::string wav = dir_ + "/speech.wav";
  ASSERT_EQ(RunCommand("cp " + SourcePath("tests/data/speech_16k.wav") + " " + wav).exit_code, 0);
  const std::string before = RunCommand("md5sum < " + wav).out;
  for (const std::string option : {"--json", "--trace", "--benchmark_out"}) {
    const CommandResult r = RunCommand(
        kCli + " run " + SourcePath("topologies/deepspeech_e2e.json") +
        " --set n_hidden=16 --set seconds=4 --benchmark_min_time=0.001 --input audio=" + wav + " " +
        option + "=" + wav);
    EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.err;
    EXPECT_NE(r.err.find("is also an input; refusing to overwrite it"), std::string::npos)
        << option << "\n"
        << r.err;
  }
  EXPECT_EQ(RunCommand("md5sum < " + wav).out, before);
}

// Every machine-class cache file a FIFO: `run` must not wait on it (it reads the roofline
// after the runs), and says in one line that it has no roofline column.
TEST_F(RedTeam, AFifoInTheMachineCacheDoesNotHangARun) {
  const std::string cache = dir_ + "/cache";
  ASSERT_EQ(RunCommand("mkdir -p " + cache + "/machine").exit_code, 0);
  // The file name holds the machine class and thread count: FIFOs for every count up to 64.
  const CommandResult classes =
      RunCommand(kCli + " run " + SourcePath("topologies/mlp.json") +
                 " --benchmark_min_time=0.001 --benchmark_format=json 2>/dev/null");
  ASSERT_EQ(classes.exit_code, 0) << classes.err;
  const std::string machine =
      nlohmann::json::parse(classes.out)["context"]["ntpbench_machine_class"];
  for (int threads = 1; threads <= 64; ++threads) {
    mkfifo((cache + "/machine/" + machine + "-" + std::to_string(threads) + "t.json").c_str(),
           0600);
  }
  const CommandResult r =
      RunCommand("NTPB_CACHE_DIR=" + cache + " timeout -s KILL 60 " + kCli + " run " +
                 SourcePath("topologies/mlp.json") + " --benchmark_min_time=0.001");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no roofline column"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a FIFO, not a regular file"), std::string::npos) << r.err;
}

// Two `machine --refresh` at once would share the cores and cache halved peaks: a refresh
// waits for the machine cache's lock (here held by flock(1), so a refresh given 3 s is killed
// still waiting, the cache untouched), and two refreshes side by side both finish
// with a whole cache file.
TEST_F(RedTeam, MachineRefreshesMeasureOneAtATime) {
  const std::string cache = dir_ + "/refresh_cache";
  const std::string machine =
      "env NTPB_CACHE_DIR=" + cache + " " + kCli + " machine --threads 1 --force";
  ASSERT_EQ(RunCommand(machine + " --refresh >/dev/null 2>&1").exit_code, 0);
  const std::string file = RunCommand("ls " + cache + "/machine/*-1t.json").out;
  ASSERT_FALSE(file.empty());
  const std::string path = file.substr(0, file.find('\n'));
  const std::string before = RunCommand("cat " + path).out;
  const CommandResult waiting =
      RunCommand("(flock -o " + path + ".lock sleep 20 >/dev/null 2>&1 & holder=$!; sleep 0.5; " +
                 "timeout 3 " + machine + " --refresh >/dev/null 2>&1; echo $?; kill $holder)");
  EXPECT_EQ(waiting.out, "124\n") << "a refresh did not wait for the lock";
  EXPECT_EQ(RunCommand("cat " + path).out, before);
  const CommandResult both =
      RunCommand("(" + machine + " --refresh --json >/dev/null 2>&1 & first=$!; " + machine +
                 " --refresh --json >/dev/null 2>&1; second=$?; wait $first; echo $? $second)");
  EXPECT_EQ(both.out, "0 0\n");
  EXPECT_NO_THROW(nlohmann::json::parse(RunCommand("cat " + path).out));
}

// Noise thresholds from sessions a busy machine disturbed would be the neighbour's noise: the
// update refuses them, naming a disturbed run, unless --force.
TEST_F(RedTeam, ABaselineUpdateRefusesThresholdsFromDisturbedSessions) {
  nlohmann::json busy = nlohmann::json::parse(RunCommand("cat " + dir_ + "/run.json").out);
  for (nlohmann::json& b : busy["benchmarks"]) {
    b["interference.others_share"] = 0.6;
    b["interference.seconds"] = 1.0;
  }
  Write("busy_run.json", busy.dump());
  const std::string update = kCli + " baseline update --run " + dir_ + "/run.json --run " + dir_ +
                             "/busy_run.json --suite s --baseline " + dir_ + "/busy_baseline.json";
  const CommandResult refused = RunCommand(update);
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("the sessions that set the noise thresholds were disturbed"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("busy_run.json: mlp/eigen/f32/batch:"), std::string::npos)
      << refused.err;
  EXPECT_NE(RunCommand("test -e " + dir_ + "/busy_baseline.json").exit_code, 0)
      << "nothing written";
  EXPECT_NE(RunCommand("test -e " + dir_ + "/busy_baseline.json.lock").exit_code, 0)
      << "no lock file left";
  EXPECT_EQ(RunCommand(update + " --force").exit_code, 0);
}

// A benchmark whose repetitions spread with nothing else running is its own noise: the update
// takes it (its threshold from the sessions' movement) and says so.
TEST_F(RedTeam, ABaselineUpdateTakesSessionsThatOnlySpread) {
  const nlohmann::json run = nlohmann::json::parse(RunCommand("cat " + dir_ + "/run.json").out);
  nlohmann::json spread = run;
  spread["benchmarks"] = nlohmann::json::array();
  for (const nlohmann::json& b : run["benchmarks"]) {
    if (b.value("run_type", "") != "iteration") continue;
    for (const double factor : {1.0, 1.15, 0.85}) {  // MdAPE 15%
      nlohmann::json repetition = b;
      repetition["real_time"] = b["real_time"].get<double>() * factor;
      spread["benchmarks"].push_back(repetition);
    }
  }
  Write("spread_run.json", spread.dump());
  const CommandResult r =
      RunCommand(kCli + " baseline update --run " + dir_ + "/run.json --run " + dir_ +
                 "/spread_run.json --suite s --baseline " + dir_ + "/spread_baseline.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("spread over their repetitions with nothing else running (first " + dir_ +
                       "/spread_run.json: mlp/eigen/f32/batch:"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(RunCommand("test -e " + dir_ + "/spread_baseline.json").exit_code, 0);
}

// A temporary that a killed writer left beside a baseline (older than ten minutes) is removed
// by the next write; a fresh one (a writer still at work) is kept.
TEST_F(RedTeam, TheNextWriteRemovesAKilledWritersTemporary) {
  const std::string baselines = dir_ + "/stale";
  const std::string update = kCli + " baseline update --run " + dir_ + "/run.json --suite s " +
                             "--baseline " + baselines + "/s.json";
  ASSERT_EQ(RunCommand("mkdir -p " + baselines).exit_code, 0);
  Write("stale/s.json.tmp.killed", "half a baseline");
  Write("stale/s.json.tmp.working", "a writer at work");
  ASSERT_EQ(RunCommand("touch -d '1 hour ago' " + baselines + "/s.json.tmp.killed").exit_code, 0);
  const CommandResult r = RunCommand(update);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat st;
  EXPECT_NE(stat((baselines + "/s.json.tmp.killed").c_str(), &st), 0);
  EXPECT_EQ(stat((baselines + "/s.json.tmp.working").c_str(), &st), 0);
}

}  // namespace
}  // namespace ntpb::testing
