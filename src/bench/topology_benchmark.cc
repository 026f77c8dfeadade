// The chainable builder, the Google Benchmark families it registers, and the timed loop.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "ntpbench/counters.h"
#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/ntpbench.h"
#include "ntpbench/results.h"
#include "ntpbench/roofline.h"
#include "ntpbench/topology_file.h"
#include "src/backends/reference_run.h"
#include "src/bench/benchmark_config.h"
#include "src/bench/failure_message.h"
#include "src/bench/generation.h"
#include "src/bench/interference.h"
#include "src/bench/json_reporter.h"
#include "src/bench/precision_accuracy.h"
#include "src/bench/prepared_run.h"
#include "src/bench/run_settings.h"
#include "src/bench/scenario_run.h"
#include "src/bench/slowdown_injection.h"
#include "src/bench/step_description.h"
#include "src/bench/step_samples.h"
#include "src/bench/step_timer.h"
#include "src/common/run_key.h"
#include "src/common/statistics.h"
#include "src/instrument/interference_probe.h"
#include "src/topology/numeric_outputs.h"

namespace ntpb {

TopologyBenchmark::TopologyBenchmark(std::string name, std::string path, std::string source_file)
    : name_(std::move(name)), path_(std::move(path)), source_file_(std::move(source_file)) {}

TopologyBenchmark* TopologyBenchmark::Backends(std::vector<std::string> backends) {
  backends_ = std::move(backends);
  return this;
}
TopologyBenchmark* TopologyBenchmark::Batches(std::vector<int64_t> batches) {
  batches_ = std::move(batches);
  return this;
}
TopologyBenchmark* TopologyBenchmark::Precisions(std::vector<Precision> precisions) {
  precisions_ = std::move(precisions);
  return this;
}
TopologyBenchmark* TopologyBenchmark::Set(const std::string& param, int64_t value) {
  params_[param] = value;
  return this;
}
TopologyBenchmark* TopologyBenchmark::Values(const std::string& param,
                                             std::vector<int64_t> values) {
  values_[param] = std::move(values);
  return this;
}
TopologyBenchmark* TopologyBenchmark::Scenario(const ntpb::Scenario& scenario) {
  scenarios_.push_back(scenario);
  return this;
}
std::vector<Scenario> TopologyBenchmark::scenarios() const {
  return scenarios_.empty() ? std::vector<ntpb::Scenario>{ntpb::Scenario{}} : scenarios_;
}
TopologyBenchmark* TopologyBenchmark::Streams(std::vector<int64_t> streams) {
  streams_ = std::move(streams);
  return this;
}
TopologyBenchmark* TopologyBenchmark::Markers(std::vector<Marker> markers) {
  markers_.insert(markers_.end(), markers.begin(), markers.end());
  return this;
}
TopologyBenchmark* TopologyBenchmark::Threads(int threads) {
  threads_ = threads;
  return this;
}
TopologyBenchmark* TopologyBenchmark::Seed(uint64_t seed) {
  seed_ = seed;
  return this;
}
TopologyBenchmark* TopologyBenchmark::BackendOption(const std::string& option,
                                                    const std::string& value) {
  std::map<std::string, std::string> parsed;
  bench::ParseBackendOptions(option + "=" + value, name_ + ": BackendOption", &parsed);
  backend_options_.insert_or_assign(option, value);
  return this;
}
TopologyBenchmark* TopologyBenchmark::Counters(std::vector<std::string> counters) {
  counters_ = std::move(counters);
  return this;
}

TopologyBenchmark* TopologyBenchmark::Settings(std::shared_ptr<const bench::RunSettings> settings) {
  settings_ = std::move(settings);
  return this;
}
const bench::RunSettings& TopologyBenchmark::settings() const {
  static const bench::RunSettings registered;  // nothing changed from the registration
  return settings_ ? *settings_ : registered;
}

std::vector<std::string> TopologyBenchmark::EffectiveCounters() const {
  std::vector<std::string> all = counters_;
  for (const std::string& c : settings().counters) {
    if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  }
  return all;
}

namespace bench {
namespace {

// Iterations traced per benchmark run (--trace): the first of each run Google Benchmark reports.
constexpr int64_t kTracedIterations = 100;

std::string FindTopologyFile(const std::string& path, const std::string& source_file,
                             std::string dir, const std::string& installed_data_dir) {
  std::vector<std::string> tried;
  auto exists = [&](const std::string& p) {
    tried.push_back(p);
    return access(p.c_str(), R_OK) == 0;
  };
  if (exists(path) || (!path.empty() && path[0] == '/')) return path;
  if (dir.empty() && std::getenv("NTPB_TOPOLOGY_DIR")) dir = std::getenv("NTPB_TOPOLOGY_DIR");
  if (!dir.empty() && exists(dir + "/" + path)) return dir + "/" + path;
  // The installed copies of the shipped topologies the suite was built against, wherever the
  // prefix is (the package config passes it), then the prefix this library was configured for.
  if (!installed_data_dir.empty() && exists(installed_data_dir + "/" + path)) {
    return installed_data_dir + "/" + path;
  }
#ifdef NTPBENCH_DATADIR
  if (exists(std::string(NTPBENCH_DATADIR) + "/" + path)) {
    return std::string(NTPBENCH_DATADIR) + "/" + path;
  }
#endif
  std::string base = source_file;
  for (size_t slash = base.rfind('/'); slash != std::string::npos && slash > 0;
       slash = base.rfind('/')) {
    base = base.substr(0, slash);
    if (exists(base + "/" + path)) return base + "/" + path;
  }
  std::string list;
  for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
  throw Error(
      path, "", "",
      "topology file not found (tried " + list + "; set --ntpb_topology_dir or NTPB_TOPOLOGY_DIR)");
}

// Counter sources are opened after compile and warm-up, so that the backend's worker threads
// exist and per-thread perf events cover them.
std::unique_ptr<RegionCounters> MakeRegionCounters(const TopologyBenchmark& tb,
                                                   const PreparedRun& run) {
  const std::vector<std::string> request = tb.EffectiveCounters();
  if (request.empty()) return nullptr;
  std::unique_ptr<CounterSet> set = CounterSet::Create(request);
  if (set->empty()) return nullptr;
  const auto& steps = run.executable->steps();
  std::vector<Region> regions = {{Region::kNet, 0, 0, steps.size()}};
  for (std::size_t m = 0; m < run.markers.size(); ++m) {
    if (run.marker_steps[m].empty()) continue;
    regions.push_back(
        {Region::kMarker, m, run.marker_steps[m].front(), run.marker_steps[m].back() + 1});
  }
  if (tb.settings().layer_counters) {
    for (std::size_t s = 0; s < steps.size(); ++s) regions.push_back({Region::kStep, s, s, s + 1});
  }
  std::vector<StepCounts> counts(steps.size());
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].layer < 0) continue;
    const Cost c = FusedCost(run.analysis, steps[s].layer, steps[s].fused);
    counts[s] = {c.flops, c.input_bytes + c.weight_bytes, c.output_bytes};
  }
  return std::make_unique<RegionCounters>(std::move(set), std::move(regions), std::move(counts),
                                          steps.size());
}

