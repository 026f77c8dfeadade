#include "src/bench/scenario_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/results.h"
#include "src/bench/benchmark_config.h"
#include "src/bench/interference.h"
#include "src/bench/json_reporter.h"
#include "src/bench/load_generator.h"
#include "src/bench/prepared_run.h"
#include "src/bench/run_settings.h"
#include "src/common/statistics.h"
#include "src/instrument/interference_probe.h"
#include "src/results/run_key.h"

namespace ntpb::bench {
namespace {

// Rates the max-QPS search tries after bracketing: the rate is found within 1/2^5 of the
// bracket (3% of the capacity the warm-up measured).
constexpr int kSearchSteps = 5;

double MedianRunSeconds(Executable& exe, int runs) {
  std::vector<double> seconds;
  for (int i = 0; i < runs; ++i) {
    const auto begin = std::chrono::steady_clock::now();
    exe.Run();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  return Percentile(seconds, 50);
}

}  // namespace

void RunScenario(benchmark::State& state, const TopologyBenchmark& tb, const Topology& topology,
                 const TopologyBenchmark::Family& family) {
  const Scenario& scenario = family.scenario;
  const int streams = static_cast<int>(state.range(0));
  const int64_t batch = state.range(1);
  const std::string label = RunKey{family.name, streams, batch}.Encode();
  if (batch <= 0) {
    state.SkipWithError(("skipped: " + std::to_string(scenario.samples_per_query) +
                         " samples per query do not split over " + std::to_string(streams) +
                         " streams")
                            .c_str());
    return;
  }
  const Backend* backend = FindBackend(family.backend);
  if (!backend) {
    state.SkipWithError(("skipped: " + BackendUnavailableReason(family.backend)).c_str());
    return;
  }
  RunConfig config = ConfigFor(tb, family.backend, family.precision);
  const int threads = EffectiveThreads(config);
  // The threads split evenly; more streams than threads oversubscribe the cores, one each.
  const int per_stream = std::max(1, threads / streams);
  config.threads = per_stream;
  std::vector<std::unique_ptr<Executable>> executables;
  TopologyAnalysis analysis;
  ResolvedTopology resolved;
  try {
    resolved = ResolveFor(tb, topology, batch, family.values);
    analysis = Analyze(resolved, family.precision, {});
    const Support support = backend->Supports(resolved, config);
    if (!support.ok) {
      state.SkipWithError(("skipped: " + support.reason).c_str());
      return;
    }
    for (int s = 0; s < streams; ++s) executables.push_back(backend->Compile(resolved, config));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  auto serve = [&](int stream) { executables[static_cast<size_t>(stream)]->Run(); };
  // Warm-up per stream, all at once as measured: first-touch pages, each stream's thread pool.
  RunOffline(streams, 2, serve);
  const double service_s = MedianRunSeconds(*executables[0], 3);

  const int64_t needed = QueriesForPercentile(99);
  const int64_t asked = scenario.queries > 0 ? scenario.queries : needed;
  const double limit_s = tb.settings().scenario_seconds;
  const uint64_t seed = config.seed;
  ScenarioMeasure sm;
  sm.kind = scenario.kind;
  sm.streams = streams;
  sm.threads_per_stream = per_stream;
  sm.queries_needed = static_cast<double>(needed);
  // Samples one query carries: a batch; in multi-stream, a batch on every stream.
  const int64_t samples_per_query =
      scenario.kind == ScenarioKind::kMultiStream ? batch * streams : batch;
  sm.samples_per_query = static_cast<double>(samples_per_query);
  sm.target_qps = scenario.target_qps;
  sm.p99_bound_ms = scenario.p99_bound_ms;

  LoadResult result;
  instrument::InterferenceProbe probe;
  probe.Start();
  for (auto _ : state) {
    switch (scenario.kind) {
      case ScenarioKind::kOffline:
        result = RunOffline(streams, (asked + streams - 1) / streams, serve, limit_s);
        break;
      case ScenarioKind::kMultiStream:
        result = RunMultiStream(streams, asked, serve, limit_s);
        break;
      case ScenarioKind::kServer:
        if (scenario.p99_bound_ms > 0) {
          auto run_at = [&](double rate) {
            const LoadResult r =
                RunServer(streams, PoissonArrivals(rate, asked, seed), serve, limit_s);
            std::fprintf(stderr, "ntpbench: %s: %.1f queries/s: p99 %.2f ms over %lld queries\n",
                         label.c_str(), rate, Percentile(r.latencies_s, 99) * 1e3,
                         static_cast<long long>(r.queries));
            return r;
          };
          // The bracket: a fifth of the capacity the warm-up measured (a queue rarely forms)
          // to 1.2 times it (the streams cannot keep up).
          const double capacity = streams / std::max(service_s, 1e-9);
          const MaxQpsSearch search = FindMaxQps(run_at, scenario.p99_bound_ms * 1e-3,
                                                 0.2 * capacity, 1.2 * capacity, kSearchSteps);
          sm.max_qps = search.max_qps;
          // What the table shows is the measurement at the rate found (at the lowest rate
          // tried when none met the bound).
          result = search.result;
          sm.target_qps = search.max_qps > 0 ? search.max_qps : search.steps.front().rate;
        } else {
          result =
              RunServer(streams, PoissonArrivals(scenario.target_qps, asked, seed), serve, limit_s);
        }
        break;
      case ScenarioKind::kSingleStream:
        break;
    }
    state.SetIterationTime(result.queries > 0 ? result.wall_s / result.queries : 0);
  }
  InterferenceMeasure interference =
      InterferenceOf(probe.Stop(static_cast<double>(result.queries)));
  if (result.queries == 0) {
    state.SkipWithError("no query completed within the time limit (--ntpb_scenario_seconds)");
    return;
  }
  sm.queries = static_cast<double>(result.queries);
  sm.achieved_qps = result.AchievedQps();
  if (result.queries < needed) {
    std::fprintf(stderr,
                 "ntpbench: %s: p99 from %lld queries; it needs %lld to mean something "
                 "(--ntpb_scenario_seconds, or the scenario's queries)\n",
                 label.c_str(), static_cast<long long>(result.queries),
                 static_cast<long long>(needed));
  }

  RunMeasurement m;
  m.setup = {resolved.name, family.backend, PrecisionName(family.precision), batch};
  m.scenario = sm;
  // A server's latencies include queueing, which varies by design: no spread to judge there.
  if (scenario.kind != ScenarioKind::kServer) interference.mdape = Mdape(result.latencies_s);
  m.interference = interference;
  const double inferences_per_s =
      sm.achieved_qps * (scenario.kind == ScenarioKind::kMultiStream ? streams : 1);
  m.net.samples_per_second = sm.achieved_qps * static_cast<double>(samples_per_query);
  m.net.flops = static_cast<double>(analysis.total.flops);
  m.net.params = static_cast<double>(analysis.total.params);
  m.net.gflops = m.net.flops * inferences_per_s * 1e-9;
  m.net.p50_ms = Percentile(result.latencies_s, 50) * 1e3;
  m.net.p90_ms = Percentile(result.latencies_s, 90) * 1e3;
  m.net.p99_ms = Percentile(result.latencies_s, 99) * 1e3;
  m.memory.weight_bytes = static_cast<double>(analysis.total.weight_bytes);
  m.memory.peak_activation_bytes = static_cast<double>(analysis.peak_activation_bytes);
  RecordRunDescription(label, EncodeDescription(m));
  using benchmark::Counter;
  for (const EncodedCounter& c : EncodeCounters(m)) {
    state.counters[c.name] =
        Counter(c.value, Counter::kDefaults, c.bytes ? Counter::kIs1024 : Counter::kIs1000);
  }
}

}  // namespace ntpb::bench
