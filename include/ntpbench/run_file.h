// A run file: Google Benchmark JSON as ntpbench writes it (`ntpbench run --json`, a suite's
// --benchmark_out), read into the results model. `ntpbench compare`, `report`, the gate and the
// baseline store read runs through this one reader.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ntpbench/machine_class.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/results.h"

namespace ntpb {

// One benchmark of a run (or of a baseline), its repetitions gathered.
struct BenchmarkResult {
  std::vector<double> real_time_ms;  // every repetition, in run order
  // Scenario runs (scenario.h): every repetition's p99 latency per query, queueing included
  // (net.p99_ms), judged like real_time_ms; empty for single-stream runs.
  std::vector<double> p99_ms;
  // As stored: the exact analytic counters (net.flops, net.params, mem.weight_bytes,
  // mem.peak_activation_bytes) and every other counter, median over the repetitions.
  std::map<std::string, double> analytic;
  std::map<std::string, double> counters;
  // Each repetition's counters (run files only; baselines keep the medians): what tells a
  // layer's change from its noise.
  std::vector<std::map<std::string, double>> repetitions;
  // What ran, step by step (op, shape, kernel, analytic cost: the run's "ntpbench" object,
  // results.h's EncodeDescription); null in files written before it existed and in baselines.
  nlohmann::json description;
  std::string skipped;  // why it did not run ("" when it ran)
  // What it ran with, from the run's context (ntpbench_config.<family>); null when unrecorded.
  nlohmann::json config;

  // Counters and description, decoded into the results model (results.h): what the
  // comparator, `compare` and reports read.
  RunMeasurement Measurement() const;
  // One repetition's measurement (counters only).
  RunMeasurement RepetitionMeasurement(std::size_t repetition) const;
  // How far apart its cores were at most (InterferenceMeasure::core_to_core_ns over its
  // repetitions, else its medians); 0 where not measured.
  double CoreToCoreNs() const;
};

struct RunResults {
  std::string file;
  bool has_machine = false;  // the run recorded its machine class (ntpbench suites do)
  MachineClass machine;
  // The machine's measured ceilings when the run had them (`ntpbench machine` had measured this
  // machine and thread count): the roofline of reports.
  std::optional<MachinePeaks> peaks;
  int threads = 0;  // threads per run (context ntpbench_threads); 0 when unrecorded
  nlohmann::json context = nlohmann::json::object();
  std::map<std::string, BenchmarkResult> benchmarks;  // by Google Benchmark run name
  std::vector<std::string> order;                     // the names, in the order the run wrote them
  double peak_rss_bytes = 0;                          // largest mem.peak_rss_bytes seen
};

// Google Benchmark JSON (as written with --benchmark_out_format=json). Throws ntpb::Error
// naming the file when it is unreadable, truncated or not benchmark JSON.
RunResults ReadRunResults(const std::string& path);
RunResults ParseRunResults(const std::string& text, const std::string& file);

}  // namespace ntpb