std::unique_ptr<PreparedRun>& CachedRun() {
  static std::unique_ptr<PreparedRun> run;
  return run;
}

void PrintProgress(const char* fmt, const std::string& what, double seconds) {
  std::fprintf(stderr, fmt, what.c_str(), seconds);
  std::fflush(stderr);
}

// The counted pass: its iterations and their wall time, counting included.
struct CountedPass {
  int64_t iterations = 0;
  int64_t ns = 0;
};

// Runs the counted pass after the timed loop: as many iterations as the timed loop ran, stopping
// once it has taken a quarter of the timed loop's time (at least one iteration), so that slow
// sources (SDE, many PAPI events) cost a bounded share of the run.
CountedPass RunCountedPass(RegionCounters* counters, Executable& exe, int64_t timed_iterations,
                           int64_t timed_ns) {
  CountedPass pass;
  if (!counters || timed_iterations < 1) return pass;
  counters->Start();  // Google Benchmark calls us once per trial: start afresh
  while (pass.iterations < timed_iterations && (pass.iterations == 0 || pass.ns < timed_ns / 4)) {
    pass.ns += counters->RunCounted(exe);
    ++pass.iterations;
  }
  counters->Stop();
  return pass;
}

// What the timed loop measured, as the results model has it (results.h), published as Google
// Benchmark counters by its codec.
RunMeasurement Measurement(const PreparedRun& run, const RunSetup& setup, Precision precision,
                           double iterations, const std::vector<int64_t>& step_ns, int64_t loop_ns,
                           const std::vector<int64_t>& latencies, const StepSamples& samples,
                           const CountedPass& counted, const InterferenceMeasure& interference,
                           const MachinePeaks* peaks) {
  const auto& steps = run.executable->steps();
  int64_t steps_total = 0;
  for (int64_t ns : step_ns) steps_total += ns;
  const double per_iter_ns = loop_ns / iterations;
  auto region = [&](int64_t ns, int64_t flops, const std::vector<std::size_t>& of_steps) {
    RegionMeasure r;
    const double region_ns = ns / iterations;
    r.ms = region_ns * 1e-6;
    r.time_share = steps_total > 0 ? static_cast<double>(ns) / steps_total : 0.0;
    r.gflops = region_ns > 0 ? flops / region_ns : 0.0;
    const SampleSummary summary = samples.Summary(of_steps);
    r.p50_ms = summary.p50_ns * 1e-6;
    r.min_ms = summary.min_ns * 1e-6;
    r.max_ms = summary.max_ns * 1e-6;
    return r;
  };
  const TopologyAnalysis& a = run.analysis;
  RunMeasurement m;
  m.setup = setup;
  m.net.samples_per_second = setup.batch * 1e9 / per_iter_ns;
  m.net.gflops = a.total.flops / per_iter_ns;
  m.net.flops = static_cast<double>(a.total.flops);
  m.net.params = static_cast<double>(a.total.params);
  // Single-stream latency distribution (MLPerf style): one query is one inference.
  // Nearest rank, as the scenarios' percentiles (statistics.h).
  const std::vector<double> latency_ns(latencies.begin(), latencies.end());
  m.net.p50_ms = Percentile(latency_ns, 50) * 1e-6;
  m.net.p90_ms = Percentile(latency_ns, 90) * 1e-6;
  m.net.p99_ms = Percentile(latency_ns, 99) * 1e-6;
  if (!latency_ns.empty()) {
    const auto [lo, hi] = std::minmax_element(latency_ns.begin(), latency_ns.end());
    m.net.min_ms = *lo * 1e-6;
    m.net.max_ms = *hi * 1e-6;
    m.net.latency_samples = static_cast<double>(latency_ns.size());
  }
  m.net.step_samples = static_cast<double>(samples.used());
  m.interference = interference;
  m.interference->mdape = Mdape(latency_ns);
  m.memory.weight_bytes = static_cast<double>(a.total.weight_bytes);
  m.memory.peak_activation_bytes = static_cast<double>(a.peak_activation_bytes);
  m.memory.workspace_bytes = static_cast<double>(run.executable->workspace_bytes());
  if (run.executable->activation_bytes() > 0) {
    m.memory.activation_bytes = static_cast<double>(run.executable->activation_bytes());
  }
  for (size_t k = 0; k < run.markers.size(); ++k) {
    int64_t ns = 0;
    for (size_t s : run.marker_steps[k]) ns += step_ns[s];
    MarkerMeasure& marker = m.markers.emplace_back();
    marker.name = run.markers[k].name;
    marker.measure = region(ns, a.markers[k].cost.flops, run.marker_steps[k]);
    if (!run.marker_steps[k].empty()) {
      marker.first_step = static_cast<int>(run.marker_steps[k].front());
      marker.last_step = static_cast<int>(run.marker_steps[k].back());
    }
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    const StepInfo& info = steps[s];
    StepMeasure step;
    DescribeStep(run.topology, a, info, precision, peaks, &step);
    step.order = static_cast<int>(s);
    step.measure = region(step_ns[s], static_cast<int64_t>(step.cost.flops), {s});
    m.steps.push_back(std::move(step));
  }
  // Shares follow the time the tables show beside them (each region's median): a step slowed
  // now and then by the machine would otherwise show a large share of the mean next to a small
  // median.
  double typical_total = 0;
  for (const StepMeasure& step : m.steps) typical_total += step.measure.Typical();
  if (typical_total > 0) {
    for (StepMeasure& step : m.steps) {
      step.measure.time_share = step.measure.Typical() / typical_total;
    }
    for (MarkerMeasure& marker : m.markers) {
      marker.measure.time_share = marker.measure.Typical() / typical_total;
    }
  }
  if (run.accuracy) m.accuracy = *run.accuracy;
  for (size_t s = 0; s < m.steps.size() && s < run.step_errors.size(); ++s) {
    m.steps[s].rms_rel_err = run.step_errors[s];
  }
  if (run.counters && counted.iterations > 0) {
    run.counters->Report(static_cast<double>(counted.iterations), &m);
    m.net.counted_iterations = static_cast<double>(counted.iterations);
    m.net.counted_ms = counted.ns * 1e-6 / static_cast<double>(counted.iterations);
    // The memory source's network counters belong to the memory signature.
    for (auto [metric, field] : {std::pair{kAllocationsMetric, &m.memory.allocs},
                                 std::pair{kAllocatedBytesMetric, &m.memory.alloc_bytes}}) {
      auto it = m.net.counters.find(metric);
      if (it == m.net.counters.end()) continue;
      *field = it->second;
      m.net.counters.erase(it);
    }
    rusage usage;
    getrusage(RUSAGE_SELF, &usage);  // ru_maxrss is in KiB on Linux
    m.memory.peak_rss_bytes = static_cast<double>(usage.ru_maxrss) * 1024;
  }
  return m;
}

