// The batching decision: scenario runs (scenario.h) side by side, throughput against p99
// latency, with the Pareto front marked.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/results.h"

namespace ntpb {

struct ScenarioRun {
  std::string name;         // the Google Benchmark run's name
  RunMeasurement measured;  // `scenario` empty for a single-stream run
  int threads = 0;          // a single-stream run's threads (a scenario's are in `scenario`)
};

// Whether each run is on the Pareto front of throughput (samples per second, higher is better)
// against p99 latency (lower is better) among the runs of its topology, backend and precision:
// no other is at least as good in both and better in one.
std::vector<bool> ParetoFront(const std::vector<ScenarioRun>& runs);

// One row per run: scenario, streams x threads each, batch, samples/s, queries/s, p50 and p99 ms,
// queries measured (with how many the p99 needs when fewer), and "*" on the Pareto front; a
// max-QPS search's bound and result under the table.
std::string RenderScenarioTable(const std::vector<ScenarioRun>& runs);

// The generate scenario's runs (a decoder's requests): one row each with batch, prompt, gen,
// time to first token, time per output token p50/p90/p99, tokens per second of the prefill, of
// the decode steps and overall, the key/value caches' bytes and the requests measured.
std::string RenderGenerationTable(const std::vector<ScenarioRun>& runs);

// A generate run's phases side by side, per layer: the prefill's and a decode step's mean time,
// share and roofline bound (compute or the memory level), then each phase's total and the
// memory traffic a decode step achieved (analytic bytes over its time), against the machine's
// read bandwidth when `bandwidth_gbs` > 0.
std::string RenderPhaseTable(const RunMeasurement& run, double bandwidth_gbs);

}  // namespace ntpb
