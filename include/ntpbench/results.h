// The typed results model: what one benchmark run of a topology measured (the network, its
// markers, every executed step, the memory signature, the accuracy delta), and the one codec
// between it and Google Benchmark's flat counters ("net.samples_per_second",
// "layer.conv1.gflops", "mem.workspace_bytes"), which stay in the JSON for compare.py and every
// Google Benchmark tool.
//
// The code that measures (bench) encodes this model; the code that reads a run (the run table,
// the baseline store, the comparator, reports) decodes it. No other code spells a counter name.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ntpbench/scenario.h"

namespace ntpb {

// Time and measured counters of one region (the network, a marker or a step), per iteration.
struct RegionMeasure {
  double ms = 0;  // mean: what Google Benchmark's time adds up
  // Of the sum of all steps' Typical() times: the share of the time shown beside it (files
  // from before: of the sum of the means).
  double time_share = 0;
  double gflops = 0;  // the region's analytic FLOPs over its measured time
  // The counter sources' metrics by name ("page_faults", "PAPI_TOT_CYC", derived "ipc").
  std::map<std::string, double> counters;
  // Time on the device by its own clock (OpenCL profiling events), from inferences run with no
  // host wait between steps; 0 where the backend does not measure it (CPU backends).
  double device_ms = 0;
  // The median, fastest and slowest of its iterations (NetworkMeasure::step_samples of them); 0
  // where not recorded (files from before they were).
  double p50_ms = 0, min_ms = 0, max_ms = 0;

