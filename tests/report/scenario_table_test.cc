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

}  // namespace
}  // namespace ntpb
