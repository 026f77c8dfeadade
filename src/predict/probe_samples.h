// Calibration samples from a probe sweep (calibration/*.json): every measured step of every point
// becomes a sample, described by the probe topology resolved at the point's settings.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/latency_calibration.h"
#include "ntpbench/precision.h"
#include "ntpbench/results.h"
#include "ntpbench/sweep_results.h"
#include "ntpbench/topology.h"

namespace ntpb {

// A measured run's time by the layer that hosts each step: a backend's inlay (a reorder) counts
// for the layer it prepares, or else the step before it; several steps of one layer (a
// recurrent layer per direction) add up. `fused`: the layers after it the step also computed.
struct MeasuredUnit {
  int fused = 0;
  double ms = 0;
};
std::map<int, MeasuredUnit> MeasuredUnits(const RunMeasurement& run,
                                          const ResolvedTopology& topology);

// Whether the step `layer` (`features` of it) is a convolution over many channels that reads the
// network's input: mostly that input's reorder into the backend's layout, where no network has
// such a layer (its first convolution reads an image's few channels: conv2d.image). A probe's
// such layer is not a sample of its kind.
bool IsALeadingConvolution(const ResolvedTopology& topology, int layer,
                           const StepFeatures& features);

// Adds `results`' samples (and its failed and unreliable points) to `calibration`, each step of
// the kind `backend`'s plan gives it under `config` (the algorithm it picks by shape), as a
// prediction will plan it; leading convolutions (IsALeadingConvolution) are left out. Throws
// ntpb::Error naming the results file for a point whose run is unreadable.
void AddProbeSamples(const SweepResults& results, const Topology& probe, const Backend& backend,
                     const RunConfig& config, LatencyCalibration* calibration);

// Each sample of `calibration` that `later` measured again (the same probe point and step: its
// source) keeps the better of its two measurements, with the placement of the cores it ran in:
// the one placed as `nearest_ns` (SameCorePlacement; a far placement slows a small step for a
// reason that is not its own), else the faster. `nearest_ns` 0: the faster. A calibration's later
// pass over the same points, or its points run again. Returns how many samples changed.
int KeepFasterSamples(const LatencyCalibration& later, LatencyCalibration* calibration,
                      double nearest_ns = 0);

// The nearest placement of the cores the calibration's points ran in: the 5th percentile of their
// core-to-core latency (one stray reading does not set it); 0 where none was measured.
double NearestCorePlacementNs(const LatencyCalibration& calibration);

// The probe points (SamplePoint: "probe_dense batch=1,n_input=128") with a sample measured while
// the cores were placed farther apart than `nearest_ns` (SameCorePlacement): their steps took
// longer for a reason that is not theirs.
std::vector<std::string> PointsPlacedApart(const LatencyCalibration& calibration,
                                           double nearest_ns);

// The placement the calibration holds: the median of its samples' core-to-core latency (0 where
// none was measured).
double CalibratedCorePlacementNs(const LatencyCalibration& calibration);

}  // namespace ntpb
