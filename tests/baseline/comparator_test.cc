// Every verdict path of the comparator, and the baseline store's handling of bad files.
#include "ntpbench/comparator.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "ntpbench/error.h"
#include "ntpbench/sweep_results.h"
#include "src/baseline/confirmation.h"
#include "src/baseline/noise_threshold.h"
#include "src/baseline/signature.h"
#include "src/cli/comparison_table.h"
#include "src/common/json_field.h"
#include "tests/test_util.h"

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
  EXPECT_NE(cli::ComparisonTable(c).find("verdict: PASS"), std::string::npos);
}

TEST(Comparator, SignificantSlowdownBeyondTheThresholdIsARegression) {
  Fixture f;
  f.run.benchmarks["a"] = Result({11.6, 11.5, 11.7, 11.55, 11.65, 11.6});
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kRegression);
  EXPECT_LT(Latency(c).p_value, 0.05);
  EXPECT_NEAR(Latency(c).change, 11.6 / 10.025 - 1, 1e-3);
  EXPECT_EQ(c.ExitCode(), 1);
  EXPECT_NE(cli::ComparisonTable(c).find("REGRESSION"), std::string::npos);
  EXPECT_EQ(c.ToJson()["exit_code"], 1);
}

// A scenario's throughput is its time per query (same test as any latency); its p99 per query is
// a row of its own, judged with the same test and threshold, so a grown queue fails the gate
// even when the throughput held.
TEST(Comparator, AScenarioIsJudgedOnThroughputAndOnItsP99) {
  Fixture f;
  f.baseline.benchmarks["a"].p99_ms = {40, 41, 39, 40.5, 39.5, 40};
  f.run.benchmarks["a"] = Result({10.05, 9.95, 10.1, 10.0, 9.9, 10.2});
  f.run.benchmarks["a"].p99_ms = {52, 51, 53, 52.5, 51.5, 52};
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kUnchanged);
  const auto p99 = std::find_if(c.rows.begin(), c.rows.end(),
                                [](const ComparisonRow& r) { return r.metric == "p99_ms"; });
  ASSERT_NE(p99, c.rows.end());
  EXPECT_EQ(p99->verdict, Verdict::kRegression);
  EXPECT_NEAR(p99->change, 52 / 40.0 - 1, 1e-3);
  EXPECT_EQ(c.ExitCode(), 1);
  // The p99 through the baseline file.
  const Baseline back = ParseBaseline(SerializeBaseline(f.baseline), "b.json");
  EXPECT_EQ(back.benchmarks.at("a").p99_ms, f.baseline.benchmarks["a"].p99_ms);
  // A run with no p99 per repetition (single-stream) gets no p99 row.
  f.run.benchmarks["a"].p99_ms.clear();
  const Comparison plain = f.Compare();
  EXPECT_TRUE(std::none_of(plain.rows.begin(), plain.rows.end(),
                           [](const ComparisonRow& r) { return r.metric == "p99_ms"; }));
}

// A run measured beside a busy neighbour proves nothing either way: inconclusive, saying what
// was seen, whether its time moved or not (reliability.h).
TEST(Comparator, ABusyMachineMakesLatencyInconclusive) {
  Fixture f;
  f.run.benchmarks["a"] = Result({11.6, 11.5, 11.7, 11.55, 11.65, 11.6});  // a regression, else
  RunMeasurement busy;
  busy.interference.emplace();
  busy.interference->others_share = 0.5;
  busy.interference->involuntary_switches_per_core_second = 127;
  busy.interference->involuntary_switches = 1.2;
  RunMeasurement quiet;
  quiet.interference.emplace();
  for (int i = 0; i < 6; ++i) {
    std::map<std::string, double>& counters = f.run.benchmarks["a"].repetitions.emplace_back();
    for (const EncodedCounter& c : EncodeCounters(i == 2 ? busy : quiet))
      counters[c.name] = c.value;
  }
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kInconclusive);
  EXPECT_EQ(Latency(c).note.rfind("unreliable: the machine was busy (other processes took 50%", 0),
            0u)
      << Latency(c).note;
  EXPECT_EQ(c.ExitCode(), kSkipReturnCode);
  // The same run, quiet throughout: judged.
  f.run.benchmarks["a"].repetitions[2] = f.run.benchmarks["a"].repetitions[0];
  EXPECT_EQ(Latency(f.Compare()).verdict, Verdict::kRegression);
}

