// Calibration samples from a probe sweep (calibration/*.json): every measured step of every point
// becomes a sample, described by the probe topology resolved at the point's settings.
#pragma once

#include "ntpbench/latency_calibration.h"
#include "ntpbench/precision.h"
#include "ntpbench/sweep_results.h"
#include "ntpbench/topology.h"

namespace ntpb {

// Adds `results`' samples (and its failed and unreliable points) to `calibration`. Throws
// ntpb::Error naming the results file for a point whose run is unreadable.
void AddProbeSamples(const SweepResults& results, const Topology& probe, Precision precision,
                     LatencyCalibration* calibration);

}  // namespace ntpb
