// A topology resolved, analysed and compiled for one (backend, precision, batch): everything a
// benchmark instance needs before its timed loop.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/ntpbench.h"
#include "src/bench/accuracy.h"
#include "src/bench/region_counters.h"

namespace ntpb::bench {

struct PreparedRun {
  std::string key;
  ResolvedTopology topology;
  std::vector<ResolvedMarker> markers;  // from the file and from registration
  TopologyAnalysis analysis;
  Support support;
  std::unique_ptr<Executable> executable;  // null when unsupported
  // Steps of each marker (indices into executable->steps()).
  std::vector<std::vector<std::size_t>> marker_steps;
  // Counter sources per region; null when only time is measured.
  std::unique_ptr<RegionCounters> counters;
  // Below f32: the outputs, logits and steps against the Eigen f32 reference (same seed, so the
  // same weights and inputs; precision_accuracy.h), each step's error indexed as its steps.
  std::optional<OutputAccuracy> accuracy;
  std::vector<double> step_errors;
};

// The topology of a benchmark with its params (file < Set() < --ntpb_set < the family's listed
// `values`) and N = batch bound.
// Throws ntpb::Error.
ResolvedTopology ResolveFor(const TopologyBenchmark& tb, const Topology& topology, int64_t batch,
                            const ParamEnv& values);

// Returns the cached run for `family` at `batch` or builds it (dropping the previous one first,
// so only one compiled topology is in memory at a time). Throws ntpb::Error.
PreparedRun& Prepare(const TopologyBenchmark& tb, const Topology& topology,
                     const TopologyBenchmark::Family& family, int64_t batch);

}  // namespace ntpb::bench
