// A topology's latency on a calibrated machine, predicted without running it: each step the
// backend would make (Backend::PlanSteps, fusion included) is priced from the calibration's
// samples of the same kind of step nearest in FLOPs and bytes, each sample scaled by the ratio of
// the two steps' roofline-like cost (max(FLOPs / P, bytes / B) + a per-step floor, P, B and the
// floor taken from the calibration itself). The README's "Predicting latency" describes it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/latency_calibration.h"

namespace ntpb {

// A calibration sample a step's price rests on: where it was measured, its time and that time
// scaled to the step (by the ratio of the two steps' roofline-like cost).
struct PricedFrom {
  std::string source;  // "probe_dense batch=1,n_input=64,n_hidden=1024,n_classes=1000 / fc2"
  double sample_ms = 0, estimate_ms = 0;
};

struct StepPrediction {
  std::vector<std::string> layers;  // the layers it computes, host first
  std::string shape;                // the last layer's output, "1x64x56x56"
  StepFeatures features;
  bool calibrated = false;                 // false: the calibration has no sample of its family
  double ms = 0, low_ms = 0, high_ms = 0;  // the prediction and its interval (0: uncalibrated)
  int samples = 0;                         // how many samples priced it
  // Where the samples lie from it: the nearest one's FLOPs relative to the step's, and whether
  // the step is outside what was sampled (more than 3x from every sample).
  double nearest_flops_ratio = 0;
  bool extrapolated = false;
  // One phrase: "4 of its kind", "4 of conv2d[k3s1]" (a broader kind: too few of its own),
  // ", all >3x away" when extrapolated, or "not calibrated: no lstm sampled".
  std::string basis;
  std::vector<PricedFrom> from;  // the samples it rests on, nearest first
};

struct LatencyPrediction {
  std::string topology;
  int64_t batch = 0;
  std::vector<StepPrediction> steps;
  double ms = 0, low_ms = 0, high_ms = 0;  // the calibrated steps' sum
  int uncalibrated = 0;                    // steps left out of the sum
};

// The calibration's backend_choices that `backend` (the calibration's) has as options: what a
// run on the calibrated machine set (a prediction plans with them, `predict --check` runs with
// them). Throws ntpb::Error naming the file and field where a choice is no value of the
// backend's option here.
std::map<std::string, std::string> CalibratedOptions(const LatencyCalibration& calibration,
                                                     const Backend& backend);

// The steps `backend` (the calibration's) would make of `topology` on the calibration's machine:
// its precision and threads, and its CalibratedOptions in place of this one's.
std::vector<PlannedStep> PlanOnCalibratedMachine(const ResolvedTopology& topology,
                                                 const LatencyCalibration& calibration,
                                                 const Backend& backend);

// `analysis` at the calibration's precision; `plan` from the calibration's backend
// (PlanOnCalibratedMachine).
LatencyPrediction PredictLatency(const ResolvedTopology& topology, const TopologyAnalysis& analysis,
                                 const std::vector<PlannedStep>& plan,
                                 const LatencyCalibration& calibration);

}  // namespace ntpb
