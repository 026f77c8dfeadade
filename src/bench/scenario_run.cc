#include "src/bench/scenario_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <thread>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/results.h"
#include "ntpbench/roofline.h"
#include "src/bench/benchmark_config.h"
#include "src/bench/failure_message.h"
#include "src/bench/generation.h"
#include "src/bench/interference.h"
#include "src/bench/json_reporter.h"
#include "src/bench/load_generator.h"
#include "src/bench/prepared_run.h"
#include "src/bench/run_settings.h"
#include "src/bench/step_description.h"
#include "src/bench/step_timer.h"
#include "src/common/run_key.h"
#include "src/common/statistics.h"
#include "src/instrument/interference_probe.h"

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

using Clock = std::chrono::steady_clock;
double SecondsSince(Clock::time_point begin) {
  return std::chrono::duration<double>(Clock::now() - begin).count();
}

// Each step's device time summed over some runs of a phase (Executable::DeviceStepNanoseconds,
// where the backend measures it). Reading the events takes host time between runs (two calls
// per kernel), so a phase reads at most kMostRuns of them, as `run` reads a few inferences.
struct DeviceTimes {
  static constexpr int64_t kMostRuns = 64;
  std::vector<int64_t> ns;
  int64_t runs = 0;
  // Adds the run just waited for; nothing past kMostRuns or where the backend has no times.
  void Add(const Executable& exe) {
    if (runs >= kMostRuns) return;
    const std::vector<int64_t> run = exe.DeviceStepNanoseconds();
    if (run.empty()) return;
    ns.resize(run.size(), 0);
    for (size_t i = 0; i < run.size(); ++i) ns[i] += run[i];
    ++runs;
  }
};

// A phase's steps with their mean time per run of the phase (and the device's own, where the
// backend measured it), their cost at the phase's shapes and their roofline bound where the
// machine's ceilings are known.
PhaseMeasure Phase(const char* name, const ResolvedTopology& t, const TopologyAnalysis& a,
                   const std::vector<StepInfo>& steps, const std::vector<int64_t>& step_ns,
                   const DeviceTimes& device, double runs, Precision precision,
                   const MachinePeaks* peaks) {
  PhaseMeasure p;
  p.name = name;
  p.runs = runs;
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepInfo& info = steps[i];
    StepMeasure& step = p.steps.emplace_back();
    DescribeStep(t, a, info, precision, peaks, &step);
    step.measure.ms = runs > 0 ? static_cast<double>(step_ns[i]) / runs * 1e-6 : 0;
    if (i < device.ns.size()) {
      step.measure.device_ms = static_cast<double>(device.ns[i]) / device.runs * 1e-6;
    }
  }
  return p;
}

// Runs every step, adding each one's time to step_ns, and waits once at the end; returns the
// run's time. Not step_timer's RunTimedSteps, which waits after every step: within a generation
// on oneDNN that wait cost about 0.1 ms a step here (a GPT-2 decode step of 2 blocks, 30 steps:
// TPOT 7.2-7.6 ms with it, 4.4-4.7 without; a single-stream run of the same step did not show
// it). The CPU backends run each step synchronously, so the split is the same; an asynchronous
// backend's (OpenCL's) steps are charged where they are enqueued, its total where it waits: its
// per-step table reads the device's own times instead (DeviceTimes).
int64_t RunStepsWaitingOnce(Executable& exe, std::vector<int64_t>& step_ns) {
  const int64_t start = NowNanoseconds();
  int64_t t0 = start;
  for (size_t i = 0; i < step_ns.size(); ++i) {
    exe.RunStep(i);
    const int64_t t1 = NowNanoseconds();
    step_ns[i] += t1 - t0;
    t0 = t1;
  }
  exe.Wait();
  const int64_t end = NowNanoseconds();
  step_ns.back() += end - t0;  // what the last wait took
  return end - start;
}

