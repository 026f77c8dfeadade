// Counters per region (net, markers, and layers when asked): which step boundaries to sample,
// the counted run that samples them (a pass of its own after the timed loop), and the
// per-iteration averages it reports.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/counters.h"
#include "ntpbench/results.h"

namespace ntpb::bench {

struct Region {
  enum Of { kNet, kMarker, kStep } of;
  std::size_t index;       // kMarker: into RunMeasurement::markers; kStep: into its steps
  std::size_t first_step;  // the region samples before this step
  std::size_t end_step;    // and after step end_step - 1
};

class RegionCounters {
 public:
  RegionCounters(std::unique_ptr<CounterSet> counters, std::vector<Region> regions,
                 std::vector<StepCounts> step_counts, std::size_t steps);

  // Runs every step once, sampling the counters at the boundaries of the regions; returns the
  // iteration's wall time, counting included. Never inside the timed loop: the counted pass
  // runs after it (its cost is reported beside the timed numbers, not in them).
  int64_t RunCounted(Executable& executable);
  // Starts the sources and clears the sums (Google Benchmark calls a benchmark once per trial).
  void Start();
  void Stop() { counters_->Stop(); }
  // Each region's metrics averaged over the iterations, with derived metrics (ipc,
  // bytes_per_flop, cache miss rates) where their inputs were measured, into the counters of
  // the network, marker or step it measures (which `out` must already hold).
  void Report(double iterations, RunMeasurement* out) const;
  const std::vector<std::string>& metrics() const { return counters_->metrics(); }

 private:
  std::unique_ptr<CounterSet> counters_;
  std::vector<Region> regions_;
  std::vector<StepCounts> step_counts_;
  std::vector<char> sample_at_;  // per boundary 0..steps
  std::vector<double> samples_;  // (steps + 1) x metrics
  std::vector<double> sums_;     // regions x metrics
};

}  // namespace ntpb::bench
