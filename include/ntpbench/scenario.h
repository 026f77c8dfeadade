// How queries reach a topology: MLPerf LoadGen's scenarios, each a Google Benchmark family.
//
//   NTPB_TOPOLOGY_BENCHMARK(resnet, "topologies/resnet50.json")
//       ->Backends({"onednn"})->Batches({1, 2, 4})
//       ->Scenario(ntpb::Scenario::Offline())->Streams({1, 2});
//
// names instances `resnet/onednn/f32/offline/streams:2/batch:4`. Single-stream (the default)
// keeps the plain `resnet/onednn/f32/batch:4`. Every scenario reports its throughput as
// net.samples_per_second and its per-query latency (queueing included) as net.p50_ms ..
// net.p99_ms, so tables, JSON and the perf gate read them as for any run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ntpb {

enum class ScenarioKind {
  kSingleStream,  // one query at a time, one stream: the latency distribution
  kOffline,       // every stream busy with its own queries at once: samples per second
  kServer,        // Poisson arrivals at a rate, served by the streams: QPS and latency
  kMultiStream,   // one query at a time of samples_per_query samples, split over the streams
  kGenerate,      // a decoder's requests: prefill the prompt, then decode gen tokens one by one
};

struct Scenario {
  ScenarioKind kind = ScenarioKind::kSingleStream;
  double target_qps = 0;          // server: the arrival rate (queries per second)
  double p99_bound_ms = 0;        // server: > 0 searches the highest rate whose p99 meets it
  int64_t samples_per_query = 0;  // multi-stream: samples per query (0: streams x batch)
  int64_t queries = 0;            // queries per measurement; 0: enough for the p99 (below)

  static Scenario SingleStream() { return {}; }
  static Scenario Offline() { return {ScenarioKind::kOffline}; }
  static Scenario Server(double qps) { return {ScenarioKind::kServer, qps}; }
  static Scenario MaxQps(double p99_bound_ms) { return {ScenarioKind::kServer, 0, p99_bound_ms}; }
  static Scenario MultiStream(int64_t samples_per_query) {
    return {ScenarioKind::kMultiStream, 0, 0, samples_per_query};
  }
  // A decoder's generation (src/bench/generation.h): each query is a request of `batch`
  // sequences, a prefill of the topology's `prompt` tokens (time to first token) and `gen`
  // decode steps (time per output token), the key/value caches appended in place. With a rate
  // (requests per second), requests arrive as a Poisson process and wait for the one stream:
  // the time to first token then counts from the arrival, queueing included (no batching of
  // requests together).
  static Scenario Generate(double requests_per_second = 0) {
    return {ScenarioKind::kGenerate, requests_per_second};
  }
  // The same scenario measured over `n` queries: Scenario::Offline().WithQueries(200).
  Scenario WithQueries(int64_t n) const {
    Scenario s = *this;
    s.queries = n;
    return s;
  }
};

// What a scenario takes and how it measures, as flags of ScenarioInfo::traits.
enum ScenarioTrait : unsigned {
  kScenarioServesQueries = 1u << 0,      // a count of queries within --ntpb_scenario_seconds
  kScenarioStreams = 1u << 1,            // concurrent executables, one per stream (--streams)
  kScenarioRate = 1u << 2,               // an arrival rate (target_qps, --target-qps)
  kScenarioNeedsRate = 1u << 3,          // cannot run without a rate or a p99 search
  kScenarioP99Search = 1u << 4,          // the highest rate meeting a p99 bound (--find-max-qps)
  kScenarioSamplesPerQuery = 1u << 5,    // samples per query (--samples-per-query)
  kScenarioQuerySpansStreams = 1u << 6,  // a query is a batch on every stream at once
  kScenarioQueueing = 1u << 7,           // latencies include queueing: their spread is by design
};

// One scenario: the one table (scenario.cc) that names, tags, documents and checks scenarios.
// A new scenario: its ScenarioKind, its entry there, and how it serves queries (the bench's
// table in src/bench/scenario_run.cc).
struct ScenarioInfo {
  ScenarioKind kind;
  const char* name;     // as --scenario and the run file write it
  const char* tag;      // the family name's first part ("" for single-stream)
  const char* summary;  // one phrase for --help
  unsigned traits;      // ScenarioTrait flags
  bool Has(ScenarioTrait t) const { return (traits & t) != 0; }
};

// Every scenario, single-stream first.
const std::vector<ScenarioInfo>& Scenarios();

// The entry of `kind`.
const ScenarioInfo& InfoOf(ScenarioKind kind);

// Whether `value` is a ScenarioKind's (a file's number, before it is cast).
bool IsScenarioKind(int value);

// "single-stream", "offline", "server", "multi-stream", "generate".
const char* ScenarioName(ScenarioKind kind);

// Every scenario's name, comma-separated: "single-stream, offline, server, multi-stream".
std::string ScenarioNames();

// The names of the scenarios that have `trait`: "offline, server or multi-stream".
std::string ScenarioNamesWith(ScenarioTrait trait);

// Parses a scenario name; throws ntpb::Error naming `field` and the names it knows.
ScenarioKind ParseScenarioKind(const std::string& text, const std::string& field);

// Why `scenario` cannot run as given, "" when it can: a server without a rate or a p99 bound.
std::string ScenarioProblem(const Scenario& scenario);

// The family name's part for the scenario: "" for single-stream, "offline", "server/qps:200",
// "server/p99_ms:50" (the max-QPS search), "multistream/samples:8", "generate",
// "generate/qps:0.5"; "/queries:N" when set.
std::string ScenarioTag(const Scenario& scenario);

// Queries one measurement may ask for: it keeps each query's latency (80 MB at this count), and
// no topology serves more within a scenario's time limit on one machine.
inline constexpr int64_t kMaxQueries = 10'000'000;

// Queries a percentile needs before it means something: at least 10 of them above it, so a
// p99 needs 1000 queries, a p90 100 (LoadGen asks more: 270 336 for a server p99 at 99%
// confidence; ntpbench says how many a result had next to how many it needs).
int64_t QueriesForPercentile(double percentile);

}  // namespace ntpb