  // Its headline time: the median where recorded, else (older files) the mean.
  double Typical() const { return max_ms > 0 ? p50_ms : ms; }
};

enum class StepKind {
  kLayer,  // computes one layer of the topology
  kFused,  // computes a layer and the ones after it it absorbed (post-op fusion)
  kInlay,  // inserted by the backend: a layout reorder, a quantize or a dequantize
};
const char* StepKindName(StepKind kind);  // "layer", "fused", "inlay"

// A step's analytic cost, over all the layers it computes (analysis.h's Cost, as numbers).
struct StepCost {
  double flops = 0;
  double params = 0;
  double weight_bytes = 0;          // stored weights at the run's precision
  double input_bytes = 0;           // activations read
  double output_bytes = 0;          // activations written
  double weight_traffic_bytes = 0;  // weight bytes read per inference (recurrent re-reads)
  // Bytes moved per inference: the roofline's memory traffic.
  double Bytes() const { return weight_traffic_bytes + input_bytes + output_bytes; }
  double Intensity() const { return Bytes() > 0 ? flops / Bytes() : 0; }  // FLOPs per byte
  StepCost& operator+=(const StepCost& o) {
    flops += o.flops;
    params += o.params;
    weight_bytes += o.weight_bytes;
    input_bytes += o.input_bytes;
    output_bytes += o.output_bytes;
    weight_traffic_bytes += o.weight_traffic_bytes;
    return *this;
  }
};

// One step the backend executed.
struct StepMeasure {
  std::string name;  // the layer's name; an inlay's name is the backend's ("conv1.reorder.image")
  StepKind kind = StepKind::kLayer;
  int order = -1;         // position in execution order; -1 where the run did not record it
  int fused_layers = 0;   // kFused: how many layers after this one the step also computes
  int feeds = -1;         // kInlay: the index of the layer it prepares an input for, or -1
  std::string inlay_op;   // kInlay: "reorder", "quantize", "dequantize" (or "inlay": unknown)
  RegionMeasure measure;  // ms, time share, GFLOP/s (0 for inlays) and counters
  // What the step computes, from the run's description (empty in files from before it):
  std::string op;                   // the layer's op ("conv2d"), an inlay's ("reorder")
  std::string shape;                // its output's shape, "1x64x56x56"; "" for inlays
  std::string kernel;               // the implementation the backend chose; "" when no choice
  std::vector<std::string> layers;  // the topology's layers it computes, in order
  // Each of `layers`' op and output shape ("conv2d", "1x64x56x56"): the run table lists the
  // layers a step absorbed under it (older files: empty).
  std::vector<std::string> layer_ops, layer_shapes;
  // kLayer and kFused: the layer is an inlay of the topology's own (MFCC, the CTC decoder), not a
  // network layer; kInlay steps are the backend's.
  bool inlay_layer = false;
  StepCost cost;  // analytic; 0 for inlays
  // Its roofline bound where the machine's ceilings were known (`ntpbench machine`): the least
  // time the machine needs for it, and what sets that bound ("compute", or the bytes' plateau:
  // "l2", "l3", "memory").
  double roof_ms = 0;
  std::string bound;
  // Runs below f32: its output's RMS-scaled error against the same layer's in the f32 reference
  // (the first seeded input); -1 where not measured (f32, an inlay, a discrete output).
  double rms_rel_err = -1;
};

// A marker: a named range of layers, timed as the sum of its steps.
struct MarkerMeasure {
  std::string name;
  RegionMeasure measure;
  int first_step = -1, last_step = -1;  // the steps it spans, where the run recorded them
};

// Measured iterations as they happened (`--trace`): each step's begin and end on the monotonic
// clock, in the thread that ran the steps (a backend's worker threads run inside them).
struct RunTrace {
  int64_t thread_id = 0;
  std::vector<std::vector<int64_t>> iterations;  // per iteration: begin, end of each step, ns
};

// The whole network, per inference of a batch.
struct NetworkMeasure {
  double samples_per_second = 0;
  double gflops = 0;
  double flops = 0;                           // analytic, exact
  double params = 0;                          // analytic, exact
  double p50_ms = 0, p90_ms = 0, p99_ms = 0;  // per-iteration latency percentiles
  // The fastest and slowest of those iterations, and how many there were (0: not recorded, as
  // in files from before they were): a p99 of 12 iterations is their slowest, not a p99.
  double min_ms = 0, max_ms = 0, latency_samples = 0;
  // The iterations behind the steps' and markers' p50_ms, min_ms and max_ms (the first of the
  // timed loop, at most StepSamples keeps; 0: not recorded).
  double step_samples = 0;
  std::map<std::string, double> counters;  // the counter sources' metrics over the network
  // The counters come from a pass of their own after the timed loop (reading them costs time the
  // timed numbers must not hold): its iterations and its mean time per iteration, counting
  // included (0: no counters).
  double counted_iterations = 0, counted_ms = 0;
};

// The memory signature (DESIGN.md): analytic parts exact, the backend's plan, and what the
// memory counter source and rusage measured.
struct MemorySignature {
  double weight_bytes = 0;                 // analytic
  double peak_activation_bytes = 0;        // analytic: largest live set
  std::optional<double> workspace_bytes;   // the backend's scratchpads
  std::optional<double> activation_bytes;  // the backend's activation buffers, after reuse
  std::optional<double> peak_rss_bytes;    // process-wide, when counters were measured
  std::optional<double> allocs;            // heap allocations per inference (memory source)
  std::optional<double> alloc_bytes;       // bytes allocated per inference (memory source)
};

// Outputs against the Eigen f32 reference (runs in a lower precision), with the same weights and
// inputs. Relative errors are RMS-scaled, ||actual - reference|| / ||reference||: a scale that
// means something for any tensor (an element-wise max(1, |r|) is an absolute error on
// probabilities, and a saturated softmax hides what went before it).
struct OutputAccuracy {
  double max_rel_err = 0;  // max |a - r| / max(1, |r|) over the outputs' elements
  double cosine = 0;
  double rms_rel_err = 0;  // of the outputs
  // The logits: the input of a final softmax (its name in the run's description; 0 and "" when
  // the outputs are no softmax's), where a lower precision's loss shows.
  double logits_rms_rel_err = 0, logits_cosine = 0;
  std::string logits;
  // Classifier outputs (last axis the classes): the share of predictions whose argmax agrees with
  // the reference's, and the mean overlap of their 5 best classes (with more than 5 classes),
  // over `predictions` rows of `inputs` seeded inputs; -1 where not measured.
  double top1_agreement = -1, top5_overlap = -1;
  double predictions = 0, inputs = 0;
};

// What ran, as the run's description records it.
struct RunSetup {
  std::string topology;   // the topology's name
  std::string backend;    // "eigen", "onednn"
  std::string precision;  // "f32", "bf16", "f16", "i8"
  int64_t batch = 0;      // 0: not recorded
};

// How queries reached the topology (scenario.h), recorded for every scenario but single-stream;
// its throughput and per-query latency percentiles are the NetworkMeasure's.
struct ScenarioMeasure {
  ScenarioKind kind = ScenarioKind::kOffline;
  int streams = 1;
  int threads_per_stream = 0;
  double queries = 0;         // measured, over all iterations
  double queries_needed = 0;  // for its p99 to mean something (QueriesForPercentile)
  double samples_per_query = 0;
  double target_qps = 0;    // server: the arrival rate
  double achieved_qps = 0;  // queries completed per second
  double p99_bound_ms = 0;  // server, max-QPS search: the bound
  double max_qps = 0;       // server, max-QPS search: the highest rate that met it
  // generate: per request (a query) `samples_per_query` sequences of `prompt_tokens` prefilled
  // and `gen_tokens` decoded one at a time. Time to first token (the prefill) per request, time
  // per output token per decode step; tokens per second of each phase and overall (prompt and
  // generated tokens of every sequence over the requests' time); the caches at the end.
  double prompt_tokens = 0, gen_tokens = 0;
  double ttft_p50_ms = 0, ttft_p90_ms = 0, ttft_p99_ms = 0;
  double tpot_p50_ms = 0, tpot_p90_ms = 0, tpot_p99_ms = 0;
  double prefill_tokens_per_s = 0, decode_tokens_per_s = 0, tokens_per_s = 0;
  double kv_cache_bytes = 0;
  double decode_steps = 0;  // measured, over all requests
};

// How much the rest of the machine took while a run measured (JudgeInterference below judges it):
// the cores this process may use are shared with other processes and, in a VM, other guests, and an
// OpenMP barrier waits for whichever thread was descheduled.
struct InterferenceMeasure {
  double seconds = 0;  // the span observed: the timed loop, or a scenario's measurement
  // Involuntary context switches of all this process's threads (another task took the core):
  // per iteration (per query in scenarios), and per second per core.
  double involuntary_switches = 0;
  double involuntary_switches_per_core_second = 0;
  double steal_share = 0;   // of the cores' time: the hypervisor ran another guest (/proc/stat)
  double others_share = 0;  // of the cores' time: other processes ran (/proc/stat less our own)
  // Median absolute percentage deviation of the iterations' latencies from their median
  // (nanobench's MdAPE); 0 where not measured (scenarios' queue latencies vary by design).
  double mdape = 0;
  // How far apart the cores were: their one-way core-to-core latency, the larger of a reading
  // before the span and one after it (0: not measured, or one core). Not judged: a VM's host
  // places its virtual CPUs near or far (25-32 against 170-190 ns on a 2-core AMD EPYC guest)
  // and a small network's steps take longer in the far placement; a measurement is compared
  // with one made in the same placement (SameCorePlacement).
  double core_to_core_ns = 0;
};

// Whether cores measured `ns` and `reference_ns` apart were placed alike: within 2x of each
// other, or 30 ns (the two placements seen differ 6x; readings within one, by a few ns). True
// where either is 0 (not measured: nothing to tell them apart).
bool SameCorePlacement(double ns, double reference_ns);

// Whether a measurement can be trusted. A shared machine disturbs a run in ways its own time
// cannot show: another process on the same cores preempts a thread and an OpenMP barrier waits
// for it (an mlp's p99 went from 1.3 to 32 ms beside a busy neighbour on a 2-core VM), or the
// hypervisor runs another guest (steal). The run table, the JSON, reports and the gate say
// "unreliable" with what was seen (reliability.h judges a run file's repetitions).
// Beyond any of these a measurement is unreliable. The defaults, and why, are in the README
// ("A busy machine").
struct ReliabilityLimits {
  double others_share = 0.10;  // other processes took over 10% of the cores' time
  double steal_share = 0.05;   // the hypervisor gave over 5% of it to other guests
  // Shares are read from /proc/stat in clock ticks (10 ms): over a span shorter than this they
  // are a tick or two either way, not a share (a 1 ms run read "100% taken by others"). A span
  // of 0 (not recorded) is judged.
  double min_seconds_for_shares = 0.25;
  // Preemptions of this process's threads, per second per core: a quiet machine shows 15-18
  // (kernel threads), a neighbour on the same cores one per scheduler slice. Judged from 50
  // per core on: a short measurement's few start-up switches make no rate.
  double involuntary_switches_per_core_second = 50;
  double min_switches_per_core = 50;
  // ...and only where other processes ran at all (over 2% of the cores' time): a backend whose
  // runtime keeps threads of its own beside the run's (PoCL's pool: 4400 switches per
  // core-second with nothing else running) preempts itself, which is no neighbour.
  double switches_need_others_share = 0.02;
  // Repetitions whose times spread by more (nanobench's rule: MdAPE over 5%). The iterations'
  // MdAPE is recorded, not judged: single iterations of the same network moved 1-9% on a quiet
  // 2-core VM.
  double mdape = 0.05;
  int min_repetitions = 3;  // fewer repetitions have no spread to judge
};

struct Reliability {
  bool reliable = true;
  bool busy = false;  // the machine was busy (not only a spread)
  std::string seen;   // what was seen, when unreliable