// The counters go to Google Benchmark; the description (what no counter holds) to ntpbench's
// JSON reporter, under the run's name.
void AddCounters(benchmark::State& state, const PreparedRun& run, const RunSetup& setup,
                 Precision precision, const std::string& run_name,
                 const std::vector<int64_t>& step_ns, int64_t loop_ns,
                 const std::vector<int64_t>& latencies, const StepSamples& samples,
                 const CountedPass& counted, RunTrace trace,
                 const InterferenceMeasure& interference,
                 const std::vector<int64_t>& device_step_ns, const MachinePeaks* peaks) {
  using benchmark::Counter;
  RunMeasurement m =
      Measurement(run, setup, precision, static_cast<double>(state.iterations()), step_ns, loop_ns,
                  latencies, samples, counted, interference, peaks);
  m.trace = std::move(trace);  // empty unless --trace
  if (device_step_ns.size() == m.steps.size()) {
    for (size_t s = 0; s < m.steps.size(); ++s)
      m.steps[s].measure.device_ms = device_step_ns[s] * 1e-6;
    for (size_t k = 0; k < m.markers.size(); ++k) {
      for (size_t s : run.marker_steps[k])
        m.markers[k].measure.device_ms += device_step_ns[s] * 1e-6;
    }
  }
  RecordRunDescription(run_name, EncodeDescription(m));
  for (const EncodedCounter& c : EncodeCounters(m)) {
    state.counters[c.name] =
        Counter(c.value, Counter::kDefaults, c.bytes ? Counter::kIs1024 : Counter::kIs1000);
  }
}

