// The batching decision's table: the Pareto front of throughput against p99 on hand-made runs,
// and a scenario's numbers through the results codec.
#include <gtest/gtest.h>

#include <algorithm>

#include "ntpbench/results.h"
#include "ntpbench/scenario_report.h"

namespace ntpb {
namespace {

ScenarioRun Row(const std::string& name, int streams, int64_t batch, double samples_per_second,
                double p99_ms) {
  ScenarioRun r;
  r.name = name;
  r.measured.setup.batch = batch;
  r.measured.net.samples_per_second = samples_per_second;
  r.measured.net.p99_ms = p99_ms;
  ScenarioMeasure s;
  s.kind = ScenarioKind::kOffline;
  s.streams = streams;
  s.threads_per_stream = 2 / streams;
  s.queries = 1000;
  s.queries_needed = 1000;
  s.achieved_qps = samples_per_second / static_cast<double>(batch);
  r.measured.scenario = s;
  return r;
}

TEST(ScenarioTable, MarksTheParetoFrontOfThroughputAgainstP99) {
  const std::vector<ScenarioRun> runs = {
      Row("a", 1, 1, 100, 10),  // front: the lowest p99
      Row("b", 1, 4, 300, 20),  // front
      Row("c", 2, 2, 250, 25),  // dominated by b (more samples/s, lower p99)
      Row("d", 2, 4, 400, 40),  // front: the highest throughput
      Row("e", 2, 1, 100, 12),  // dominated by a (same throughput, lower p99)
      Row("f", 1, 2, 300, 20),  // equal to b: neither dominates the other
      Row("g", 1, 1, 900, 2),   // another precision: a front of its own, dominating nothing
  };
  std::vector<ScenarioRun> with_i8 = runs;
  with_i8.back().measured.setup.precision = "i8";
  EXPECT_EQ(ParetoFront(with_i8), (std::vector<bool>{true, true, false, true, false, true, true}));
  const std::vector<bool> one_precision = ParetoFront(runs);
  EXPECT_TRUE(one_precision.back());
  EXPECT_EQ(std::count(one_precision.begin(), one_precision.end(), true), 1)
      << "one precision: g dominates the rest";
  const std::string table = RenderScenarioTable(with_i8);
  EXPECT_NE(table.find("samples/s"), std::string::npos) << table;
  EXPECT_NE(table.find("2x1t"), std::string::npos) << table;
  EXPECT_EQ(table.find("of 1000"), std::string::npos) << "every row had its queries: " << table;
}

TEST(ScenarioTable, SaysWhenAP99HadTooFewQueriesAndWhatTheSearchFound) {
  ScenarioRun short_run = Row("slow", 1, 1, 5, 300);
  short_run.measured.scenario->queries = 40;
  ScenarioRun searched = Row("search", 2, 1, 50, 45);
  searched.measured.scenario->kind = ScenarioKind::kServer;
  searched.measured.scenario->p99_bound_ms = 50;
  searched.measured.scenario->max_qps = 48.5;
  const std::string table = RenderScenarioTable({short_run, searched});
  EXPECT_NE(table.find("40 of 1000"), std::string::npos) << table;
  EXPECT_NE(table.find("search: at most 48.5 queries/s keep p99 <= 50 ms"), std::string::npos)
      << table;
}

TEST(ScenarioTable, AScenarioSurvivesTheCounterCodec) {
  RunMeasurement m = Row("x", 2, 4, 400, 40).measured;
  m.scenario->kind = ScenarioKind::kServer;
  m.scenario->target_qps = 90;
  m.scenario->p99_bound_ms = 50;
  m.scenario->max_qps = 90;
  m.scenario->samples_per_query = 4;
  std::map<std::string, double> counters;
  for (const EncodedCounter& c : EncodeCounters(m)) counters[c.name] = c.value;
  EXPECT_EQ(counters.at("scenario.streams"), 2);
  const RunMeasurement back = DecodeCounters(counters);
  ASSERT_TRUE(back.scenario.has_value());
  EXPECT_EQ(back.scenario->kind, ScenarioKind::kServer);
  EXPECT_EQ(back.scenario->streams, 2);
  EXPECT_EQ(back.scenario->threads_per_stream, 1);
  EXPECT_EQ(back.scenario->queries, 1000);
  EXPECT_EQ(back.scenario->target_qps, 90);
  EXPECT_EQ(back.scenario->max_qps, 90);
  EXPECT_EQ(back.scenario->samples_per_query, 4);
  EXPECT_TRUE(back.other.empty());
  // A single-stream run has none.
  RunMeasurement plain;
  std::map<std::string, double> plain_counters;
  for (const EncodedCounter& c : EncodeCounters(plain)) plain_counters[c.name] = c.value;
  EXPECT_FALSE(DecodeCounters(plain_counters).scenario.has_value());
}

// A generation's row: what was asked, the times, the rates, the caches, and the requests short
// of a TPOT p99.
TEST(GenerationTable, ShowsTtftTpotRatesAndTheCaches) {
  ScenarioRun r;
  r.name = "gpt2/onednn/f32/gen:64/prompt:128/generate/streams:1/batch:1/iterations:1/manual_time";
  r.measured.setup = {"gpt2", "onednn", "f32", 1};
  ScenarioMeasure& s = r.measured.scenario.emplace();
  s.kind = ScenarioKind::kGenerate;
  s.prompt_tokens = 128;
  s.gen_tokens = 64;
  s.ttft_p50_ms = 77.68;
  s.tpot_p50_ms = 11.4;
  s.tpot_p90_ms = 12.65;
  s.tpot_p99_ms = 22.04;
  s.prefill_tokens_per_s = 1624.7;
  s.decode_tokens_per_s = 84.1;
  s.tokens_per_s = 228.7;
  s.kv_cache_bytes = 13.5 * 1024 * 1024;
  s.queries = 12;
  s.queries_needed = 16;
  ScenarioRun offline = Row("mlp/eigen/f32/offline/streams:1/batch:1", 1, 1, 10, 5);
  const std::string table = RenderGenerationTable({r, offline});
  EXPECT_NE(table.find("benchmarks gpt2/onednn/f32/gen:64/prompt:128/..."), std::string::npos)
      << table;
  EXPECT_NE(table.find("\nonednn/f32      1     128   64    77.68     11.40  12.65   22.04     "
                       "1624.7      84.1     228.7  13.50 MiB  12 of 16\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("mlp"), std::string::npos) << "an offline run is not a generation";
  EXPECT_NE(table.find("a TPOT p99 needs M requests"), std::string::npos) << table;
}

// The phases side by side: each step's time, share and bound per phase, the totals, and the
// memory traffic of a decode step against the machine's read bandwidth.
TEST(PhaseTable, SetsThePrefillBesideADecodeStep) {
  RunMeasurement m;
  auto step = [](const char* name, double ms, double roof, const char* bound, double bytes) {
    StepMeasure s;
    s.name = name;
    s.op = "dense";
    s.measure.ms = ms;
    s.roof_ms = roof;
    s.bound = bound;
    s.cost.weight_traffic_bytes = bytes;
    return s;
  };
  m.phases.push_back(
      {"prefill",
       10,
       {step("fc1", 3.0, 2.0, "compute", 0), step("lm_head", 1.0, 0.5, "memory", 0)}});
  m.phases.push_back(
      {"decode",
       640,
       {step("fc1", 0.5, 0.25, "memory", 20e6), step("lm_head", 1.5, 1.0, "memory", 60e6)}});
  const std::string table = RenderPhaseTable(m, 100);
  EXPECT_NE(table.find("fc1      dense       3.000  75.0%    2.000  compute      0.500  25.0%    "
                       "0.250  memory"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("total                4.000"), std::string::npos) << table;
  EXPECT_NE(table.find("(10 measured)"), std::string::npos) << table;
  EXPECT_NE(table.find("(640 measured)"), std::string::npos) << table;
  // 80 MB in 2 ms: 40 GB/s, 40% of 100.
  EXPECT_NE(table.find("40.0 GB/s, 40% of the 100.0 GB/s DRAM read `ntpbench machine` cached"),
            std::string::npos)
      << table;
  m.phases.pop_back();
  EXPECT_EQ(RenderPhaseTable(m, 100), "") << "one phase alone: nothing to set beside";
}

// An asynchronous backend's step wall times are where it enqueued them (its whole run lands on
// the step that waits): where the device timed a step, the table shows that time; a host step
// (a hetero run's CPU part) its wall time.
TEST(PhaseTable, ShowsTheDevicesOwnStepTimesWhereItMeasuredThem) {
  RunMeasurement m;
  auto step = [](const char* name, double ms, double device_ms) {
    StepMeasure s;
    s.name = name;
    s.op = "dense";
    s.measure.ms = ms;
    s.measure.device_ms = device_ms;
    s.cost.weight_traffic_bytes = 10e6;
    return s;
  };
  m.phases.push_back(
      {"prefill", 4, {step("fc1", 0.02, 3.0), step("on_host", 0.5, 0), step("to_host", 9.0, 0.5)}});
  m.phases.push_back(
      {"decode",
       64,
       {step("fc1", 0.02, 0.15), step("on_host", 0.05, 0), step("to_host", 0.9, 0.05)}});
  const std::string table = RenderPhaseTable(m, 100);
  EXPECT_NE(table.find("fc1      dense       3.000  75.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("on_host  dense       0.500  12.5%"), std::string::npos) << table;
  EXPECT_NE(table.find("total                4.000"), std::string::npos) << table;
  // 30 MB in 0.25 ms: 120 GB/s.
  EXPECT_NE(table.find("120.0 GB/s, 120% of the 100.0 GB/s"), std::string::npos) << table;
  EXPECT_NE(table.find("ms: a step the device ran, its own time there"), std::string::npos)
      << table;
}

}  // namespace
}  // namespace ntpb
