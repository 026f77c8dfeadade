// Running a sweep file's points (`ntpbench sweep`), also what `ntpbench calibrate` runs its probe
// sweeps with: each point a child `ntpbench run`, recorded atomically as it finishes, resumable.
#pragma once

#include <string>
#include <vector>

namespace ntpb::cli {

struct SweepOptions {
  std::string file;
  std::string output;             // default: <sweep name>.results.json
  std::vector<std::string> base;  // --base KEY=VALUE
  bool resume = false;
  bool dry_run = false;
  double point_timeout = 1800;
  bool print_table = true;  // the per-factor table on stdout at the end
};

// Runs the points the results file does not hold yet; progress on stderr. `passed`: Google
// Benchmark flags given on the command line (refused). Returns the exit code (130: interrupted).
int RunSweep(const SweepOptions& o, const std::vector<std::string>& passed);

}  // namespace ntpb::cli