// The same slowdown measured with the cores placed farther apart than in the baseline (a VM's host
// moved its virtual CPUs) is the host's: inconclusive, with both placements named; placed alike,
// or unmeasured on either side (runs from before), a regression.
TEST(Comparator, CoresPlacedOtherwiseThanTheBaselinesMakeAChangeInconclusive) {
  Fixture f;
  f.baseline.benchmarks["a"].counters["interference.core_to_core_ns"] = 38;
  f.run.benchmarks["a"] = Result({11.6, 11.5, 11.7, 11.55, 11.65, 11.6});
  auto placed = [&](double ns) {
    f.run.benchmarks["a"].repetitions.assign(6, {{"interference.core_to_core_ns", ns}});
  };
  placed(176);
  Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kInconclusive);
  EXPECT_EQ(Latency(c).note,
            "the cores were placed 176 ns apart, 38 in the baseline (core to core): cannot judge");
  CompareOptions ab;
  ab.busy_is_inconclusive = false;  // A/B: the control ran in the same placement
  c = f.Compare(ab);
  EXPECT_EQ(Latency(c).verdict, Verdict::kRegression);
  EXPECT_NE(Latency(c).note.find("176 ns apart"), std::string::npos) << Latency(c).note;
  placed(41);
  EXPECT_EQ(Latency(f.Compare()).verdict, Verdict::kRegression);
  f.baseline.benchmarks["a"].counters.erase("interference.core_to_core_ns");
  placed(176);
  EXPECT_EQ(Latency(f.Compare()).verdict, Verdict::kRegression) << "a baseline from before";
  // Unchanged stays unchanged wherever the cores were.
  f.baseline.benchmarks["a"].counters["interference.core_to_core_ns"] = 38;
  f.run.benchmarks["a"].real_time_ms = kBase;
  EXPECT_EQ(Latency(f.Compare()).verdict, Verdict::kUnchanged);
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

std::vector<double> Scaled(const std::vector<double>& times, double factor) {
  std::vector<double> out;
  for (double t : times) out.push_back(t * factor);
  return out;
}

// A suite of five benchmarks and the two calibration kernels; `drift` is how much slower the
// whole machine runs today, `calibration` how much slower the calibration kernels run.
struct SuiteFixture : Fixture {
  SuiteFixture(double drift, double calibration) {
    for (const char* name : {"b", "c", "d", "e"}) baseline.benchmarks[name] = Result(kBase);
    baseline.benchmarks["ntpbench_calibration/compute/real_time"] = Result(kBase);
    baseline.benchmarks["ntpbench_calibration/memory/real_time"] = Result(kBase);
    for (const auto& [name, r] : baseline.benchmarks) {
      const bool cal = name.rfind("ntpbench_calibration/", 0) == 0;
      run.benchmarks[name] = Result(Scaled(r.real_time_ms, cal ? calibration : drift));
    }
  }
};

TEST(Comparator, AMachineThatRunsEverythingSlowerTodayPasses) {
  SuiteFixture f(1.25, 1.22);
  const Comparison c = f.Compare();
  EXPECT_EQ(c.rows[0].metric, "drift");
  EXPECT_NEAR(c.rows[0].now, 1.25, 1e-9);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kUnchanged);
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    EXPECT_EQ(Latency(c, name).verdict, Verdict::kUnchanged) << cli::ComparisonTable(c);
    EXPECT_NEAR(Latency(c, name).change, 0, 1e-9);
    EXPECT_NE(Latency(c, name).note.find("moved with the suite"), std::string::npos);
  }
  EXPECT_EQ(c.ExitCode(), 0);
  // --raw judges each benchmark on its own: all of them regress.
  CompareOptions raw;
  raw.relative_to_suite = false;
  EXPECT_EQ(Latency(f.Compare(raw), "c").verdict, Verdict::kRegression);
}

