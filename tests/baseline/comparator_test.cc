// Every verdict path of the comparator, and the baseline store's handling of bad files.
#include "ntpbench/comparator.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "ntpbench/error.h"

namespace ntpb {
namespace {

MachineClass Machine(const std::string& cpu = "Test CPU") {
  MachineClass m;
  m.cpu = cpu;
  m.cores = 2;
  m.isa = "avx512f";
  m.libraries = "eigen=Eigen 3.4.0";
  m.build = "release";
  return m;
}

BenchmarkResult Result(std::vector<double> times, double flops = 1000) {
  BenchmarkResult r;
  r.real_time_ms = std::move(times);
  r.analytic = {{"net.flops", flops}, {"mem.weight_bytes", 4096}};
  r.counters = {{"net.allocs", 0}, {"net.alloc_bytes", 0}};
  return r;
}

const std::vector<double> kBase = {10.0, 10.1, 9.9, 10.2, 10.05, 9.95};

struct Fixture {
  Baseline baseline;
  RunResults run;
  Fixture() {
    baseline.suite = "s";
    baseline.machine = Machine();
    run.machine = Machine();
    run.has_machine = true;
    baseline.benchmarks["a"] = Result(kBase);
  }
  Comparison Compare(CompareOptions o = {}) { return ntpb::Compare(&baseline, run, o, "CMD"); }
};

const ComparisonRow& Latency(const Comparison& c, const std::string& name = "a") {
  for (const ComparisonRow& r : c.rows) {
    if (r.benchmark == name && r.metric == "latency_ms") return r;
  }
  throw std::runtime_error("no latency row for " + name);
}

TEST(Comparator, SameDistributionIsUnchanged) {
  Fixture f;
  f.run.benchmarks["a"] = Result({10.05, 9.95, 10.1, 10.0, 9.9, 10.2});
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kUnchanged);
  EXPECT_EQ(c.ExitCode(), 0);
  EXPECT_NE(c.Table().find("verdict: PASS"), std::string::npos);
}

TEST(Comparator, SignificantSlowdownBeyondTheThresholdIsARegression) {
  Fixture f;
  f.run.benchmarks["a"] = Result({11.6, 11.5, 11.7, 11.55, 11.65, 11.6});
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kRegression);
  EXPECT_LT(Latency(c).p_value, 0.05);
  EXPECT_NEAR(Latency(c).change, 11.6 / 10.025 - 1, 1e-3);
  EXPECT_EQ(c.ExitCode(), 1);
  EXPECT_NE(c.Table().find("REGRESSION"), std::string::npos);
  EXPECT_EQ(c.ToJson()["exit_code"], 1);
}

TEST(Comparator, SignificantSpeedupIsAnImprovementAndPasses) {
  Fixture f;
  f.run.benchmarks["a"] = Result({8.0, 8.1, 7.9, 8.05, 7.95, 8.0});
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kImprovement);
  EXPECT_EQ(c.ExitCode(), 0);
}

TEST(Comparator, SignificantButSmallChangeIsUnchanged) {
  Fixture f;
  f.run.benchmarks["a"] = Result({10.3, 10.35, 10.4, 10.32, 10.38, 10.36});  // +3%
  const Comparison c = f.Compare();
  EXPECT_LT(Latency(c).p_value, 0.05);
  EXPECT_EQ(Latency(c).verdict, Verdict::kUnchanged);
  CompareOptions strict;
  strict.thresholds["a"] = 0.01;  // per-benchmark override
  EXPECT_EQ(Latency(f.Compare(strict)).verdict, Verdict::kRegression);
  f.baseline.thresholds["a"] = 0.01;  // or in the baseline
  EXPECT_EQ(Latency(f.Compare()).verdict, Verdict::kRegression);
}