void RunInstance(benchmark::State& state, const TopologyBenchmark* tb,
                 std::shared_ptr<const Topology> topology,
                 const TopologyBenchmark::Family& family) {
  if (InfoOf(family.scenario.kind).Has(kScenarioServesQueries)) {
    CachedRun().reset();  // its own executables, one per stream
    RunScenario(state, *tb, *topology, family);
    return;
  }
  const std::string& backend = family.backend;
  const Precision precision = family.precision;
  const int64_t batch = state.range(0);
  const std::string label = RunKey{family.name, 0, batch}.Encode();
  if (!FindBackend(backend)) {
    state.SkipWithError(("skipped: " + BackendUnavailableReason(backend)).c_str());
    return;
  }
  PreparedRun* run = nullptr;
  try {
    run = &Prepare(*tb, *topology, family, batch);
  } catch (const std::exception& e) {
    state.SkipWithError(FailureMessage(e, "compiling and warming up " + label).c_str());
    return;
  }
  if (!run->support.ok) {
    state.SkipWithError(("skipped: " + run->support.reason).c_str());
    return;
  }
  Executable& exe = *run->executable;
  std::vector<int64_t> step_ns(exe.steps().size(), 0);
  // Per-iteration latencies for the percentiles; the first 64 Ki iterations are kept.
  std::vector<int64_t> latencies;
  latencies.reserve(static_cast<std::size_t>(std::min<int64_t>(state.max_iterations, 1 << 16)));
  // Each step's time in the first iterations: the steps' and markers' medians and ranges.
  StepSamples samples(state.max_iterations, step_ns.size());
  instrument::InterferenceProbe probe;
  probe.Start();
  int64_t loop_ns = 0, since_progress = 0;
  // --trace: the first iterations' step times as they happen, into buffers allocated here, not
  // in the timed loop.
  RunTrace trace;
  const int64_t traced =
      tb->settings().trace ? std::min<int64_t>(kTracedIterations, state.max_iterations) : 0;
  if (traced > 0) {
    trace.thread_id = static_cast<int64_t>(syscall(SYS_gettid));
    trace.iterations.resize(static_cast<size_t>(traced));
    for (std::vector<int64_t>& stamps : trace.iterations) stamps.reserve(2 * step_ns.size());
  }
  int64_t iteration = 0;
  for (auto _ : state) {
    std::vector<int64_t>* stamps = iteration < traced ? &trace.iterations[iteration] : nullptr;
    const int64_t ns = RunTimedSteps(exe, step_ns, samples.Row(iteration), stamps);
    ++iteration;
    if (latencies.size() < latencies.capacity()) latencies.push_back(ns);
    loop_ns += ns;
    since_progress += ns;
    if (since_progress > 5'000'000'000) {  // long runs say they are alive, on stderr
      since_progress = 0;
      PrintProgress("ntpbench: %s: measuring, %.0f s so far\n", label, loop_ns * 1e-9);
    }
  }
  samples.Kept(iteration);
  const InterferenceMeasure interference =
      InterferenceOf(probe.Stop(static_cast<double>(iteration)));
  // The counters, in a pass of their own: reading them between steps costs time (58% of an
  // mlp's with rusage and memory) that the timed loop must not hold.
  const CountedPass counted = RunCountedPass(run->counters.get(), exe, iteration, loop_ns);
  // Outside the measured window: a few more inferences, end to end, for the device's own times.
  const std::vector<int64_t> device_ns = DeviceStepTimes(exe, std::min<int64_t>(iteration, 8));
  trace.iterations.resize(static_cast<size_t>(std::min(iteration, traced)));
  const RunSetup setup{run->topology.name, backend, PrecisionName(precision), batch};
  AddCounters(state, *run, setup, precision, label, step_ns, loop_ns, latencies, samples, counted,
              std::move(trace), interference, device_ns,
              tb->settings().peaks ? &*tb->settings().peaks : nullptr);
}

}  // namespace

