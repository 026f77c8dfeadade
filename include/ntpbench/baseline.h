// Baselines: stored results of a suite on one machine class, and the results of a run, both
// read from and written as JSON (the comparator reads JSON only).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/machine_class.h"
#include "ntpbench/results.h"
#include "ntpbench/run_file.h"

namespace ntpb {

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
