// Command-line parsing shared by the ntpbench subcommands.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/expression.h"
#include "ntpbench/precision.h"
#include "ntpbench/topology.h"

namespace ntpb::cli {

struct CliOptions {
  std::string file;
  std::vector<std::string> backends = {"eigen"};
  std::vector<int64_t> batches = {1};
  std::vector<Precision> precisions = {Precision::kF32};
  ParamEnv sets;
  std::map<std::string, std::string> backend_options;  // --backend-option onednn.fusion=off
  std::vector<Marker> markers;
  int threads = 0;
  int64_t seed = -1;     // -1: the default (42)
  std::string json_out;  // run: also write Google Benchmark JSON here; inspect: print JSON
  bool json = false;
  std::vector<std::string> counters;     // --counters sde,perf,rusage,memory,PAPI_TOT_CYC,...
  bool layer_counters = false;           // --layer-counters
  std::string table = "text";            // --table: a RunReportFormat
  std::vector<std::string> passthrough;  // --benchmark_* flags, handed to Google Benchmark
};

// Parses `args` (after the subcommand); throws ntpb::Error naming the option.
CliOptions ParseCliOptions(const std::vector<std::string>& args, bool allow_benchmark_flags);

}  // namespace ntpb::cli