TEST(Comparator, OneBenchmarkSlowerThanTheRestOfTheSuiteIsARegression) {
  SuiteFixture f(1.25, 1.22);
  f.run.benchmarks["a"] = Result(Scaled(kBase, 1.25 * 1.15));  // 15% on top of the drift
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kRegression) << cli::ComparisonTable(c);
  EXPECT_NEAR(Latency(c).change, 0.15, 1e-9);
  EXPECT_NE(Latency(c).note.find("rest of suite +25.0%"), std::string::npos) << Latency(c).note;
  EXPECT_EQ(Latency(c, "b").verdict, Verdict::kUnchanged);
  EXPECT_EQ(c.ExitCode(), 1);
  // The same benchmark on a machine 10% faster today: 15% slower than the suite, but only +3.5%
  // on its own. Both views must agree before the gate cries wolf.
  SuiteFixture fast(0.9, 0.9);
  fast.run.benchmarks["a"] = Result(Scaled(kBase, 0.9 * 1.15));
  EXPECT_EQ(Latency(fast.Compare()).verdict, Verdict::kUnchanged);
}

TEST(Comparator, TheWholeSuiteSlowerWhileTheMachineIsNotIsARegression) {
  // A change that slows every benchmark: relative to each other nothing moved, but the
  // calibration kernels show the machine is as fast as it was. Judged raw, it fails.
  SuiteFixture f(1.15, 1.0);
  const Comparison c = f.Compare();
  EXPECT_EQ(c.rows[0].verdict, Verdict::kUnchanged);
  EXPECT_NE(c.rows[0].note.find("judged raw"), std::string::npos);
  EXPECT_EQ(Latency(c, "c").verdict, Verdict::kRegression) << cli::ComparisonTable(c);
  EXPECT_EQ(c.ExitCode(), 1);
}

TEST(Comparator, SuiteAndMachineDriftingApartIsInconclusive) {
  SuiteFixture f(1.40, 1.15);  // both moved, by different amounts: cannot tell why
  const Comparison c = f.Compare();
  EXPECT_EQ(c.rows[0].verdict, Verdict::kInconclusive) << cli::ComparisonTable(c);
  EXPECT_EQ(Latency(c, "c").verdict, Verdict::kInconclusive);
  EXPECT_EQ(c.ExitCode(), kSkipReturnCode);
}

TEST(Comparator, TooFewOtherBenchmarksAreJudgedRaw) {
  Fixture f;  // one benchmark, no calibration: no reference to judge against
  f.run.benchmarks["a"] = Result(Scaled(kBase, 1.2));
  const Comparison c = f.Compare();
  EXPECT_EQ(Latency(c).verdict, Verdict::kRegression);
  EXPECT_EQ(Latency(c).note.find("rest of suite"), std::string::npos);
}

TEST(NoiseThreshold, ThresholdsFollowTheSpreadBetweenSessions) {
  SuiteFixture first(1.0, 1.0), second(1.2, 1.2), third(0.95, 0.95);
  std::vector<RunResults> sessions = {first.run, second.run, third.run};
  // "a" moves 8% against the suite in session 2 and -2% in session 3; "b" is stable.
  sessions[1].benchmarks["a"] = Result(Scaled(kBase, 1.2 * 1.08));
  sessions[2].benchmarks["a"] = Result(Scaled(kBase, 0.95 * 0.98));
  const auto t = DeriveNoiseThresholds(sessions, 0.05);
  ASSERT_TRUE(t.count("a"));
  EXPECT_NEAR(t.at("a").noise, 0.08, 1e-9);
  EXPECT_DOUBLE_EQ(t.at("a").threshold, 0.10);  // 1.25 x 8%
  EXPECT_NEAR(t.at("b").noise, 0, 1e-9);
  EXPECT_DOUBLE_EQ(t.at("b").threshold, 0.05);  // never below the default
  EXPECT_FALSE(t.count("ntpbench_calibration/compute/real_time"));
  // A benchmark missing from a session has no estimate; one session has none at all.
  sessions[2].benchmarks.erase("b");
  EXPECT_FALSE(DeriveNoiseThresholds(sessions, 0.05).count("b"));
  EXPECT_TRUE(DeriveNoiseThresholds({first.run}, 0.05).empty());
  // Absurd noise is capped at 100%.
  sessions[1].benchmarks["a"] = Result(Scaled(kBase, 1.2 * 3));
  EXPECT_DOUBLE_EQ(DeriveNoiseThresholds(sessions, 0.05).at("a").threshold, 1.0);
}

