// The load generator on fake executors with known service times: the arrival process, the
// percentile maths, the runners' accounting, and the max-QPS search.
#include "src/bench/load_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numeric>
#include <set>
#include <thread>

#include "ntpbench/error.h"
#include "ntpbench/scenario.h"
#include "src/common/statistics.h"

namespace ntpb::bench {
namespace {

TEST(LoadGenerator, PercentilesAreNearestRank) {
  std::vector<double> v(100);
  std::iota(v.begin(), v.end(), 1.0);  // 1..100
  EXPECT_EQ(Percentile(v, 50), 50);
  EXPECT_EQ(Percentile(v, 99), 99);
  EXPECT_EQ(Percentile(v, 100), 100);
  EXPECT_EQ(Percentile({7, 3, 5}, 50), 5);
  EXPECT_EQ(Percentile({4}, 99), 4);
  EXPECT_EQ(Percentile({}, 99), 0);
  // 1000 values: the p99 is the 990th smallest.
  std::vector<double> thousand(1000);
  std::iota(thousand.begin(), thousand.end(), 1.0);
  std::reverse(thousand.begin(), thousand.end());
  EXPECT_EQ(Percentile(thousand, 99), 990);
}

TEST(LoadGenerator, APercentileNeedsTenQueriesAboveIt) {
  EXPECT_EQ(QueriesForPercentile(99), 1000);
  EXPECT_EQ(QueriesForPercentile(90), 100);
  EXPECT_EQ(QueriesForPercentile(50), 20);
  EXPECT_EQ(QueriesForPercentile(99.9), 10000);
}

TEST(LoadGenerator, PoissonArrivalsHaveTheRateAndRepeatWithTheSeed) {
  const double rate = 200;
  const std::vector<double> a = PoissonArrivals(rate, 20000, 7);
  ASSERT_EQ(a.size(), 20000u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_GT(a.front(), 0);
  // Mean gap 1/rate within 3% (the standard error over 20000 gaps is 0.7%).
  EXPECT_NEAR(a.back() / a.size(), 1 / rate, 0.03 / rate);
  // Exponential gaps: their standard deviation equals their mean.
  std::vector<double> gaps(a.size());
  std::adjacent_difference(a.begin(), a.end(), gaps.begin());
  const double mean = a.back() / a.size();
  double var = 0;
  for (double g : gaps) var += (g - mean) * (g - mean);
  EXPECT_NEAR(std::sqrt(var / gaps.size()), mean, 0.05 * mean);
  EXPECT_EQ(PoissonArrivals(rate, 100, 7), std::vector<double>(a.begin(), a.begin() + 100));
  EXPECT_NE(PoissonArrivals(rate, 100, 8), std::vector<double>(a.begin(), a.begin() + 100));
}

// A fake stream that takes `ms` per query (sleeping: it needs no core) and counts what each
// stream served, whether two queries ever overlapped on one stream, and how many streams were
// busy at once at most.
struct FakeStreams {
  explicit FakeStreams(int streams, double ms) : ms(ms), served(streams), busy(streams) {}
  void operator()(int s) {
    if (busy[s].exchange(true)) overlapped = true;
    const int now = ++active;
    for (int seen = max_active; now > seen && !max_active.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
    --active;
    busy[s] = false;
    ++served[s];
  }
  double ms;
  std::vector<std::atomic<int>> served;
  std::vector<std::atomic<bool>> busy;
  std::atomic<bool> overlapped{false};
  std::atomic<int> active{0}, max_active{0};
};

TEST(LoadGenerator, OfflineRunsEveryStreamAtOnce) {
  FakeStreams fake(2, 5);
  const LoadResult r = RunOffline(2, 10, std::ref(fake));
  EXPECT_EQ(r.queries, 20);
  EXPECT_EQ(fake.served[0], 10);
  EXPECT_EQ(fake.served[1], 10);
  EXPECT_FALSE(fake.overlapped);
  ASSERT_EQ(r.latencies_s.size(), 20u);
  for (double l : r.latencies_s) EXPECT_GE(l, 0.005);
  EXPECT_GE(r.wall_s, 0.050);
  EXPECT_EQ(fake.max_active, 2) << "the streams ran at once, not one after the other";
}

TEST(LoadGenerator, ServerLatencyCountsTheWaitFromArrival) {
  // Ten queries arriving at once on one stream of 5 ms: the k-th waits for k-1 before it.
  FakeStreams fake(1, 5);
  const LoadResult r = RunServer(1, std::vector<double>(10, 0.001), std::ref(fake));
  ASSERT_EQ(r.queries, 10);
  std::vector<double> sorted = r.latencies_s;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k) EXPECT_GE(sorted[k], 0.005 * (k + 1)) << k;
  // Two streams take them two at a time.
  FakeStreams two(2, 5);
  const LoadResult r2 = RunServer(2, std::vector<double>(10, 0.001), std::ref(two));
  EXPECT_EQ(two.served[0] + two.served[1], 10);
  EXPECT_FALSE(two.overlapped);
  EXPECT_EQ(two.max_active, 2);
  EXPECT_EQ(r2.latencies_s.size(), 10u);
}

TEST(LoadGenerator, RunnersStartNoQueryAfterTheTimeLimit) {
  FakeStreams fake(1, 20);
  const LoadResult offline = RunOffline(1, 1000, std::ref(fake), 0.05);
  // Queries start at 0, >= 20 and >= 40 ms: at most 3 before 50 ms.
  EXPECT_GE(offline.queries, 1);
  EXPECT_LE(offline.queries, 3);
  EXPECT_EQ(offline.latencies_s.size(), static_cast<size_t>(offline.queries));
  const LoadResult server = RunServer(1, {0.01, 0.02, 5.0, 6.0}, std::ref(fake), 0.1);
  EXPECT_EQ(server.queries, 2);  // the arrivals at 5 s and 6 s come after the limit
  EXPECT_EQ(server.latencies_s.size(), 2u);
}

TEST(LoadGenerator, MultiStreamWaitsForEveryStreamOfAQuery) {
  FakeStreams fake(3, 4);
  const LoadResult r = RunMultiStream(3, 5, std::ref(fake));
  EXPECT_EQ(r.queries, 5);
  for (int s = 0; s < 3; ++s) EXPECT_EQ(fake.served[s], 5) << s;
  EXPECT_EQ(fake.max_active, 3);
  for (double l : r.latencies_s) EXPECT_GE(l, 0.004);
  EXPECT_GE(r.wall_s, 5 * 0.004);
}

// A deterministic server: one stream with service time `service_s`, arrivals every 1/rate; the
// p99 grows without bound once the rate passes 1/service_s. Exercises the search alone.
LoadResult SimulatedServer(double rate, double service_s) {
  LoadResult r;
  double free_at = 0;
  for (int q = 0; q < 1000; ++q) {
    const double arrival = q / rate;
    const double start = std::max(arrival, free_at);
    free_at = start + service_s;
    r.latencies_s.push_back(free_at - arrival);
  }
  r.wall_s = free_at;
  r.queries = 1000;
  return r;
}

TEST(LoadGenerator, MaxQpsSearchFindsTheRateWhereTheBoundBreaks) {
  // 10 ms per query: below 100 queries/s every query takes 10 ms; above, the queue grows.
  const auto run_at = [](double rate) { return SimulatedServer(rate, 0.010); };
  const MaxQpsSearch found = FindMaxQps(run_at, 0.050, 5, 200, 10);
  // Over 1000 queries the queue at rate r > 100 adds 990 (10 ms - 1/r) by the p99: the bound
  // holds up to 1 / (10 ms - 40 ms / 990) = 100.408 queries/s. Ten halvings of [5, 200] find it
  // within 0.19.
  const double threshold = 1 / (0.010 - 0.040 / 990);
  EXPECT_LE(found.max_qps, threshold);
  EXPECT_GT(found.max_qps, threshold - 195.0 / 1024);
  EXPECT_LE(found.p99_s, 0.050);
  EXPECT_EQ(found.steps.size(), 12u);  // the bracket's two ends, then 10 halvings
  EXPECT_EQ(found.result.queries, 1000);
  // A bound no rate meets: nothing found, the low end's measurement kept.
  const MaxQpsSearch none = FindMaxQps(run_at, 0.005, 5, 200, 10);
  EXPECT_EQ(none.max_qps, 0);
  EXPECT_EQ(none.steps.size(), 1u);
  EXPECT_NEAR(Percentile(none.result.latencies_s, 99), 0.010, 1e-12);
  // A bracket whose top meets it: the top.
  EXPECT_EQ(FindMaxQps(run_at, 0.050, 5, 50, 10).max_qps, 50);
}

// A query that throws on any stream (an OpenCL error, memory running out) stops the streams and
// comes back on the calling thread once all have joined: before, an exception in a stream thread
// ended the process with std::terminate (SIGABRT in a 2-stream offline run).
TEST(LoadGenerator, AQueryThatThrowsOnAnyStreamComesBackAsItsException) {
  for (const int failing : {0, 1}) {
    std::atomic<int> served{0};
    const ServeQuery serve = [&](int stream) {
      if (++served > 5 && stream == failing) throw Error("", "", "", "stream failed");
    };
    EXPECT_THROW(RunOffline(2, 100, serve), Error) << "offline, stream " << failing;
    served = 0;
    EXPECT_THROW(RunMultiStream(2, 100, serve), Error) << "multi-stream, stream " << failing;
    served = 0;
    std::vector<double> arrivals(100);
    for (size_t i = 0; i < arrivals.size(); ++i) arrivals[i] = 0.0005 * static_cast<double>(i);
    EXPECT_THROW(RunServer(2, arrivals, serve), Error) << "server, stream " << failing;
  }
  const LoadResult fine = RunOffline(2, 10, [](int) {});
  EXPECT_EQ(fine.queries, 20);
}

// An absurd query count is bounded before anything is allocated for it.
TEST(LoadGenerator, ArrivalsAreBoundedByTheLargestMeasurement) {
  EXPECT_EQ(PoissonArrivals(1000, int64_t{1} << 40, 1).size(), static_cast<size_t>(kMaxQueries));
}

TEST(Scenario, NamesAndTags) {
  EXPECT_EQ(ParseScenarioKind("offline", "--scenario"), ScenarioKind::kOffline);
  EXPECT_EQ(ParseScenarioKind("multi-stream", "--scenario"), ScenarioKind::kMultiStream);
  try {
    ParseScenarioKind("ofline", "--scenario");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown scenario 'ofline' (one of: single-stream, "
                                         "offline, server, multi-stream, generate)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ScenarioTag(Scenario::SingleStream()), "");
  EXPECT_EQ(ScenarioTag(Scenario::Offline()), "offline");
  EXPECT_EQ(ScenarioTag(Scenario::Generate()), "generate");
  EXPECT_EQ(ScenarioTag(Scenario::Generate(0.5)), "generate/qps:0.5");
  EXPECT_EQ(ParseScenarioKind("generate", "--scenario"), ScenarioKind::kGenerate);
  EXPECT_EQ(ScenarioTag(Scenario::Server(12.5)), "server/qps:12.5");
  EXPECT_EQ(ScenarioTag(Scenario::MaxQps(50)), "server/p99_ms:50");
  EXPECT_EQ(ScenarioTag(Scenario::MultiStream(8)), "multistream/samples:8");
  Scenario many = Scenario::Offline();
  many.queries = 200;
  EXPECT_EQ(ScenarioTag(many), "offline/queries:200");
}

// One table names, tags and checks the scenarios: each entry's name parses back to its kind,
// names and tags are unique, and what an option applies to is read from the traits.
TEST(Scenario, TheTableIsTheOnePlaceThatDescribesAScenario) {
  std::set<std::string> names, tags;
  for (const ScenarioInfo& s : Scenarios()) {
    EXPECT_EQ(ParseScenarioKind(s.name, "--scenario"), s.kind) << s.name;
    EXPECT_EQ(&InfoOf(s.kind), &s) << s.name;
    EXPECT_TRUE(IsScenarioKind(static_cast<int>(s.kind))) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_TRUE(tags.insert(s.tag).second) << s.name;
    EXPECT_GT(std::string(s.summary).size(), 10u) << s.name;
    // Only single-stream is Google Benchmark's own loop, with no tag.
    EXPECT_EQ(std::string(s.tag).empty(), !s.Has(kScenarioServesQueries)) << s.name;
  }
  EXPECT_FALSE(IsScenarioKind(-1));
  EXPECT_FALSE(IsScenarioKind(static_cast<int>(Scenarios().size())));
  EXPECT_EQ(ScenarioNamesWith(kScenarioStreams), "offline, server or multi-stream");
  EXPECT_EQ(ScenarioNamesWith(kScenarioRate), "server or generate");
  EXPECT_EQ(ScenarioNamesWith(kScenarioSamplesPerQuery), "multi-stream");
  EXPECT_NE(ScenarioProblem(Scenario{ScenarioKind::kServer}).find("server needs a rate"),
            std::string::npos);
  EXPECT_EQ(ScenarioProblem(Scenario::Server(5)), "");
  EXPECT_EQ(ScenarioProblem(Scenario::MaxQps(20)), "");
  EXPECT_EQ(ScenarioProblem(Scenario::Generate()), "");
}

}  // namespace
}  // namespace ntpb::bench
