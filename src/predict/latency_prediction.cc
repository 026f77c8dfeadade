// The predictor (latency_prediction.h). A step is priced from the samples of its own kind
// nearest to it in log FLOPs, log bytes, the log of the bytes its network moves and (half
// weighted) its activations read over written: the most
// specific kind the calibration sampled (conv2d[k3s1]+batchnorm+relu, else conv2d[k3s1], else
// conv2d+batchnorm+relu, else conv2d). Each neighbour's time is scaled by the ratio of the two
// steps' roofline-like cost, so that a neighbour twice the FLOPs of a compute-bound step counts as
// half its time; the neighbours' estimates are averaged in log space, weighted by closeness, and
// their spread is the interval. A step larger than every sample of its kind and over 3x from
// all of them is priced by its kind's own roofline instead (the rates its best samples reached):
// a scaled-up neighbour keeps the neighbour's efficiency, and large kernels run nearer their
// kind's best.
#include "ntpbench/latency_prediction.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "src/common/statistics.h"

namespace ntpb {
namespace {

constexpr int kNeighbours = 4;
constexpr int kEnoughAtALevel = 3;  // fewer samples of a specific kind: a broader kind prices it
constexpr double kExtrapolation = 1.0986;  // log(3): every sample over 3x away
// Half as much as the others: the ratio of activations read to written (a shape's aspect).
// Measured on two held-out sets (Zen 3 VM, 2 threads and 1): 0.25, 0.5 and 1 against none,
// 0.5 best on both.
constexpr double kShapeWeight = 0.5;

// The calibration's own rates: what its fastest steps reached (P, B) and the per-step floor.
struct Scale {
  double flops_per_ms = 1, bytes_per_ms = 1, floor_ms = 0;
  double Cost(const StepFeatures& f) const {
    return std::max(f.WorkFlops() / flops_per_ms, f.bytes / bytes_per_ms) + floor_ms;
  }
};

// Near the top (`percentile`), not the top: one lucky sample does not set the rate.
Scale ScaleOf(const std::vector<const CalibrationSample*>& samples, double percentile) {
  std::vector<double> flop_rates, byte_rates, times;
  for (const CalibrationSample* s : samples) {
    if (s->features.flops > 0) flop_rates.push_back(s->features.WorkFlops() / s->ms);
    if (s->features.bytes > 0) byte_rates.push_back(s->features.bytes / s->ms);
    times.push_back(s->ms);
  }
  Scale scale;
  if (!flop_rates.empty()) scale.flops_per_ms = Percentile(flop_rates, percentile);
  if (!byte_rates.empty()) scale.bytes_per_ms = Percentile(byte_rates, percentile);
  if (!times.empty()) scale.floor_ms = Percentile(times, 2);
  return scale;
}

Scale ScaleOf(const LatencyCalibration& c) {
  std::vector<const CalibrationSample*> all;
  for (const CalibrationSample& s : c.samples) all.push_back(&s);
  return ScaleOf(all, 95);
}

double Log(double x) { return std::log(x + 1); }

// In log FLOPs, log bytes, the log of the bytes its network moves (what is left in the caches)
// and the log of its activations read over written.
double Distance(const StepFeatures& a, const StepFeatures& b) {
  const double df = Log(a.WorkFlops()) - Log(b.WorkFlops()), db = Log(a.bytes) - Log(b.bytes);
  const double dc = Log(a.context_bytes) - Log(b.context_bytes);
  const double ds = kShapeWeight * ((Log(a.input_bytes) - Log(a.output_bytes)) -
                                    (Log(b.input_bytes) - Log(b.output_bytes)));
  return std::sqrt(df * df + db * db + dc * dc + ds * ds);
}

std::vector<std::string> Levels(const StepFeatures& f) {
  std::vector<std::string> levels = {f.Signature()};
  if (!f.fused.empty() && !f.detail.empty()) levels.push_back(f.family + "[" + f.detail + "]");
  if (!f.detail.empty()) levels.push_back(f.family + f.fused);
  if (!f.fused.empty() || !f.detail.empty()) levels.push_back(f.family);
  return levels;
}

std::string ShapeText(const Shape& shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

}  // namespace

LatencyPrediction PredictLatency(const ResolvedTopology& topology, const TopologyAnalysis& analysis,
                                 const std::vector<PlannedStep>& plan,
                                 const LatencyCalibration& calibration) {
  // Every sample under each level of its kind.
  std::map<std::string, std::vector<const CalibrationSample*>> by_level;
  for (const CalibrationSample& s : calibration.samples) {
    for (const std::string& level : Levels(s.features)) by_level[level].push_back(&s);
  }
  const Scale scale = ScaleOf(calibration);
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
    const std::vector<const CalibrationSample*>* pool = nullptr;
    std::string level;
    const std::vector<std::string> levels = Levels(step.features);
    for (const std::string& l : levels) {
      auto it = by_level.find(l);
      if (it == by_level.end()) continue;
      pool = &it->second;
      level = l;
      if (it->second.size() >= kEnoughAtALevel) break;
    }
    // A view (a reshape) or a constant moves nothing at run time: nothing to sample.
    const ResolvedLayer& host = topology.layers[p.layer];
    if (!pool && p.fused == 0 && (host.is_view || host.op == "constant")) {
      step.calibrated = true;
      step.basis = host.is_view ? "a view: moves nothing" : "a constant: set up before the run";
      out.steps.push_back(step);
      continue;
    }
    if (!pool) {
      step.basis = "not calibrated: no " + step.features.family + " sampled";
      ++out.uncalibrated;
      out.steps.push_back(step);
      continue;
    }
    std::vector<std::pair<double, const CalibrationSample*>> near;
    for (const CalibrationSample* s : *pool) {
      near.push_back({Distance(step.features, s->features), s});
    }
    const size_t k = std::min<size_t>(kNeighbours, near.size());
    std::partial_sort(near.begin(), near.begin() + k, near.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
    double weights = 0, log_sum = 0;
    step.low_ms = 1e300;
    const double own = scale.Cost(step.features);
    for (size_t i = 0; i < k; ++i) {
      const CalibrationSample& s = *near[i].second;
      const double estimate = s.ms * own / scale.Cost(s.features);
      const double w = 1 / ((near[i].first + 0.05) * (near[i].first + 0.05));
      weights += w;
      log_sum += w * std::log(estimate);
      step.low_ms = std::min(step.low_ms, estimate);
      step.high_ms = std::max(step.high_ms, estimate);
    }
    step.calibrated = true;
    step.ms = std::exp(log_sum / weights);
    step.extrapolated = near.front().first > kExtrapolation;
    // Beyond the largest of its kind: a kernel's efficiency grows with its work up to what the
    // kind reaches at best, which a smaller neighbour scaled up does not know; priced by the
    // kind's own roofline instead (the rates its best samples reached).
    const bool larger_than_all = std::all_of(pool->begin(), pool->end(), [&](const auto* s) {
      return s->features.WorkFlops() < step.features.WorkFlops();
    });
    if (step.extrapolated && larger_than_all && step.features.flops > 0) {
      const Scale kind = ScaleOf(*pool, 90);
      step.ms = kind.Cost(step.features) - kind.floor_ms + scale.floor_ms;
      step.low_ms = std::min(step.low_ms, step.ms);
      step.high_ms = std::max(step.high_ms, step.ms);
    }
    step.samples = static_cast<int>(k);
    const CalibrationSample& nearest = *near.front().second;
    step.nearest_flops_ratio =
        step.features.flops > 0 ? nearest.features.flops / step.features.flops : 0;
    // "4 of conv2d[k3s1]": the kind the samples are of, where it is broader than the step's own.
    step.basis = std::to_string(k) + " of " + (level == levels.front() ? "its kind" : level) +
                 (step.extrapolated ? ", all >3x away" : "");
    out.ms += step.ms;
    out.low_ms += step.low_ms;
    out.high_ms += step.high_ms;
    out.steps.push_back(step);
  }
  return out;
}

}  // namespace ntpb