TEST(Comparator, MemorySignatureIsExactAndAllocationsWithinTolerance) {
  Fixture f;
  f.run.benchmarks["a"] = Result(kBase, 1001);  // one more FLOP
  Comparison c = f.Compare();
  EXPECT_EQ(c.ExitCode(), 1);
  bool flagged = false;
  for (const ComparisonRow& r : c.rows)
    flagged |= r.metric == "net.flops" && r.verdict == Verdict::kChanged;
  EXPECT_TRUE(flagged) << "an analytic change is neither a regression nor an improvement";

  f.run.benchmarks["a"] = Result(kBase);
  f.run.benchmarks["a"].counters["net.allocs"] = 1;  // any new allocation per inference
  EXPECT_EQ(f.Compare().ExitCode(), 1);

  f.baseline.benchmarks["a"].counters["net.alloc_bytes"] = 1000;
  f.run.benchmarks["a"].counters = {{"net.allocs", 0}, {"net.alloc_bytes", 1050}};
  EXPECT_EQ(f.Compare().ExitCode(), 0) << "5% is within the 10% tolerance";
  f.run.benchmarks["a"].counters["net.alloc_bytes"] = 1200;
  EXPECT_EQ(f.Compare().ExitCode(), 1);
}

// Scratchpads and activation buffers are sized when the network is built: exact, and only
// compared where both the baseline and the run report them.
TEST(Comparator, TheBackendsOwnMemoryIsPartOfTheSignature) {
  Fixture f;
  f.baseline.benchmarks["a"].counters["mem.workspace_bytes"] = 4096;
  f.run.benchmarks["a"] = Result(kBase);
  f.run.benchmarks["a"].counters["mem.workspace_bytes"] = 4096;
  f.run.benchmarks["a"].counters["mem.activation_bytes"] = 1 << 20;  // not in the baseline
  EXPECT_EQ(f.Compare().ExitCode(), 0);

  f.baseline.benchmarks["a"].counters["mem.activation_bytes"] = 1 << 20;
  f.run.benchmarks["a"].counters["mem.activation_bytes"] = (1 << 20) + 64;  // reuse got worse
  Comparison c = f.Compare();
  EXPECT_EQ(c.ExitCode(), 1);
  bool flagged = false;
  for (const ComparisonRow& r : c.rows) {
    if (r.metric != "mem.activation_bytes") continue;
    flagged =
        r.verdict == Verdict::kRegression && r.note.find("backend's memory") != std::string::npos;
  }
  EXPECT_TRUE(flagged);

  f.run.benchmarks["a"].counters["mem.activation_bytes"] = 1 << 19;  // less: an improvement
  f.run.benchmarks["a"].counters["mem.workspace_bytes"] = 2048;
  EXPECT_EQ(f.Compare().ExitCode(), 0);
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

// No latency baseline for the class is a failure that says how to record one, never a silent
// pass through a skip; a skip only where the user allows it.
TEST(Comparator, OtherMachineClassIsNoBaselineWithTheCommand) {
  Fixture f;
  f.run.machine = Machine("Other CPU");
  f.run.benchmarks["a"] = Result({100, 100, 100, 100, 100, 100});
  const Comparison c = f.Compare();
  EXPECT_TRUE(c.no_baseline);
  EXPECT_EQ(c.ExitCode(), 1);
  EXPECT_NE(c.message.find("no baseline for this machine"), std::string::npos);
  EXPECT_NE(c.message.find("create one with: CMD"), std::string::npos);
  EXPECT_NE(c.Summary().find("a failure until there is one"), std::string::npos) << c.Summary();
  EXPECT_TRUE(Compare(nullptr, f.run, {}).no_baseline);
  CompareOptions allowed;
  allowed.allow_no_baseline = true;
  EXPECT_EQ(f.Compare(allowed).ExitCode(), kSkipReturnCode);
  EXPECT_EQ(Compare(nullptr, f.run, allowed).ExitCode(), kSkipReturnCode);
}

// The class is the hardware: a library upgrade on the same machine is judged against the class's
// baseline (a layer it slowed is a regression), and the verdict names the environment change.
TEST(Comparator, ALibraryUpgradeIsJudgedAgainstTheClassBaseline) {
  Fixture f;
  f.run.machine.libraries = "eigen=Eigen 3.4.0, onednn=oneDNN 3.0";
  ASSERT_EQ(f.run.machine.id(), f.baseline.machine.id()) << "the same hardware, the same class";
  f.run.benchmarks["a"] = Result({13.0, 13.1, 12.9, 13.05, 12.95, 13.0});  // 30% slower
  const Comparison c = f.Compare();
  EXPECT_FALSE(c.no_baseline);
  EXPECT_EQ(Latency(c).verdict, Verdict::kRegression);
  EXPECT_EQ(c.ExitCode(), 1);
  EXPECT_EQ(c.environment_change, "since the baseline: onednn oneDNN 3.0 built in since");
  EXPECT_NE(c.Summary().find("environment changed: since the baseline: onednn"), std::string::npos)
      << c.Summary();
  MachineClass before = f.baseline.machine, after = f.baseline.machine;
  before.libraries =
      "eigen=Eigen 3.4.0, onednn=oneDNN 2.6.2, OpenMP, opencl=OpenCL x (PoCL, "
      "driver 3.1)";
  after.libraries =
      "eigen=Eigen 3.4.0, onednn=oneDNN 2.6.3, OpenMP, opencl=OpenCL x (PoCL, "
      "driver 3.2)";
  after.build = "debug";
  EXPECT_EQ(EnvironmentChange(before, after),
            "since the baseline: onednn oneDNN 2.6.2 -> oneDNN 2.6.3; opencl OpenCL x (PoCL, "
            "driver 3.1) -> OpenCL x (PoCL, driver 3.2); build release -> debug");
  EXPECT_EQ(EnvironmentChange(before, before), "");
  // A driver no run used was not asked for its version: no change either way.
  MachineClass unstarted = before;
  unstarted.libraries = "eigen=Eigen 3.4.0, onednn=oneDNN 2.6.2, OpenMP, opencl=" +
                        std::string(MachineClass::kNotStarted);
  EXPECT_EQ(EnvironmentChange(before, unstarted), "");
  EXPECT_EQ(EnvironmentChange(unstarted, before), "");
  MachineClass other_isa = f.baseline.machine;
  other_isa.isa = "avx2";
  EXPECT_NE(other_isa.id(), f.baseline.machine.id()) << "other hardware, another class";
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
                        // nlohmann's value("schema", "") threw a type_error here
                        {"{\"schema\": 5}", "schema", "not an ntpbench baseline"},
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
  const std::string dir = testing::TestDir() + "/ntpb_baselines_" + std::to_string(getpid());
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
       "error_message": "skipped: no bf16"},
      {"name": "c", "run_name": "c", "run_type": "iteration", "real_time": 4, "time_unit": "ms",
       "scenario.kind": 1, "net.p99_ms": 30},
      {"name": "c", "run_name": "c", "run_type": "iteration", "real_time": 5, "time_unit": "ms",
       "scenario.kind": 1, "net.p99_ms": 35}
    ]})";
  const RunResults r = ParseRunResults(text, "run.json");
  ASSERT_TRUE(r.has_machine);
  EXPECT_EQ(r.machine.id(), Machine().id());
  EXPECT_EQ(r.benchmarks.at("a/real_time").real_time_ms, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(r.benchmarks.at("a/real_time").analytic.at("net.flops"), 1000);
  EXPECT_EQ(r.benchmarks.at("b").skipped, "skipped: no bf16");
  EXPECT_TRUE(r.benchmarks.at("a/real_time").p99_ms.empty()) << "single-stream: no p99 judged";
  EXPECT_EQ(r.benchmarks.at("c").p99_ms, (std::vector<double>{30, 35})) << "a scenario's p99s";
  EXPECT_EQ(r.peak_rss_bytes, 7);
  EXPECT_THROW(ParseRunResults("{\"benchmarks\": 3}", "x.json"), Error);
  EXPECT_THROW(ParseRunResults("{\"benchm", "x.json"), Error);
}

