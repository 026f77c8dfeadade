// What a sweep's results say (BackboneAnalysis): each point's throughput, latency and operation
// density, the series of each factor around the base point, and the points where operation
// density failed to predict throughput — a denser configuration (more FLOPs per byte moved)
// that ran at lower GFLOP/s, against the roofline's ordering.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ntpbench/sweep.h"
#include "ntpbench/sweep_results.h"

namespace ntpb {

struct SweepPointSummary {
  std::string id;
  std::map<std::string, std::string> settings;
  std::string varied;
  bool base = false;  // every factor at its base value
  bool ok = false;
  std::string reason;
  // The median of the repetitions' per-iteration medians (older files: of their mean times).
  double latency_ms = 0;
  double p99_ms = 0;  // per-iteration latency percentile
  // Reliability's verdict where the machine disturbed the point's run ("" when reliable): its
  // numbers are shown, marked, and not read as the factor's effect.
  std::string unreliable;
  double samples_per_second = 0;  // batch / latency
  double gflops = 0;              // analytic FLOPs / latency
  double flops = 0;               // analytic, per inference
  double bytes = 0;               // analytic bytes moved per inference (weights read, activations)
  double density = 0;             // flops / bytes
  // A generate point (`scenario` generate): its requests' medians. Its FLOPs, bytes and GFLOP/s
  // are left 0: a request is a prefill and many decode steps, not one inference on a roofline.
  bool generate = false;
  double ttft_ms = 0, tpot_ms = 0, tokens_per_second = 0;
  // Points compare on one roofline only within a group: same backend, precision and threads.
  std::string Group() const;
};

// One point of a results file (`file`, for messages): a failed one with its reason. Throws
// ntpb::Error naming the file and point when its run is unreadable.
SweepPointSummary SummarizePoint(const SweepPointResult& point, const std::string& file);
// Every point of `results`, in their order.
std::vector<SweepPointSummary> SummarizeSweep(const SweepResults& results);

// The sweep a results file holds, read back (its factors, their labels, the base settings).
Sweep SweepOf(const SweepResults& results);

// The points of `factor`'s series, in the order of its values: those whose other factors have
// the base point's values (the one-at-a-time line through it; without a base point among them,
// a list's, the sweep's base settings).
std::vector<const SweepPointSummary*> FactorSeries(const std::vector<SweepPointSummary>& points,
                                                   const Sweep& sweep, const std::string& factor);

struct DensityContradiction {
  std::size_t denser = 0;    // index of the point with the higher density ...
  std::size_t faster = 0;    // ... and of the less dense point that ran at more GFLOP/s
  double density_ratio = 0;  // denser / faster density (> 1 + margin)
  double gflops_ratio = 0;   // faster / denser GFLOP/s (> 1 + margin)
};

// For each point, the contradiction with the largest GFLOP/s ratio (if any): a point of its
// group whose density is lower by more than `margin` yet whose GFLOP/s is higher by more than
// `margin` (a margin above the run-to-run noise). Points whose runs were unreliable are not
// judged, either way. Ordered by gflops_ratio, largest first.
std::vector<DensityContradiction> FindDensityContradictions(
    const std::vector<SweepPointSummary>& points, double margin = 0.1);

}  // namespace ntpb
