// Running a sweep file's points (`ntpbench sweep`), also what `ntpbench calibrate` runs its probe
// sweeps with: each point a child `ntpbench run`, recorded atomically as it finishes, resumable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ntpbench/sweep_results.h"

namespace ntpb::cli {

struct SweepOptions {
  std::string file;
  std::string output;             // default: <sweep name>.results.json
  std::vector<std::string> base;  // --base KEY=VALUE
  bool resume = false;
  bool dry_run = false;
  double point_timeout = 1800;
  bool print_table = true;  // the per-factor table on stdout at the end
  // Seconds this call may spend running points (0: no limit). No point starts once the mean time
  // of those run so far would take it past the budget; the points then run in a spread order
  // (every other point of the design first, then those between...), so that a sweep stopped
  // early still covers its whole design, coarser. Running again goes on with the rest.
  double budget_seconds = 0;
  // Runs a point this call measured once more after the last, for SweepOutcome::drift: the first
  // of a millisecond or more, else the slowest.
  bool measure_drift = false;
};

// What a RunSweep call left in the results file.
struct SweepOutcome {
  size_t points = 0;    // in the sweep
  size_t recorded = 0;  // in the results file now
  bool budget_reached = false;
  // measure_drift: that point's latency run again at the end over its first run, less 1
  // (the machine's own change over the sweep); absent where fewer than two points ran or that
  // run failed.
  std::optional<double> drift;
  std::string drift_point;    // that point's id
  double drift_point_ms = 0;  // its latency: the geometric mean of its two runs
};

// Runs the points the results file does not hold yet; progress on stderr. `passed`: Google
// Benchmark flags given on the command line (refused). Returns the exit code (130: interrupted).
int RunSweep(const SweepOptions& o, const std::vector<std::string>& passed,
             SweepOutcome* outcome = nullptr);

// A measured point's latency (`result` from the results file `file`): the median of its
// repetitions' p50s, in ms.
double PointLatencyMs(const SweepPointResult& result, const std::string& file);

// Runs the point `id` of the sweep file `file` (its settings over `base`, as --base gives them)
// once more, in a child `ntpbench run` as RunSweep does; its latency in ms (the median of its
// repetitions' p50s), or nullopt with the reason in *why.
std::optional<double> MeasureSweepPoint(const std::string& file,
                                        const std::vector<std::string>& base, const std::string& id,
                                        double timeout, std::string* why);
// The same run, whole: the point's result as a results file records it (its run's JSON within).
std::optional<SweepPointResult> RunSweepPointAgain(const std::string& file,
                                                   const std::vector<std::string>& base,
                                                   const std::string& id, double timeout,
                                                   std::string* why);

}  // namespace ntpb::cli
