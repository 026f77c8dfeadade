// The predictor (latency_prediction.h): the backend's planned steps, each priced by StepPricer
// (step_pricer.h) from the calibration's samples, and their sum.
#include "ntpbench/latency_prediction.h"

#include <algorithm>
#include <string>

#include "ntpbench/error.h"
#include "src/predict/step_pricer.h"

namespace ntpb {
namespace {

std::string ShapeText(const Shape& shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

}  // namespace

std::map<std::string, std::string> CalibratedOptions(const LatencyCalibration& calibration,
                                                     const Backend& backend) {
  std::map<std::string, std::string> options;
  // A choice of an option this build's backend no longer has is left out: it plans as it can.
  for (const BackendOption& option : backend.Options()) {
    const auto choice = calibration.backend_choices.find(option.name);
    if (choice == calibration.backend_choices.end()) {
      if (!option.before.empty()) options[option.name] = option.before;  // made before it
      continue;
    }
    if (std::find(option.values.begin(), option.values.end(), choice->second) ==
        option.values.end()) {
      throw Error(calibration.file, "", "backend_choices." + option.name,
                  "\"" + choice->second + "\" is not a value of " + calibration.backend + "." +
                      option.name + " in this ntpbench");
    }
    const auto ran_as = option.recorded_before.find(choice->second);
    options[option.name] = ran_as == option.recorded_before.end() ? choice->second : ran_as->second;
  }
  return options;
}

std::vector<PlannedStep> PlanOnCalibratedMachine(const ResolvedTopology& topology,
                                                 const LatencyCalibration& calibration,
                                                 const Backend& backend) {
  RunConfig config;
  config.precision = ParsePrecision(calibration.precision, calibration.file + ": precision");
  config.threads = calibration.threads;
  config.options = CalibratedOptions(calibration, backend);
  if (!calibration.cache_bytes.empty())
    config.last_level_cache_bytes = calibration.cache_bytes.back();
  config.f32_ridge_flops_per_byte = calibration.f32_ridge_flops_per_byte;
  return backend.PlanSteps(topology, config);
}

LatencyPrediction PredictLatency(const ResolvedTopology& topology, const TopologyAnalysis& analysis,
                                 const std::vector<PlannedStep>& plan,
                                 const LatencyCalibration& calibration) {
  const StepPricer pricer(calibration);
  LatencyPrediction out;
  out.topology = topology.name;
  const auto n = topology.params.find("N");
  out.batch = n == topology.params.end() ? 1 : n->second;
  for (const PlannedStep& p : plan) {
    StepPrediction step;
    for (int i = p.layer; i <= p.layer + p.fused; ++i)
      step.layers.push_back(topology.layers[i].name);
    step.shape = ShapeText(topology.layers[p.layer + p.fused].output_shapes.front());
    step.features = FeaturesOfStep(topology, analysis, p, calibration.vector_lanes);
    const StepPrice price = pricer.Price(step.features);
    // A view (a reshape) or a constant moves nothing at run time: nothing to sample.
    const ResolvedLayer& host = topology.layers[p.layer];
    if (!price.priced && p.fused == 0 && (host.is_view || host.op == "constant")) {
      step.calibrated = true;
      step.basis = host.is_view ? "a view: moves nothing" : "a constant: set up before the run";
      out.steps.push_back(step);
      continue;
    }
    if (!price.priced) {
      step.basis = "not calibrated: no " + step.features.family + " sampled";
      ++out.uncalibrated;
      out.steps.push_back(step);
      continue;
    }
    step.calibrated = true;
    step.ms = price.ms;
    step.low_ms = price.low_ms;
    step.high_ms = price.high_ms;
    step.extrapolated = price.extrapolated;
    step.samples = price.samples;
    step.nearest_flops_ratio = price.nearest_flops_ratio;
    step.from = price.from;
    // "4 of conv2d[k3s1]": the kind the samples are of, where it is broader than the step's own.
    step.basis = std::to_string(price.samples) + " of " +
                 (price.own_kind ? "its kind" : price.level) +
                 (step.extrapolated ? ", all >3x away" : "");
    out.ms += step.ms;
    out.low_ms += step.low_ms;
    out.high_ms += step.high_ms;
    out.steps.push_back(step);
  }
  return out;
}

}  // namespace ntpb