// Integers read from a file are JSON integers in range: a machine class with "cores": 1.1e50
// was cast to int (undefined behaviour; found by fuzz.run in the fresh-root check), a peaks
// file's cache size likewise. Each is one error naming the field.
TEST(RunResults, NumbersOutOfRangeAreRefusedNotCast) {
  auto run_with = [](const std::string& machine_json) {
    nlohmann::json doc = {{"context", {{"ntpbench_machine_json", machine_json}}},
                          {"benchmarks", nlohmann::json::array()}};
    return doc.dump();
  };
  const std::string good =
      R"({"build":"release","cores":2,"cpu":"Test CPU","hardware_counters":false,)"
      R"("isa":"avx512f","libraries":"eigen=Eigen 3.4.0"})";
  EXPECT_TRUE(ParseRunResults(run_with(good), "run.json").has_machine);
  for (const char* cores : {"1.11111e+50", "-3", "2.5", "4294967298"}) {
    std::string bad = good;
    bad.replace(bad.find("\"cores\":2"), 9, std::string("\"cores\":") + cores);
    try {
      ParseRunResults(run_with(bad), "run.json");
      ADD_FAILURE() << "cores " << cores << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), "machine_class.cores") << e.what();
    }
  }
  EXPECT_EQ(JsonInteger<int>(nlohmann::json(1e50)), std::nullopt);
  EXPECT_EQ(JsonInteger<int>(nlohmann::json(int64_t{1} << 40)), std::nullopt);
  EXPECT_EQ(JsonInteger<int64_t>(nlohmann::json(UINT64_MAX)), std::nullopt);
  EXPECT_EQ(JsonInteger<int>(nlohmann::json(-7)), -7);
  EXPECT_EQ(JsonInteger<uint32_t>(nlohmann::json(-7)), std::nullopt);
}