// The generate scenario (generation.h): requests of `batch` sequences one after another, each a
// timed prefill and `gen` timed decode steps. What is timed is each executable's run; the
// caches' hand-over between the two executables (a serving engine has one cache) and reading
// the logits to choose the next tokens are not.
void RunGenerate(benchmark::State& state, const TopologyBenchmark& tb, const Topology& topology,
                 const TopologyBenchmark::Family& family) {
  const int streams = static_cast<int>(state.range(0));
  const int64_t batch = state.range(1);
  const std::string label = RunKey{family.name, streams, batch}.Encode();
  if (streams != 1) {
    state.SkipWithError(
        "skipped: generate runs one stream (its batch is the sequences "
        "generated together)");
    return;
  }
  const Backend* backend = FindBackend(family.backend);
  if (!backend) {
    state.SkipWithError(("skipped: " + BackendUnavailableReason(family.backend)).c_str());
    return;
  }
  const RunConfig config = ConfigFor(tb, family.backend, family.precision);
  GenerationShape shape;
  ResolvedTopology prefill_t, decode_t;
  TopologyAnalysis prefill_a;
  std::unique_ptr<Executable> prefill, decode;
  try {
    shape = GenerationShapeOf(ResolveFor(tb, topology, batch, family.values));
    prefill_t = ResolveFor(tb, topology, batch, PrefillParams(family.values, shape));
    decode_t = ResolveFor(tb, topology, batch, DecodeParams(family.values, shape));
    prefill_a = Analyze(prefill_t, family.precision, {});
    for (const ResolvedTopology* t : {&prefill_t, &decode_t}) {
      const Support support = backend->Supports(*t, config);
      if (!support.ok) {
        state.SkipWithError(("skipped: " + support.reason).c_str());
        return;
      }
    }
    prefill = backend->Compile(prefill_t, config);
    decode = backend->Compile(decode_t, config);
    decode->SetPositionShift(1 - shape.gen);  // the first step's: refused where unsupported
  } catch (const std::exception& e) {
    state.SkipWithError(("skipped: " + std::string(e.what())).c_str());
    return;
  }
  const std::string logits = prefill_t.outputs.at(0);
  std::vector<double> ttft_s, tpot_s;
  // Each step's time summed over the measured runs of its phase.
  std::vector<int64_t> prefill_step_ns(prefill->steps().size()),
      decode_step_ns(decode->steps().size());
  std::vector<int64_t> ignored_prefill(prefill_step_ns.size()),
      ignored_decode(decode_step_ns.size());
  // The device's own times, where the backend measures them (OpenCL's events); decode steps
  // sampled across the generation, since attention's time grows with the context.
  DeviceTimes prefill_device, decode_device;
  const int64_t decode_stride =
      std::max<int64_t>(1, shape.gen / 8);  // 8 steps a request spread over the tokens
  // The prompt's ids stay as drawn from the seed; its positions are the same for every request.
  WritePositions(prefill_t, *prefill, 0);
  // One request: the prefill, then gen decode steps, each fed the token the step before chose.
  auto request = [&](int64_t steps, bool record) {
    const double first = 1e-9 * static_cast<double>(RunStepsWaitingOnce(
                                    *prefill, record ? prefill_step_ns : ignored_prefill));
    std::vector<float> out = prefill->ReadTensor(logits);
    HandOverCaches(prefill_t, *prefill, decode_t, *decode);
    if (record) {
      ttft_s.push_back(first);
      prefill_device.Add(*prefill);
    }
    for (int64_t g = 0; g < steps; ++g) {
      const int64_t position = shape.prompt + g;
      decode->SetPositionShift(position - (shape.capacity() - 1));
      WriteTokens(decode_t, *decode, GreedyTokens(out, batch), position);
      const double step = 1e-9 * static_cast<double>(RunStepsWaitingOnce(
                                     *decode, record ? decode_step_ns : ignored_decode));
      if (record) {
        tpot_s.push_back(step);
        if (g % decode_stride == 0) decode_device.Add(*decode);
      }
      out = decode->ReadTensor(logits);
    }
  };
  const Scenario& scenario = family.scenario;
  const double limit_s = tb.settings().scenario_seconds;
  // With a rate, requests arrive as a Poisson process (seeded) and wait for the stream; a
  // request's time to first token counts from its arrival. Enough arrivals for the time limit
  // at twice the rate, or the requests asked.
  const int64_t arrivals_needed =
      scenario.queries > 0 ? scenario.queries
                           : static_cast<int64_t>(std::min(2 * scenario.target_qps * limit_s + 100,
                                                           static_cast<double>(kMaxQueries)));
  const std::vector<double> arrivals =
      scenario.target_qps > 0 ? PoissonArrivals(scenario.target_qps, arrivals_needed, config.seed)
                              : std::vector<double>();
  std::vector<double> queued_s;
  const int64_t needed = std::max<int64_t>(
      1, (QueriesForPercentile(99) + shape.gen - 1) / shape.gen);  // decode steps for a p99
  double wall_s = 0;
  instrument::InterferenceProbe probe;
  try {
    request(std::min<int64_t>(shape.gen, 2), false);  // warm-up: pages, thread pools
    probe.Start();
    for (auto _ : state) {
      const auto begin = Clock::now();
      for (int64_t r = 0;
           scenario.queries > 0 ? r < scenario.queries : r == 0 || SecondsSince(begin) < limit_s;
           ++r) {
        double waited = 0;
        if (!arrivals.empty()) {
          if (r >= static_cast<int64_t>(arrivals.size())) break;
          const double now = SecondsSince(begin), arrival = arrivals[static_cast<size_t>(r)];
          // As the server scenario: no request starts after the time limit (a rate of 1e-9
          // would otherwise sleep for decades).
          if (arrival > limit_s) break;
          if (arrival > now) {
            std::this_thread::sleep_for(std::chrono::duration<double>(arrival - now));
          } else {
            waited = now - arrival;  // it arrived while the stream served the one before
          }
        }
        queued_s.push_back(waited);
        request(shape.gen, true);
      }
      wall_s = SecondsSince(begin);
      state.SetIterationTime(ttft_s.empty() ? 0 : wall_s / static_cast<double>(ttft_s.size()));
    }
  } catch (const std::exception& e) {
    state.SkipWithError(FailureMessage(e, "generating").c_str());
    return;
  }
  if (ttft_s.empty()) {
    state.SkipWithError(
        "no request arrived within the time limit (--scenario-seconds; --target-qps)");
    return;
  }
  const double requests = static_cast<double>(ttft_s.size());
  InterferenceMeasure interference = InterferenceOf(probe.Stop(requests));
  interference.mdape = Mdape(tpot_s);
  if (static_cast<int64_t>(ttft_s.size()) < needed) {
    std::fprintf(stderr,
                 "ntpbench: %s: TPOT p99 from %zu decode steps; it needs %lld to mean something "
                 "(a longer --scenario-seconds, in a suite --ntpb_scenario_seconds; or fewer "
                 "--queries)\n",
                 label.c_str(), tpot_s.size(), static_cast<long long>(needed * shape.gen));
  }

  ScenarioMeasure sm;
  sm.kind = ScenarioKind::kGenerate;
  sm.streams = 1;
  sm.threads_per_stream = EffectiveThreads(config);
  sm.queries = requests;
  sm.queries_needed = static_cast<double>(needed);
  sm.samples_per_query = static_cast<double>(batch);
  sm.achieved_qps = requests / wall_s;
  sm.prompt_tokens = static_cast<double>(shape.prompt);
  sm.gen_tokens = static_cast<double>(shape.gen);
  sm.decode_steps = static_cast<double>(tpot_s.size());
  // From the arrival: queueing, then the prefill.
  std::vector<double> first_token_s = ttft_s;
  for (size_t r = 0; r < first_token_s.size() && r < queued_s.size(); ++r) {
    first_token_s[r] += queued_s[r];
  }
  sm.target_qps = scenario.target_qps;
  sm.ttft_p50_ms = Percentile(first_token_s, 50) * 1e3;
  sm.ttft_p90_ms = Percentile(first_token_s, 90) * 1e3;
  sm.ttft_p99_ms = Percentile(first_token_s, 99) * 1e3;
  sm.tpot_p50_ms = Percentile(tpot_s, 50) * 1e3;
  sm.tpot_p90_ms = Percentile(tpot_s, 90) * 1e3;
  sm.tpot_p99_ms = Percentile(tpot_s, 99) * 1e3;
  double prefill_s = 0, decode_s = 0;
  for (double t : ttft_s) prefill_s += t;
  for (double t : tpot_s) decode_s += t;
  const double b = static_cast<double>(batch);
  sm.prefill_tokens_per_s = b * sm.prompt_tokens * requests / prefill_s;
  sm.decode_tokens_per_s = b * sm.decode_steps / decode_s;
  // Every token a request's sequences hold at the end over the time its runs took.
  sm.tokens_per_s = b * (sm.prompt_tokens * requests + sm.decode_steps) / (prefill_s + decode_s);
  sm.kv_cache_bytes = static_cast<double>(prefill_a.kv_cache_bytes_per_token) * b *
                      static_cast<double>(shape.capacity());

  RunMeasurement m;
  m.setup = {prefill_t.name, family.backend, PrecisionName(family.precision), batch};
  m.scenario = sm;
  m.interference = interference;
  // The network's latency is a request's: its prefill and its decode steps.
  std::vector<double> request_s;
  for (size_t r = 0; r < ttft_s.size(); ++r) {
    double total = first_token_s[r];
    for (int64_t g = 0; g < shape.gen; ++g) total += tpot_s[r * shape.gen + g];
    request_s.push_back(total);
  }
  m.net.samples_per_second = sm.achieved_qps * b;
  m.net.p50_ms = Percentile(request_s, 50) * 1e3;
  m.net.p90_ms = Percentile(request_s, 90) * 1e3;
  m.net.p99_ms = Percentile(request_s, 99) * 1e3;
  m.net.flops = static_cast<double>(prefill_a.total.flops);
  m.net.params = static_cast<double>(prefill_a.total.params);
  m.memory.weight_bytes = static_cast<double>(prefill_a.total.weight_bytes);
  m.memory.peak_activation_bytes = static_cast<double>(prefill_a.peak_activation_bytes);
  m.memory.workspace_bytes =
      static_cast<double>(prefill->workspace_bytes() + decode->workspace_bytes());
  // Per layer and phase; a decode step's cost at the mean context of the steps measured.
  const MachinePeaks* peaks = tb.settings().peaks ? &*tb.settings().peaks : nullptr;
  const Precision precision = family.precision;
  m.phases.push_back(Phase("prefill", prefill_t, prefill_a, prefill->steps(), prefill_step_ns,
                           prefill_device, requests, precision, peaks));
  try {
    ParamEnv mean = DecodeParams(family.values, shape);
    mean["past"] = shape.prompt + (shape.gen - 1) / 2;
    const ResolvedTopology mean_t = ResolveFor(tb, topology, batch, mean);
    m.phases.push_back(Phase("decode", mean_t, Analyze(mean_t, precision, {}), decode->steps(),
                             decode_step_ns, decode_device, sm.decode_steps, precision, peaks));
  } catch (const std::exception& e) {
    state.SkipWithError(FailureMessage(e, "analysing the generation's phases").c_str());
    return;
  }
  RecordRunDescription(label, EncodeDescription(m));
  using benchmark::Counter;
  for (const EncodedCounter& c : EncodeCounters(m)) {
    state.counters[c.name] =
        Counter(c.value, Counter::kDefaults, c.bytes ? Counter::kIs1024 : Counter::kIs1000);
  }
}