  // "" when reliable; else "unreliable: the machine was busy (others took 48% of the cores'
  // time, ...)" or "unreliable: its repetitions spread 7.1% (MdAPE over 5%)".
  std::string Verdict() const;
};

// One measurement (the reporters of the code that measures call this).
Reliability JudgeInterference(const InterferenceMeasure& measure,
                              const ReliabilityLimits& limits = {});
// One phase of a generation (the generate scenario): its name ("prefill", "decode") and its
// steps, each with its mean time per run of the phase (a decode phase: per token), its cost at
// the phase's shapes (a decode step's at the mean context) and its roofline bound.
struct PhaseMeasure {
  std::string name;
  double runs = 0;  // prefills, or decode steps, measured
  std::vector<StepMeasure> steps;
};

struct RunMeasurement {
  RunSetup setup;
  NetworkMeasure net;
  std::optional<ScenarioMeasure> scenario;
  std::optional<InterferenceMeasure> interference;
  std::vector<StepMeasure> steps;  // in execution order where it was recorded
  std::vector<MarkerMeasure> markers;
  std::vector<PhaseMeasure> phases;  // generate: prefill and decode, per layer
  MemorySignature memory;
  std::optional<OutputAccuracy> accuracy;
  RunTrace trace;  // empty unless the run was traced
  // Counters in the run that are not ntpbench's (a benchmark's own state.counters).
  std::map<std::string, double> other;

