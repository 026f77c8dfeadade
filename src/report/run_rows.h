// The rows of a per-layer report of one run, in the order people read them: each inlay above
// the layer it feeds, each layer with the step that computed it, the layers a step absorbed
// (post-op fusion) under it, then the inlays the run did not place. Shared by every report
// format, so they all show the same rows.
#pragma once

#include <vector>

#include "ntpbench/resolve.h"
#include "ntpbench/results.h"

namespace ntpb::report {

struct RunRow {
  enum Kind {
    kInlay,      // a step the backend inserted: `step`
    kLayer,      // layer `layer`, computed by `step` (null: the run has no step of that name)
    kFusedInto,  // layer `layer`, computed by the step of the kLayer row above
  } kind;
  int layer = -1;
  int fused = 0;  // kLayer: how many layers after `layer` its step also computes
  const StepMeasure* step = nullptr;
};

std::vector<RunRow> RunRows(const ResolvedTopology& topology, const RunMeasurement& measurement);

}  // namespace ntpb::report
