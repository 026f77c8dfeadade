// The rows of a per-layer report of one run, from its results model alone, in execution order:
// each step (a backend's inlay above the layer it feeds), and under a fused step the layers it
// absorbed (post-op fusion). Shared by every report format, so they all show the same rows.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/results.h"

namespace ntpb::report {

struct RunRow {
  enum Kind {
    kInlay,      // a step the backend inserted
    kLayer,      // a step computing a layer (and `fused` more after it)
    kFusedInto,  // a layer the step of the kLayer row above also computes
  } kind;
  const StepMeasure* step = nullptr;  // kFusedInto: the step that computes it
  std::string name, op, shape;        // the layer's (an inlay's: the step's name and op)
  int fused = 0;                      // kLayer: how many kFusedInto rows follow
};

std::vector<RunRow> RunRows(const RunMeasurement& measurement);

// A placed marker's range by its layers, "conv1..relu1" (the inlays it counts, which feed its
// layers, have none).
std::string MarkerLayers(const RunMeasurement& measurement, const MarkerMeasure& marker);

}  // namespace ntpb::report