// A sweep results file whose "machine" is a number: nlohmann's value("machine", "") threw a
// type_error that no reader caught, an internal error (found by fuzz.sweep in the fresh-root
// check). Now one error naming the field.
TEST(SweepResultsFile, AFieldOfTheWrongTypeIsAnErrorNamingIt) {
  nlohmann::json doc = {{"format", "ntpbench-sweep-results"},
                        {"version", 1},
                        {"sweep", nlohmann::json::object()},
                        {"machine", "Test CPU"},
                        {"points", nlohmann::json::array()}};
  EXPECT_EQ(ParseSweepResults(doc.dump(), "s.json").machine, "Test CPU");
  doc["machine"] = 1;
  try {
    ParseSweepResults(doc.dump(), "s.json");
    ADD_FAILURE() << "a machine of 1 was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "machine") << e.what();
  }
}

}  // namespace
}  // namespace ntpb

namespace ntpb {
namespace {

// The machine-independent signature: judged exactly on every machine, with or without a
// latency baseline for the machine class.
struct SignatureFixture {
  RunResults run;
  SignatureFixture() {
    run.machine = Machine("A CPU nobody recorded");
    run.has_machine = true;
    BenchmarkResult r = Result(kBase);
    r.config = {{"params", {{"n_hidden", 1024}}},
                {"seed", 42},
                {"threads", 2},
                {"threads_set", false},
                {"topology", "/somewhere/mlp.json"},
                {"backend_options", nlohmann::json::object()},
                {"portable_memory_plan", true}};
    run.benchmarks["mlp/eigen/f32/batch:1/real_time"] = r;
  }
  Signature Stored() const { return SignatureOf(run, "s"); }
};

TEST(Signature, LeavesOutWhatFollowsTheMachine) {
  SignatureFixture f;
  const Signature stored = f.Stored();
  const SignatureEntry& e = stored.benchmarks.at("mlp/eigen/f32/batch:1/real_time");
  EXPECT_FALSE(e.config.contains("threads")) << "threads default to the machine's cores";
  EXPECT_FALSE(e.config.contains("topology")) << "a path says where, not what";
  EXPECT_EQ(e.config["params"]["n_hidden"], 1024);
  EXPECT_EQ(e.metrics.at("net.flops"), 1000);
  EXPECT_EQ(e.metrics.at("net.allocs"), 0) << "a portable memory plan is part of it";
  f.run.benchmarks.begin()->second.config["portable_memory_plan"] = false;
  EXPECT_FALSE(f.Stored().benchmarks.begin()->second.metrics.count("net.allocs"));
}

TEST(Signature, JudgedOnAMachineClassWithoutABaselineAndFailsOnAGrownLayer) {
  SignatureFixture f;
  const Signature stored = f.Stored();
  CompareOptions signature_only;
  signature_only.judge = Judge::kSignature;
  Comparison same = Compare(nullptr, f.run, signature_only, "CMD", &stored);
  EXPECT_TRUE(same.signature_judged);
  EXPECT_EQ(same.ExitCode(), 0) << cli::ComparisonTable(same);
  EXPECT_NE(cli::ComparisonTable(same).find("judged:     the machine-independent signature of 1"),
            std::string::npos)
      << cli::ComparisonTable(same);

  f.run.benchmarks.begin()->second.analytic["net.flops"] = 1100;  // a wider layer
  const Comparison grown = Compare(nullptr, f.run, signature_only, "CMD", &stored);
  EXPECT_EQ(grown.ExitCode(), 1) << cli::ComparisonTable(grown);
  bool flagged = false;
  for (const ComparisonRow& r : grown.rows) {
    flagged |= r.metric == "net.flops" && r.verdict == Verdict::kChanged;
  }
  EXPECT_TRUE(flagged) << cli::ComparisonTable(grown);

  // Judging everything on a machine class with no latency baseline: the signature fails the
  // same way, and the output says what was not judged.
  const Comparison all = Compare(nullptr, f.run, {}, "CMD", &stored);
  EXPECT_EQ(all.ExitCode(), 1);
  EXPECT_NE(
      cli::ComparisonTable(all).find("not judged: latency: no baseline for this machine class"),
      std::string::npos)
      << cli::ComparisonTable(all);
}

TEST(Signature, AnotherConfigurationIsNotTheSameBenchmark) {
  SignatureFixture f;
  const Signature stored = f.Stored();
  f.run.benchmarks.begin()->second.config["params"]["n_hidden"] = 512;
  CompareOptions o;
  o.judge = Judge::kSignature;
  const Comparison c = Compare(nullptr, f.run, o, "CMD", &stored);
  EXPECT_EQ(c.ExitCode(), 1);
  bool config_row = false;
  for (const ComparisonRow& r : c.rows) {
    config_row |=
        r.metric == "config" && r.note.find("params.n_hidden 1024 -> 512") != std::string::npos;
  }
  EXPECT_TRUE(config_row) << cli::ComparisonTable(c);
}

TEST(Signature, NothingToJudgeIsNotAPass) {
  SignatureFixture f;
  CompareOptions o;
  o.judge = Judge::kSignature;
  const Comparison none = Compare(nullptr, f.run, o, "CMD", nullptr);
  EXPECT_EQ(none.ExitCode(), kSkipReturnCode);
  EXPECT_NE(cli::ComparisonTable(none).find("NOT JUDGED"), std::string::npos)
      << cli::ComparisonTable(none);
  EXPECT_NE(cli::ComparisonTable(none).find("create one with: CMD"), std::string::npos)
      << cli::ComparisonTable(none);
  // No latency baseline either: a failure unless allowed, then not judged; never a pass.
  const Comparison latency = Compare(nullptr, f.run, {}, "CMD", nullptr);
  EXPECT_EQ(latency.ExitCode(), 1);
  EXPECT_NE(cli::ComparisonTable(latency).find("verdict: FAIL"), std::string::npos)
      << cli::ComparisonTable(latency);
  CompareOptions allowed;
  allowed.allow_no_baseline = true;
  const Comparison skipped = Compare(nullptr, f.run, allowed, "CMD", nullptr);
  EXPECT_EQ(skipped.ExitCode(), kSkipReturnCode);
  EXPECT_NE(cli::ComparisonTable(skipped).find("NOT JUDGED"), std::string::npos)
      << cli::ComparisonTable(skipped);
}

TEST(Signature, RoundTripsAndDiffs) {
  SignatureFixture f;
  Signature a = f.Stored();
  const Signature back = ParseSignature(SerializeSignature(a), "sig.json");
  EXPECT_TRUE(SignatureDiff(a, back).empty());
  EXPECT_EQ(back.benchmarks.at("mlp/eigen/f32/batch:1/real_time").metrics,
            a.benchmarks.begin()->second.metrics);
  Signature b = a;
  b.benchmarks.begin()->second.metrics["net.flops"] = 2000;
  const std::vector<std::string> diff = SignatureDiff(a, b);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_NE(diff[0].find("net.flops 1000 -> 2000"), std::string::npos) << diff[0];
  Signature c = a;
  c.benchmarks.begin()->second.metrics.erase("net.flops");
  const std::vector<std::string> removed = SignatureDiff(a, c);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_NE(removed[0].find("net.flops 1000 (removed metric)"), std::string::npos) << removed[0];
  EXPECT_THROW(ParseSignature("{\"schema\": \"ntpbench-baseline\"}", "x.json"), Error);
  EXPECT_THROW(ParseSignature("{\"schema\": [1]}", "x.json"), Error);
  EXPECT_THROW(ParseSignature("{\"schema\": \"ntpbench-signature\", \"ver", "x.json"), Error);
}

// The second look: only doubtful latency rows are measured again, and take that verdict while
// noting the first; without doubt nothing is measured again.
TEST(Confirmation, OnlyDoubtfulLatencyIsMeasuredAgainAndTakesTheSecondVerdict) {
  Comparison first;
  first.rows = {{"a", "latency_ms", 1.0, 1.3, 0.3, 0.01, Verdict::kRegression, ""},
                {"b", "latency_ms", 1.0, 1.0, 0.0, 0.9, Verdict::kUnchanged, ""},
                {"a", "net.flops", 10, 10, 0, -1, Verdict::kUnchanged, ""}};
  std::set<std::string> asked;
  const Comparison out = Confirm(first, [&](const std::set<std::string>& names) {
    asked = names;
    Comparison second;
    second.rows = {{"a", "latency_ms", 1.0, 1.01, 0.01, 0.6, Verdict::kUnchanged, "noise"}};
    return second;
  });
  EXPECT_EQ(asked, (std::set<std::string>{"a"}));
  ASSERT_EQ(out.rows.size(), 3u);
  EXPECT_EQ(out.rows[0].verdict, Verdict::kUnchanged);
  EXPECT_EQ(out.rows[0].note, "noise [first run REGRESSION at +30.0%]");
  EXPECT_EQ(out.rows[1].verdict, Verdict::kUnchanged);
  EXPECT_EQ(out.rows[2].metric, "net.flops");
  bool called = false;
  Confirm(Comparison{}, [&](const std::set<std::string>&) {
    called = true;
    return Comparison{};
  });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace ntpb