ResolvedTopology ResolveFor(const TopologyBenchmark& tb, const Topology& topology, int64_t batch,
                            const ParamEnv& values) {
  // --ntpb_set applies to the topologies that have the param (Initialize checks that one does).
  ParamEnv env = ParamOverrides(tb, topology, values);
  env["N"] = batch;
  return Resolve(topology, env);
}

PreparedRun& Prepare(const TopologyBenchmark& tb, const Topology& topology,
                     const TopologyBenchmark::Family& family, int64_t batch) {
  const Precision precision = family.precision;
  const RunConfig config = ConfigFor(tb, family.backend, precision);
  // The name (FamilyName) holds everything that changes what is measured.
  const std::string key = RunKey{family.name, 0, batch}.Encode();
  std::unique_ptr<PreparedRun>& cached = CachedRun();
  if (cached && cached->key == key) return *cached;
  cached.reset();  // free the previous executable before building the next one

  auto run = std::make_unique<PreparedRun>();
  run->key = key;
  run->topology = ResolveFor(tb, topology, batch, family.values);
  const std::vector<ResolvedMarker> registered = ResolveMarkers(run->topology, tb.markers());
  run->markers = run->topology.markers;
  run->markers.insert(run->markers.end(), registered.begin(), registered.end());
  run->analysis = Analyze(run->topology, precision, registered);
  // The backend sees every marker: fusion never crosses a marker boundary.
  run->topology.markers = run->markers;
  const Backend* be = FindBackend(family.backend);
  run->support = be->Supports(run->topology, config);
  if (run->support.ok) {
    const int64_t start = NowNanoseconds();
    run->executable = be->Compile(run->topology, config);
    if (!tb.settings().inject_slowdown.empty()) {
      run->executable = InjectSlowdown(std::move(run->executable), tb.settings().inject_slowdown);
    }
    run->executable->Run();  // warm-up: first-touch page faults and cold caches stay out
    if (precision != Precision::kF32) {
      // The accuracy is measured, never a reason not to measure the time: a backend that cannot
      // take new inputs (or a reference that cannot run the topology) leaves it out, saying so.
      try {
        run->accuracy = MeasureAccuracy(run->topology, *run->executable, config, &run->step_errors);
      } catch (const std::exception& e) {
        run->step_errors.clear();
        WarnOnce(key + ": accuracy", std::string("not measured: ") + e.what());
      }
    }
    const double seconds = (NowNanoseconds() - start) * 1e-9;
    if (seconds > 1.0) {
      PrintProgress("ntpbench: %s: compiled and warmed up in %.1f s\n", key, seconds);
    }
    const auto& steps = run->executable->steps();
    for (const ResolvedMarker& m : run->markers) {
      std::vector<std::size_t> in_marker;
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const int layer = steps[s].layer >= 0 ? steps[s].layer : steps[s].feeds;
        if (layer >= m.first && layer <= m.last) in_marker.push_back(s);
      }
      run->marker_steps.push_back(in_marker);
    }
    run->counters = MakeRegionCounters(tb, *run);
  }
  cached = std::move(run);
  return *cached;
}

}  // namespace bench

