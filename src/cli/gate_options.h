// The options of `ntpbench gate`, `compare` and `baseline update`, and how a comparison is
// reported (table on stdout, JSON with --report).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "ntpbench/comparator.h"

namespace ntpb::cli {

struct GateOptions {
  std::string suite_binary, suite, baseline_dir, baseline_file, filter, report;
  std::vector<std::string> run_files;  // --run, repeatable: sessions of one baseline update
  std::string control_binary;          // --control-binary: A/B against this build
  std::string control_dir;  // --control-dir: A/B against the suite of the same name in it, if any
  // The defaults of ntpbench_add_suite (cmake/Ntpbench.cmake), so that `ntpbench gate` by hand
  // judges as `ctest -L perf` does.
  int repetitions = 6;
  int sessions = 1;  // gate --update: runs of the suite whose spread sets the thresholds
  double min_time = 0.2;
  bool update = false, force = false, rerun_inconclusive = false;
  bool signature_only = false;  // baseline update --signature-only
  CompareOptions compare;
  std::vector<std::string> suite_args;  // --ntpb_* and --benchmark_* passed to the suite
};

// How a run is judged against its reference (gate and compare): --alpha, --threshold,
// --threshold-for, --raw, --judge, --report.
void AddJudgingOptions(CLI::App* command, GateOptions* o);
// Which suite and baseline, and how it runs (gate): --suite-binary, --suite, --baseline-dir,
// --repetitions, --min-time, --filter, --confirm, --update, --sessions, --force, --control-*.
void AddGateOptions(CLI::App* command, GateOptions* o);
// A baseline from runs made elsewhere (baseline update): --run, --suite, --baseline-dir or
// --baseline, --filter, --force, --signature-only.
void AddBaselineUpdateOptions(CLI::App* command, GateOptions* o);

// Prints the comparison table, writes --report (atomically); returns the exit code.
int Report(const GateOptions& o, const Comparison& c);

}  // namespace ntpb::cli
