// Baselines: stored results of a suite on one machine class, and the results of a run, both
// read from and written as JSON (the comparator reads JSON only).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/machine_class.h"
#include "ntpbench/results.h"

namespace ntpb {

// One benchmark of a run (or of a baseline), its repetitions gathered.
struct BenchmarkResult {
  std::vector<double> real_time_ms;  // every repetition, in run order
  // As stored: the exact analytic counters (net.flops, net.params, mem.weight_bytes,
  // mem.peak_activation_bytes) and every other counter, median over the repetitions.
  std::map<std::string, double> analytic;
  std::map<std::string, double> counters;
  std::string skipped;  // why it did not run ("" when it ran)
  // What it ran with, from the run's context (ntpbench_config.<family>); null when unrecorded.
  nlohmann::json config;

  // Both maps, decoded into the results model (results.h): what the comparator reads.
  RunMeasurement Measurement() const;
};

struct RunResults {
  std::string file;
  bool has_machine = false;  // the run recorded its machine class (ntpbench suites do)
  MachineClass machine;
  nlohmann::json context = nlohmann::json::object();
  std::map<std::string, BenchmarkResult> benchmarks;  // by Google Benchmark run name
  double peak_rss_bytes = 0;                          // largest mem.peak_rss_bytes seen
};

inline constexpr int kBaselineSchemaVersion = 1;

struct Baseline {
  std::string file;
  std::string suite;
  MachineClass machine;
  std::string created;  // UTC, ISO 8601
  nlohmann::json context = nlohmann::json::object();
  std::map<std::string, BenchmarkResult> benchmarks;
  double peak_rss_bytes = 0;
  // Per-benchmark latency thresholds (relative, 0.05 = 5%) overriding the default; keys are
  // benchmark names or prefixes of them.
  std::map<std::string, double> thresholds;
};

// Google Benchmark JSON (as written with --benchmark_out_format=json). Throws ntpb::Error
// naming the file when it is unreadable, truncated or not benchmark JSON.
RunResults ReadRunResults(const std::string& path);
RunResults ParseRunResults(const std::string& text, const std::string& file);

// Throws ntpb::Error naming the file and field on corrupt, truncated or wrong-schema files.
Baseline ReadBaseline(const std::string& path);
Baseline ParseBaseline(const std::string& text, const std::string& file);
std::string SerializeBaseline(const Baseline& baseline);
// Temporary file + rename: an interrupted write leaves the old baseline intact.
void WriteBaseline(const Baseline& baseline, const std::string& path);

// <dir>/<machine class id>/<suite>.json
std::string BaselinePath(const std::string& dir, const MachineClass& machine,
                         const std::string& suite);

}  // namespace ntpb