TEST(Comparator, TooFewRepetitionsAreInconclusiveNotPassOrFail) {
  Fixture f;
  f.baseline.benchmarks["a"] = Result({10.0, 10.1, 9.9});
  f.run.benchmarks["a"] = Result({20.0, 20.1, 19.9});  // obviously slower, but 3 vs 3
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kInconclusive);
  EXPECT_NE(Latency(c).note.find("cannot reach"), std::string::npos);
  EXPECT_EQ(c.ExitCode(), kSkipReturnCode);
}

TEST(Comparator, LargeButNoisyChangeIsInconclusive) {
  Fixture f;
  f.run.benchmarks["a"] = Result({9.0, 14.0, 9.5, 13.0, 10.0, 12.5});
  const Comparison c = f.Compare();
  EXPECT_GT(Latency(c).p_value, 0.05);
  EXPECT_EQ(Latency(c).verdict, Verdict::kInconclusive);
  EXPECT_EQ(c.ExitCode(), kSkipReturnCode);
}

TEST(Comparator, CalibrationScalesLatenciesByTheMachinesDrift) {
  Fixture f;
  f.baseline.benchmarks["ntpbench_calibration/compute/real_time"] = Result({1, 1, 1, 1, 1, 1});
  f.baseline.benchmarks["ntpbench_calibration/memory/real_time"] = Result({2, 2, 2, 2, 2, 2});
  // The whole machine is 15% slower today: calibration and benchmark alike.
  f.run.benchmarks["ntpbench_calibration/compute/real_time"] =
      Result({1.15, 1.15, 1.15, 1.15, 1.15, 1.15});
  f.run.benchmarks["ntpbench_calibration/memory/real_time"] =
      Result({2.3, 2.3, 2.3, 2.3, 2.3, 2.3});
  std::vector<double> slower;
  for (double t : kBase) slower.push_back(t * 1.15);
  f.run.benchmarks["a"] = Result(slower);
  CompareOptions normalize;
  normalize.normalize_by_calibration = true;
  Comparison c = f.Compare(normalize);
  EXPECT_EQ(Latency(c).verdict, Verdict::kUnchanged) << c.Table();
  EXPECT_EQ(c.ExitCode(), 0);
  EXPECT_NEAR(c.rows[0].now, 1.15, 1e-9);  // the drift row
  // The benchmark slower beyond the machine's drift is still caught.
  for (double& t : slower) t *= 1.2;
  f.run.benchmarks["a"] = Result(slower);
  EXPECT_EQ(Latency(f.Compare(normalize)).verdict, Verdict::kRegression);
  // Without normalization (the default) the drift alone is a regression; the drift row is
  // still shown.
  f.run.benchmarks["a"] = Result({11.5, 11.6, 11.4, 11.7, 11.55, 11.45});
  const Comparison raw = f.Compare();
  EXPECT_EQ(Latency(raw).verdict, Verdict::kRegression);
  EXPECT_EQ(raw.rows[0].metric, "drift");
  // A machine 50% slower cannot be judged.
  f.run.benchmarks["ntpbench_calibration/compute/real_time"] =
      Result({1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
  f.run.benchmarks["ntpbench_calibration/memory/real_time"] = Result({3, 3, 3, 3, 3, 3});
  f.run.benchmarks["a"] = Result({20, 20.1, 19.9, 20.2, 20.05, 19.95});
  EXPECT_EQ(Latency(f.Compare(normalize)).verdict, Verdict::kInconclusive);
}

TEST(Comparator, MemorySignatureIsExactAndAllocationsWithinTolerance) {
  Fixture f;
  f.run.benchmarks["a"] = Result(kBase, 1001);  // one more FLOP
  Comparison c = f.Compare();
  EXPECT_EQ(c.ExitCode(), 1);
  bool flagged = false;
  for (const ComparisonRow& r : c.rows)
    flagged |= r.metric == "net.flops" && r.verdict == Verdict::kRegression;
  EXPECT_TRUE(flagged);

  f.run.benchmarks["a"] = Result(kBase);
  f.run.benchmarks["a"].counters["net.allocs"] = 1;  // any new allocation per inference
  EXPECT_EQ(f.Compare().ExitCode(), 1);

  f.baseline.benchmarks["a"].counters["net.alloc_bytes"] = 1000;
  f.run.benchmarks["a"].counters = {{"net.allocs", 0}, {"net.alloc_bytes", 1050}};
  EXPECT_EQ(f.Compare().ExitCode(), 0) << "5% is within the 10% tolerance";
  f.run.benchmarks["a"].counters["net.alloc_bytes"] = 1200;
  EXPECT_EQ(f.Compare().ExitCode(), 1);
}

TEST(Comparator, PeakRssWithinTolerance) {
  Fixture f;
  f.run.benchmarks["a"] = Result(kBase);
  f.baseline.peak_rss_bytes = 100e6;
  f.run.peak_rss_bytes = 105e6;
  EXPECT_EQ(f.Compare().ExitCode(), 0);
  f.run.peak_rss_bytes = 130e6;
  EXPECT_EQ(f.Compare().ExitCode(), 1);
}

TEST(Comparator, NewMissingAndRenamedBenchmarksAreReported) {
  Fixture f;
  f.run.benchmarks["b"] = Result(kBase, 5);
  Comparison c = f.Compare();
  EXPECT_EQ(Latency(c, "a").verdict, Verdict::kMissing);
  EXPECT_EQ(Latency(c, "b").verdict, Verdict::kNew);
  EXPECT_EQ(c.ExitCode(), 1) << "a missing benchmark must not pass";

  f.run.benchmarks["b"] = Result(kBase);  // same analytic signature as "a": a rename
  c = f.Compare();
  EXPECT_EQ(Latency(c, "a").verdict, Verdict::kRenamed);
  EXPECT_EQ(c.ExitCode(), kSkipReturnCode);

  Fixture g;
  g.run.benchmarks["a"] = Result(kBase);
  g.run.benchmarks["a"].skipped = "out of memory";
  EXPECT_EQ(Latency(g.Compare()).verdict, Verdict::kMissing) << "ran before, fails now";
}

TEST(Comparator, OtherMachineClassIsNoBaselineWithTheCommand) {
  Fixture f;
  f.run.machine = Machine("Other CPU");
  f.run.benchmarks["a"] = Result({100, 100, 100, 100, 100, 100});
  const Comparison c = f.Compare();
  EXPECT_TRUE(c.no_baseline);
  EXPECT_EQ(c.ExitCode(), kSkipReturnCode);
  EXPECT_NE(c.message.find("no baseline for this machine"), std::string::npos);
  EXPECT_NE(c.message.find("create one with: CMD"), std::string::npos);
  EXPECT_TRUE(Compare(nullptr, f.run, {}).no_baseline);
}

TEST(BaselineStore, RoundTripsAndNamesTheFileOnBadInput) {
  Baseline b;
  b.suite = "shipped";
  b.machine = Machine();
  b.created = "2026-11-21T00:00:00Z";
  b.benchmarks["a"] = Result(kBase);
  b.thresholds["a"] = 0.1;
  b.peak_rss_bytes = 123;
  const std::string text = SerializeBaseline(b);
  const Baseline back = ParseBaseline(text, "b.json");
  EXPECT_EQ(back.suite, "shipped");
  EXPECT_EQ(back.machine.id(), b.machine.id());
  EXPECT_EQ(back.benchmarks.at("a").real_time_ms, kBase);
  EXPECT_EQ(back.benchmarks.at("a").analytic, b.benchmarks.at("a").analytic);
  EXPECT_EQ(back.thresholds, b.thresholds);
  EXPECT_EQ(back.peak_rss_bytes, 123);

  struct Bad {
    std::string text, field, message;
  };
  nlohmann::json wrong_version = nlohmann::json::parse(text);
  wrong_version["version"] = 99;
  nlohmann::json no_machine = nlohmann::json::parse(text);
  no_machine.erase("machine_class");
  nlohmann::json bad_latency = nlohmann::json::parse(text);
  bad_latency["benchmarks"]["a"]["real_time_ms"] = {1, -2};
  for (const Bad& c :
       std::vector<Bad>{{text.substr(0, text.size() / 2), "", "corrupt or truncated baseline"},
                        {"{\"schema\": \"something-else\"}", "schema", "not an ntpbench baseline"},
                        {wrong_version.dump(), "version", "unsupported baseline version 99"},
                        {no_machine.dump(), "machine_class", "missing"},
                        {bad_latency.dump(), "benchmarks.a", "latencies must be positive"},
                        {"", "", "corrupt or truncated baseline"}}) {
    try {
      ParseBaseline(c.text, "baselines/x/shipped.json");
      ADD_FAILURE() << "accepted: " << c.message;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), "baselines/x/shipped.json");
      EXPECT_EQ(e.field(), c.field) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

TEST(BaselineStore, AnInterruptedWriteLeavesACompleteBaseline) {
  const std::string dir = ::testing::TempDir() + "/ntpb_baselines_" + std::to_string(getpid());
  Baseline b;
  b.suite = "s";
  b.machine = Machine();
  for (int i = 0; i < 2000; ++i) b.benchmarks["bench" + std::to_string(i)] = Result(kBase);
  const std::string path = BaselinePath(dir, b.machine, "s");
  WriteBaseline(b, path);
  const pid_t child = fork();
  if (child == 0) {  // rewrite it over and over until killed mid-write
    for (int i = 0;; ++i) {
      b.created = std::to_string(i);
      WriteBaseline(b, path);
    }
  }
  usleep(300000);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  const Baseline after = ReadBaseline(path);  // never truncated, never mixed
  EXPECT_EQ(after.benchmarks.size(), 2000u);
}

TEST(RunResults, ReadsRepetitionsFromGoogleBenchmarkJson) {
  const std::string text = R"({
    "context": {"ntpbench_machine_json": "{\"build\":\"release\",\"cores\":2,\"cpu\":\"Test CPU\",\"hardware_counters\":false,\"isa\":\"avx512f\",\"libraries\":\"eigen=Eigen 3.4.0\"}"},
    "benchmarks": [
      {"name": "a/real_time", "run_name": "a/real_time", "run_type": "iteration", "repetitions": 2,
       "real_time": 1500000, "time_unit": "ns", "net.flops": 1000, "net.allocs": 0, "mem.peak_rss_bytes": 5},
      {"name": "a/real_time", "run_name": "a/real_time", "run_type": "iteration", "repetitions": 2,
       "real_time": 2.5, "time_unit": "ms", "net.flops": 1000, "net.allocs": 0, "mem.peak_rss_bytes": 7},
      {"name": "a/real_time_cv", "run_name": "a/real_time", "run_type": "aggregate",
       "aggregate_name": "cv", "real_time": NaN, "net.allocs": NaN},
      {"name": "b", "run_name": "b", "run_type": "iteration", "error_occurred": true,
       "error_message": "skipped: no bf16"}
    ]})";
  const RunResults r = ParseRunResults(text, "run.json");
  ASSERT_TRUE(r.has_machine);
  EXPECT_EQ(r.machine.id(), Machine().id());
  EXPECT_EQ(r.benchmarks.at("a/real_time").real_time_ms, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(r.benchmarks.at("a/real_time").analytic.at("net.flops"), 1000);
  EXPECT_EQ(r.benchmarks.at("b").skipped, "skipped: no bf16");
  EXPECT_EQ(r.peak_rss_bytes, 7);
  EXPECT_THROW(ParseRunResults("{\"benchmarks\": 3}", "x.json"), Error);
  EXPECT_THROW(ParseRunResults("{\"benchm", "x.json"), Error);
}

}  // namespace
}  // namespace ntpb
