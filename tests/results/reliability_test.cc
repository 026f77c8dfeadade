// Whether a measurement can be trusted: the judgement of what the machine did while it ran,
// its thresholds and what it says, and the spread of repetitions (nanobench's MdAPE rule).
#include "ntpbench/reliability.h"

#include <gtest/gtest.h>

#include "src/common/statistics.h"

namespace ntpb {
namespace {

InterferenceMeasure Quiet() {
  InterferenceMeasure m;
  m.seconds = 3;
  m.involuntary_switches = 0.04;
  m.involuntary_switches_per_core_second = 16;  // what a quiet 2-core VM showed
  m.others_share = 0.005;
  m.mdape = 0.02;
  return m;
}

TEST(Reliability, MdapeIsTheMedianDeviationFromTheMedian) {
  EXPECT_EQ(Mdape({}), 0);
  EXPECT_EQ(Mdape({5}), 0);
  // Median 10; deviations 0, 0.1, 0.1, 0.5 (the outlier does not move it), 0 -> median 0.1.
  EXPECT_NEAR(Mdape({10, 11, 9, 15, 10}), 0.1, 1e-12);
  // Median 10.2; deviations 0.2, 0.8, 1.2, 4.8, 0 over 10.2 -> median 0.8 / 10.2.
  EXPECT_NEAR(Mdape({10, 11, 9, 15, 10.2}), 0.8 / 10.2, 1e-12);
  EXPECT_NEAR(Mdape({2, 2, 2, 2}), 0, 1e-12);
  EXPECT_EQ(Mdape({0, 0, 0}), 0) << "a zero median has no relative spread";
}

TEST(Reliability, AQuietMachineIsReliable) {
  const Reliability r = JudgeInterference(Quiet());
  EXPECT_TRUE(r.reliable);
  EXPECT_EQ(r.Verdict(), "");
}

TEST(Reliability, ABusyNeighbourIsSeenAndSaid) {
  // What beside `stress-ng --cpu 2` on the same 2 cores was measured.
  InterferenceMeasure m = Quiet();
  m.others_share = 0.50;
  m.involuntary_switches_per_core_second = 127;
  m.involuntary_switches = 1.2;
  m.mdape = 0.12;
  const Reliability r = JudgeInterference(m);
  EXPECT_FALSE(r.reliable);
  EXPECT_TRUE(r.busy);
  EXPECT_EQ(r.Verdict(),
            "unreliable: the machine was busy (other processes took 50% of the cores' time, 127 "
            "involuntary context switches per core-second (1.2 per iteration or query))");
}

TEST(Reliability, EachLimitAloneMarksARun) {
  InterferenceMeasure others = Quiet(), steal = Quiet(), switches = Quiet();
  others.others_share = 0.11;
  steal.steal_share = 0.06;
  switches.involuntary_switches_per_core_second = 51;  // over 3 s: 153 per core
  switches.others_share = 0.03;  // a small neighbour, preempting the run's threads
  for (const InterferenceMeasure& m : {others, steal, switches}) {
    const Reliability r = JudgeInterference(m);
    EXPECT_FALSE(r.reliable);
    EXPECT_TRUE(r.busy);
  }
  EXPECT_NE(JudgeInterference(steal).seen.find("hypervisor took 6% (steal)"), std::string::npos);
  // Switches with nothing else running are the process's own threads preempting each other
  // (PoCL's pool beside the host thread): no neighbour.
  InterferenceMeasure own_threads = Quiet();
  own_threads.involuntary_switches_per_core_second = 4400;
  own_threads.involuntary_switches = 4.7;
  own_threads.others_share = 0.0;
  EXPECT_TRUE(JudgeInterference(own_threads).reliable);
  // A short measurement's few start-up switches make no rate: 70 per core-second over 0.2 s.
  InterferenceMeasure short_run = Quiet();
  short_run.seconds = 0.2;
  short_run.involuntary_switches_per_core_second = 70;
  EXPECT_TRUE(JudgeInterference(short_run).reliable);
  // Shares come in 10 ms clock ticks: over a few milliseconds one tick reads as 100%. Not judged
  // below a quarter second; from there on they are.
  InterferenceMeasure blink = Quiet();
  blink.seconds = 0.003;
  blink.others_share = 1.0;
  blink.steal_share = 1.0;
  EXPECT_TRUE(JudgeInterference(blink).reliable);
  blink.seconds = 0.25;
  EXPECT_FALSE(JudgeInterference(blink).reliable);
  // The iterations' spread is recorded, not judged (single iterations move 1-9% when quiet).
  InterferenceMeasure spread = Quiet();
  spread.mdape = 0.09;
  EXPECT_TRUE(JudgeInterference(spread).reliable);
  // At the limits: still reliable.
  InterferenceMeasure edge = Quiet();
  edge.others_share = 0.10;
  edge.steal_share = 0.05;
  edge.involuntary_switches_per_core_second = 50;
  EXPECT_TRUE(JudgeInterference(edge).reliable);
  // Limits are the caller's to choose.
  ReliabilityLimits strict;
  strict.others_share = 0.001;
  EXPECT_FALSE(JudgeInterference(Quiet(), strict).reliable);
}

BenchmarkResult WithRepetitions(const std::vector<InterferenceMeasure>& measures,
                                std::vector<double> times) {
  BenchmarkResult b;
  b.real_time_ms = std::move(times);
  for (const InterferenceMeasure& i : measures) {
    RunMeasurement m;
    m.interference = i;
    std::map<std::string, double>& counters = b.repetitions.emplace_back();
    for (const EncodedCounter& c : EncodeCounters(m)) counters[c.name] = c.value;
  }
  return b;
}

TEST(Reliability, ABenchmarkIsUnreliableWhenAnyRepetitionWasDisturbed) {
  InterferenceMeasure busy = Quiet();
  busy.others_share = 0.4;
  const BenchmarkResult quiet = WithRepetitions({Quiet(), Quiet(), Quiet()}, {10, 10.1, 9.9});
  EXPECT_TRUE(JudgeBenchmark(quiet).reliable);
  const BenchmarkResult one_busy = WithRepetitions({Quiet(), busy, Quiet()}, {10, 10.1, 9.9});
  const Reliability r = JudgeBenchmark(one_busy);
  EXPECT_FALSE(r.reliable);
  EXPECT_NE(r.Verdict().find("other processes took 40%"), std::string::npos) << r.Verdict();
}

TEST(Reliability, RepetitionsThatSpreadAreUnreliableFromThreeOn) {
  // Quiet each time, yet the repetitions' times spread 10%: the machine moved between them.
  const BenchmarkResult spread = WithRepetitions({Quiet(), Quiet(), Quiet()}, {10, 11, 9, 10, 12});
  const Reliability r = JudgeBenchmark(spread);
  EXPECT_FALSE(r.reliable);
  EXPECT_EQ(r.Verdict(), "unreliable: its repetitions spread 10.0% (MdAPE over 5%)");
  // Two repetitions have no spread to judge.
  EXPECT_TRUE(JudgeBenchmark(WithRepetitions({Quiet(), Quiet()}, {10, 13})).reliable);
  // A busy repetition says more than a spread: it is what is reported.
  InterferenceMeasure busy = Quiet();
  busy.steal_share = 0.2;
  const Reliability both = JudgeBenchmark(WithRepetitions({Quiet(), busy, Quiet()}, {10, 11, 9}));
  EXPECT_TRUE(both.busy);
  // Runs recorded before interference was measured: their spread alone.
  BenchmarkResult old;
  old.real_time_ms = {10, 10.1, 9.95};
  EXPECT_TRUE(JudgeBenchmark(old).reliable);
  old.skipped = "skipped: no oneDNN";
  old.real_time_ms = {1, 5, 9};
  EXPECT_TRUE(JudgeBenchmark(old).reliable) << "a skipped benchmark has nothing to judge";
}

}  // namespace
}  // namespace ntpb