// What one measurement of a query-serving scenario needs to issue its queries.
struct QueryLoad {
  const Scenario& scenario;
  int streams;
  int64_t queries;  // asked for
  const ServeQuery& serve;
  double limit_s;
  uint64_t seed;
  double service_s;  // one query on one stream, from the warm-up
  const std::string& label;
};

// How each scenario issues its queries; the measurement found (a max-QPS search's rate) goes
// into `sm`.
using IssueQueries = LoadResult (*)(const QueryLoad& load, ScenarioMeasure* sm);

LoadResult IssueOffline(const QueryLoad& l, ScenarioMeasure*) {
  return RunOffline(l.streams, (l.queries + l.streams - 1) / l.streams, l.serve, l.limit_s);
}

LoadResult IssueMultiStream(const QueryLoad& l, ScenarioMeasure*) {
  return RunMultiStream(l.streams, l.queries, l.serve, l.limit_s);
}

LoadResult IssueServer(const QueryLoad& l, ScenarioMeasure* sm) {
  if (l.scenario.p99_bound_ms <= 0) {
    return RunServer(l.streams, PoissonArrivals(l.scenario.target_qps, l.queries, l.seed), l.serve,
                     l.limit_s);
  }
  auto run_at = [&](double rate) {
    const LoadResult r =
        RunServer(l.streams, PoissonArrivals(rate, l.queries, l.seed), l.serve, l.limit_s);
    std::fprintf(stderr, "ntpbench: %s: %.1f queries/s: p99 %.2f ms over %lld queries\n",
                 l.label.c_str(), rate, Percentile(r.latencies_s, 99) * 1e3,
                 static_cast<long long>(r.queries));
    return r;
  };
  // The bracket: a fifth of the capacity the warm-up measured (a queue rarely forms) to 1.2
  // times it (the streams cannot keep up).
  const double capacity = l.streams / std::max(l.service_s, 1e-9);
  const MaxQpsSearch search = FindMaxQps(run_at, l.scenario.p99_bound_ms * 1e-3, 0.2 * capacity,
                                         1.2 * capacity, kSearchSteps);
  sm->max_qps = search.max_qps;
  // What the table shows is the measurement at the rate found (at the lowest rate tried when
  // none met the bound).
  sm->target_qps = search.max_qps > 0 ? search.max_qps : search.steps.front().rate;
  return search.result;
}

