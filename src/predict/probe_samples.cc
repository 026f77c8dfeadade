// Calibration samples from a probe sweep's results (probe_samples.h).
#include "src/predict/probe_samples.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "ntpbench/error.h"
#include "ntpbench/reliability.h"
#include "src/common/statistics.h"
#include "src/predict/step_pricer.h"

namespace ntpb {

std::map<int, MeasuredUnit> MeasuredUnits(const RunMeasurement& m,
                                          const ResolvedTopology& topology) {
  std::map<int, MeasuredUnit> units;
  int last = -1;
  for (const StepMeasure& s : m.steps) {
    int layer = -1;
    if (s.kind == StepKind::kInlay) {
      layer = s.feeds >= 0 ? s.feeds : last;
    } else {
      layer = topology.LayerIndex(s.layers.empty() ? s.name : s.layers.front());
      if (layer >= 0) units[layer].fused = std::max(units[layer].fused, s.fused_layers);
    }
    if (layer < 0) continue;  // an inlay before any layer: the run's own, not a layer's
    units[layer].ms += s.measure.Typical();
    last = layer;
  }
  return units;
}

// Measured (Zen 5 VM, bf16, batch 1): a 1x1 probe layer of 8.8 MFLOP reading the input took
// 0.041 ms, the same convolution after it, of 35 MFLOP, 0.045. probe_layers' first convolution
// (which gives the layers after it a convolution's layout) was such a sample.
bool IsALeadingConvolution(const ResolvedTopology& topology, int layer,
                           const StepFeatures& features) {
  if (features.family.rfind("conv2d", 0) != 0 ||
      features.family.find(".image") != std::string::npos) {
    return false;
  }
  for (const std::string& input : topology.layers[layer].inputs) {
    for (const auto& [name, shape] : topology.inputs) {
      if (name == input) return true;
    }
  }
  return false;
}

void AddProbeSamples(const SweepResults& results, const Topology& probe, const Backend& backend,
                     const RunConfig& config, LatencyCalibration* calibration) {
  const std::string name = results.sweep.value("name", probe.name);
  for (const SweepPointResult& point : results.points) {
    if (!point.ok) {
      ++calibration->failed_points;
      calibration->problems.push_back(name + " " + point.id + ": " + point.reason);
      continue;
    }
    const RunResults run = point.Run(results.file);
    if (run.benchmarks.size() != 1) {
      throw Error(
          results.file, "", "points[" + point.id + "].run",
          "holds " + std::to_string(run.benchmarks.size()) + " benchmarks; a probe point runs one");
    }
    const BenchmarkResult& benchmark = run.benchmarks.begin()->second;
    ++calibration->points;
    if (const Reliability r = JudgeBenchmark(benchmark); !r.reliable) {
      ++calibration->unreliable_points;
      calibration->problems.push_back(name + " " + point.id + ": " + r.Verdict());
    }
    // The probe as the point ran it.
    ParamEnv env;
    for (const auto& [key, value] : point.settings) {
      if (probe.params.count(key) || key == "T" || key == "batch") {
        char* end = nullptr;
        const long long v = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0') {
          throw Error(results.file, "", "points[" + point.id + "].settings." + key,
                      "expected an integer, got '" + value + "'");
        }
        env[key == "batch" ? "N" : key] = v;
      }
    }
    const ResolvedTopology topology = Resolve(probe, env);
    const TopologyAnalysis analysis = Analyze(topology, config.precision);
    std::map<int, std::string> algorithms;
    for (const PlannedStep& p : backend.PlanSteps(topology, config))
      algorithms[p.layer] = p.algorithm;
    const RunMeasurement m = benchmark.Measurement();
    const double core_to_core_ns = benchmark.CoreToCoreNs();
    const std::map<int, MeasuredUnit> units = MeasuredUnits(m, topology);
    for (const auto& [layer, unit] : units) {
      if (!(unit.ms > 0)) continue;
      CalibrationSample sample;
      sample.features = FeaturesOfStep(topology, analysis, {layer, unit.fused, algorithms[layer]},
                                       calibration->vector_lanes);
      if (IsALeadingConvolution(topology, layer, sample.features)) continue;
      sample.ms = unit.ms;
      sample.source = name + " " + point.id + " / " + topology.layers[layer].name;
      sample.core_to_core_ns = core_to_core_ns;
      calibration->samples.push_back(sample);
    }
  }
}

int KeepFasterSamples(const LatencyCalibration& later, LatencyCalibration* calibration,
                      double nearest_ns) {
  std::unordered_map<std::string, const CalibrationSample*> again;
  for (const CalibrationSample& s : later.samples) again[s.source] = &s;
  auto placed_near = [&](const CalibrationSample& s) {
    return nearest_ns <= 0 || SameCorePlacement(s.core_to_core_ns, nearest_ns);
  };
  int changed = 0;
  for (CalibrationSample& s : calibration->samples) {
    const auto it = again.find(s.source);
    if (it == again.end()) continue;
    const CalibrationSample& other = *it->second;
    const bool better = placed_near(other) != placed_near(s) ? placed_near(other) : other.ms < s.ms;
    if (!better) continue;
    s.ms = other.ms;
    s.core_to_core_ns = other.core_to_core_ns;
    ++changed;
  }
  return changed;
}

double NearestCorePlacementNs(const LatencyCalibration& calibration) {
  std::map<std::string, double> by_point;
  for (const CalibrationSample& s : calibration.samples) {
    if (s.core_to_core_ns > 0) {
      double& ns = by_point[SamplePoint(s)];
      ns = std::max(ns, s.core_to_core_ns);
    }
  }
  std::vector<double> points;
  for (const auto& [point, ns] : by_point) points.push_back(ns);
  return points.empty() ? 0 : Percentile(points, 5);
}

std::vector<std::string> PointsPlacedApart(const LatencyCalibration& calibration,
                                           double nearest_ns) {
  std::set<std::string> apart;
  for (const CalibrationSample& s : calibration.samples) {
    if (!SameCorePlacement(s.core_to_core_ns, nearest_ns)) apart.insert(SamplePoint(s));
  }
  return {apart.begin(), apart.end()};
}

double CalibratedCorePlacementNs(const LatencyCalibration& calibration) {
  std::vector<double> ns;
  for (const CalibrationSample& s : calibration.samples) {
    if (s.core_to_core_ns > 0) ns.push_back(s.core_to_core_ns);
  }
  return ns.empty() ? 0 : Median(ns);
}

}  // namespace ntpb
