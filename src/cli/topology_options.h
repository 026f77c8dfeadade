// The options of `ntpbench run` and `ntpbench inspect`: which topology, how it is built and what
// is measured. Declared on a CLI11 command; values are checked as they are read.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/expression.h"
#include "ntpbench/precision.h"
#include "ntpbench/report.h"
#include "ntpbench/topology.h"
#include "src/bench/run_settings.h"

namespace ntpb::cli {

struct TopologyOptions {
  std::string file;
  std::string name;  // run: --name, the benchmark's name (default the topology's)
  std::vector<std::string> backends = {"eigen"};
  std::vector<int64_t> batches = {1};
  std::vector<Precision> precisions = {Precision::kF32};
  ParamEnv sets;
  ParamLists set_lists;  // run: --set n_hidden=512,1024 runs each value as its own family
  std::vector<Marker> markers;
  // run: --threads, --seed, --backend-option, --device, --place, --layer-counters (declared from
  // bench::RunSettingFlags(), as a suite's --ntpb_* flags); sets, inputs and the trace switch are
  // filled in by the run.
  bench::RunSettings settings;
  std::string json_out;                            // run: also write Google Benchmark JSON here
  std::string trace_out;                           // run: a Chrome trace of the measured iterations
  std::map<std::string, std::string> input_files;  // run: --input NAME=FILE (audio, .pb, .npy)
  std::map<std::string, std::string> check_outputs;  // run: --check-output NAME=FILE
  double check_tolerance = 1e-4;                     // run: --check-tolerance
  bool json = false;                                 // inspect: print JSON
  std::vector<std::string> counters;  // --counters sde,perf,rusage,memory,PAPI_TOT_CYC,...
  std::string table = "text";         // --table: a RunReportFormat
  TableView view;                     // --wide, --top (and --sort, --benchmark_time_unit)
  std::string sort = "order";         // --sort order|time
  bool quiet = false;                 // --quiet: no context block
  // run: how queries arrive (scenario.h)
  std::vector<std::string> scenarios;  // --scenario single-stream,offline,server,multi-stream
  std::vector<int64_t> streams;        // --streams 1,2 (default 1)
  double target_qps = 0;               // --target-qps (server)
  double p99_bound_ms = 0;             // --find-max-qps --p99 50ms (server)
  bool find_max_qps = false;
  int64_t samples_per_query = 0;  // --samples-per-query (multi-stream)
  int64_t queries = 0;            // --queries per measurement
  double scenario_seconds = 0;    // --scenario-seconds (0: the default)
};

enum class TopologyCommand { kRun, kInspect };

// `--set` may name a param by another name it answers to (an ONNX dim's own: `seq` for T): from
// here on the param's own name, so that benchmark names, checks and files see one name. The
// batch is `--batch`'s; `--set batch=...` for it is refused.
void CanonicalizeParams(const Topology& topology, TopologyOptions* o);

// Declares the options of `which` on `command`, parsed into `o`. A bad value is a CLI11
// validation error or an ntpb::Error naming the option.
void AddTopologyOptions(CLI::App* command, TopologyOptions* o, TopologyCommand which);

}  // namespace ntpb::cli