// The scenarios that serve queries from streams of executables, by kind (generate runs its
// requests itself: RunGenerate).
IssueQueries IssuerOf(ScenarioKind kind) {
  static const std::map<ScenarioKind, IssueQueries> issuers = {
      {ScenarioKind::kOffline, IssueOffline},
      {ScenarioKind::kMultiStream, IssueMultiStream},
      {ScenarioKind::kServer, IssueServer},
  };
  const auto it = issuers.find(kind);
  return it == issuers.end() ? nullptr : it->second;
}

}  // namespace

void RunScenario(benchmark::State& state, const TopologyBenchmark& tb, const Topology& topology,
                 const TopologyBenchmark::Family& family) {
  const Scenario& scenario = family.scenario;
  if (scenario.kind == ScenarioKind::kGenerate) return RunGenerate(state, tb, topology, family);
  const IssueQueries issue = IssuerOf(scenario.kind);
  if (!issue) {
    state.SkipWithError((std::string("skipped: the ") + ScenarioName(scenario.kind) +
                         " scenario has no query issuer (src/bench/scenario_run.cc, IssuerOf)")
                            .c_str());
    return;
  }
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
    state.SkipWithError(FailureMessage(e, "compiling the scenario's streams").c_str());
    return;
  }
  const ServeQuery serve = [&](int stream) { executables[static_cast<size_t>(stream)]->Run(); };
  // Warm-up per stream, all at once as measured: first-touch pages, each stream's thread pool.
  double service_s = 0;
  try {
    RunOffline(streams, 2, serve);
    service_s = MedianRunSeconds(*executables[0], 3);
  } catch (const std::exception& e) {
    state.SkipWithError(FailureMessage(e, "warming up the streams").c_str());
    return;
  }

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
  const bool spans_streams = InfoOf(scenario.kind).Has(kScenarioQuerySpansStreams);
  const int64_t samples_per_query = spans_streams ? batch * streams : batch;
  sm.samples_per_query = static_cast<double>(samples_per_query);
  sm.target_qps = scenario.target_qps;
  sm.p99_bound_ms = scenario.p99_bound_ms;

  LoadResult result;
  const QueryLoad load{scenario, streams, asked, serve, limit_s, seed, service_s, label};
  instrument::InterferenceProbe probe;
  probe.Start();
  try {
    for (auto _ : state) {
      result = issue(load, &sm);
      state.SetIterationTime(result.queries > 0 ? result.wall_s / result.queries : 0);
    }
  } catch (const std::exception& e) {  // a query failed on one of the streams
    state.SkipWithError(FailureMessage(e, "serving the queries").c_str());
    return;
  }
  InterferenceMeasure interference =
      InterferenceOf(probe.Stop(static_cast<double>(result.queries)));
  if (result.queries == 0) {
    state.SkipWithError(
        "no query completed within the time limit (--scenario-seconds; in a suite "
        "--ntpb_scenario_seconds)");
    return;
  }
  sm.queries = static_cast<double>(result.queries);
  sm.achieved_qps = result.AchievedQps();
  if (result.queries < needed) {
    std::fprintf(
        stderr,
        "ntpbench: %s: p99 from %lld queries; it needs %lld to mean something "
        "(a longer --scenario-seconds, in a suite --ntpb_scenario_seconds; or --queries)\n",
        label.c_str(), static_cast<long long>(result.queries), static_cast<long long>(needed));
  }

  RunMeasurement m;
  m.setup = {resolved.name, family.backend, PrecisionName(family.precision), batch};
  m.scenario = sm;
  // A server's latencies include queueing, which varies by design: no spread to judge there.
  if (!InfoOf(scenario.kind).Has(kScenarioQueueing)) {
    interference.mdape = Mdape(result.latencies_s);
  }
  m.interference = interference;
  const double inferences_per_s = sm.achieved_qps * (spans_streams ? streams : 1);
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