void TopologyBenchmark::RegisterArgs(benchmark::internal::Benchmark* b,
                                     const ntpb::Scenario& scenario) const {
  if (!InfoOf(scenario.kind).Has(kScenarioServesQueries)) {
    // No Unit(): Google Benchmark's default time unit applies, which ntpbench sets to ms
    // before Initialize and --benchmark_time_unit overrides, as for any GB benchmark.
    b->ArgName("batch")->UseRealTime();
    for (int64_t batch : batches_) b->Arg(batch);
    return;
  }
  // One measurement of many queries per run; its time is the wall time per query (one over the
  // throughput in queries), so the gate judges throughput like a latency.
  b->ArgNames({"streams", "batch"})->Iterations(1)->UseManualTime();
  for (int64_t streams : streams_) {
    if (InfoOf(scenario.kind).Has(kScenarioQuerySpansStreams) && scenario.samples_per_query > 0) {
      // The query's samples split over the streams; 0 when they do not divide (a skip).
      const int64_t per_stream =
          scenario.samples_per_query % streams == 0 ? scenario.samples_per_query / streams : 0;
      b->Args({streams, per_stream});
      continue;
    }
    for (int64_t batch : batches_) b->Args({streams, batch});
  }
}

std::map<std::string, int64_t> TopologyBenchmark::RegisterFamilies() {
  auto topology = std::make_shared<const Topology>(ReadTopologyFile(
      bench::FindTopologyFile(path_, source_file_, settings().topology_dir, installed_data_dir_)));
  std::map<std::string, int64_t> params = topology->params;
  // Check params and markers now, at batch 1 and every listed value, so mistakes surface before
  // any run.
  const std::vector<ParamEnv> combinations = bench::ValueCombinations(*this, *topology);
  const std::vector<ntpb::Scenario> asked = scenarios();
  const bool generates = std::any_of(asked.begin(), asked.end(), [](const ntpb::Scenario& s) {
    return s.kind == ScenarioKind::kGenerate;
  });
  for (const ParamEnv& values : combinations) {
    const ResolvedTopology probe = bench::ResolveFor(*this, *topology, 1, values);
    ResolveMarkers(probe, markers_);
    if (generates) bench::GenerationShapeOf(probe);  // a decoder, with a prompt and gen that fit
  }
  for (const auto& [param, values] : values_) {
    if (values.empty()) {
      throw Error(topology->file, "", param, name_ + ": Values(\"" + param + "\") lists none");
    }
  }
  if (batches_.empty()) throw Error(topology->file, "", "batches", name_ + ": no batch sizes");
  for (int64_t s : streams_) {
    if (s <= 0 || s > 256) {
      throw Error(topology->file, "", "streams",
                  name_ + ": streams must be from 1 to 256, got " + std::to_string(s));
    }
  }
  for (const ntpb::Scenario& scenario : scenarios()) {
    if (const std::string problem = ScenarioProblem(scenario); !problem.empty()) {
      throw Error(topology->file, "", "scenario", name_ + ": " + problem);
    }
  }
  for (int64_t b : batches_) {
    if (b <= 0) {
      throw Error(topology->file, "", "batches",
                  name_ + ": batch sizes must be positive, got " + std::to_string(b));
    }
  }
  for (const std::string& backend : backends_) {
    if (const std::string problem = UnknownBackendProblem(backend); !problem.empty()) {
      throw Error(topology->file, "", "backends", name_ + ": " + problem);
    }
    for (Precision p : precisions_) {
      for (const ntpb::Scenario& scenario : scenarios()) {
        for (const ParamEnv& values : combinations) {
          const std::string tag = ScenarioTag(scenario);
          const Family family{bench::FamilyName(*this, *topology, backend, p, values) +
                                  (tag.empty() ? "" : "/" + tag),
                              backend, p, values, scenario};
          families_.push_back(family);
          // What the name abbreviates, in full (defaults too), for the JSON context.
          benchmark::AddCustomContext(
              "ntpbench_config." + family.name,
              bench::ConfigJson(*this, *topology, backend, p, values).dump());
          auto* b = benchmark::RegisterBenchmark(
              family.name.c_str(), [this, topology, family](benchmark::State& state) {
                bench::RunInstance(state, this, topology, family);
              });
          RegisterArgs(b, scenario);
        }
      }
    }
  }
  return params;
}

std::vector<std::unique_ptr<TopologyBenchmark>>& RegisteredTopologyBenchmarks() {
  static std::vector<std::unique_ptr<TopologyBenchmark>> all;
  return all;
}

TopologyBenchmark* RegisterTopologyBenchmark(const char* name, const char* path,
                                             const char* source_file, const char* data_dir) {
  auto& all = RegisteredTopologyBenchmarks();
  all.push_back(std::make_unique<TopologyBenchmark>(name, path, source_file));
  all.back()->installed_data_dir_ = data_dir ? data_dir : "";
  return all.back().get();
}

}  // namespace ntpb