  const StepMeasure* FindStep(const std::string& name) const;
  const MarkerMeasure* FindMarker(const std::string& name) const;
};

// The values the baseline store and the comparator judge one by one, with their names in the
// JSON (and so in baselines, signatures and the comparator's "metric" column).
enum class Metric {
  kFlops,                // net.flops             analytic
  kParams,               // net.params            analytic
  kWeightBytes,          // mem.weight_bytes      analytic
  kPeakActivationBytes,  // mem.peak_activation_bytes  analytic
  kWorkspaceBytes,       // mem.workspace_bytes
  kActivationBytes,      // mem.activation_bytes
  kAllocs,               // net.allocs
  kAllocBytes,           // net.alloc_bytes
  kPeakRssBytes,         // mem.peak_rss_bytes
};
const char* MetricName(Metric metric);
// The metric's value in `m`; empty where the run did not measure it.
std::optional<double> MetricValue(const RunMeasurement& m, Metric metric);
// Analytic metrics are exact and machine-independent: FLOPs, params, weight and peak
// activation bytes.
bool IsAnalytic(Metric metric);
// The metric a counter name stands for, if it is one of them.
std::optional<Metric> MetricOfCounter(const std::string& counter);
// What is wrong with `value` as the counter `counter` of a run file, or empty when nothing is:
// every counter is a finite number (no NaN or infinity, no denormal; an error against the
// reference, "..rel_err", may be +infinity: the outputs were not finite), not negative except a
// cosine (-1 to 1), and a count or an index (a step's order, samples, queries) is a whole number
// below 2^53. Readers refuse such a file naming the field instead of comparing or storing it.
std::optional<std::string> CounterValueProblem(const std::string& counter, double value);

// Names a counter source's memory metrics carry, which the memory signature reads back.
inline constexpr const char* kAllocsMetric = "allocs";
inline constexpr const char* kAllocBytesMetric = "alloc_bytes";

// One counter as Google Benchmark gets it; `bytes`: shown with 1024-based prefixes.
struct EncodedCounter {
  std::string name;
  double value = 0;
  bool bytes = false;
};
std::vector<EncodedCounter> EncodeCounters(const RunMeasurement& m);
// The inverse of EncodeCounters. Counters it does not know land in `other`; a marker is a
// region with a time (".ms"). JSON written before a field existed leaves it at its default.
RunMeasurement DecodeCounters(const std::map<std::string, double>& counters);

// A per-step counter ("layer.<step>.<metric>").
bool IsStepCounter(const std::string& counter);
// What Google Benchmark's console line shows by default (samples/s, the p50 and p99 latency
// beside Google Benchmark's mean time, and the cosine to the f32 reference of a lower
// precision), so that it stays one readable line: every counter is in the JSON, the markers in
// ntpbench's table.
bool IsHeadlineCounter(const std::string& counter);

// The part of the model Google Benchmark's counters cannot hold (strings: the setup, each step's
// op, shape, kernel and layers, with its analytic cost), as one JSON object that ntpbench's JSON
// reporter writes into each benchmark's entry as "ntpbench" (Google Benchmark's tools ignore
// it).
nlohmann::json EncodeDescription(const RunMeasurement& m);
// Fills `m`'s setup and steps from a description (steps matched by name; a step only the
// description has is added). Throws ntpb::Error naming the field ("ntpbench.steps[3].flops")
// when a value has the wrong type.
void DecodeDescription(const nlohmann::json& description, RunMeasurement* m);

}  // namespace ntpb
