// A synthetic latency calibration for the predictor's tests: every step of topologies/mlp.json
// at several widths, each point of probe_dense taking flops / rate + 1 us per step, a machine
// whose dense layers run at exactly `rate` FLOP per ms.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ntpbench/latency_calibration.h"
#include "ntpbench/topology_file.h"
#include "tests/test_util.h"

namespace ntpb::testing {

// Samples' sources: "probe_dense batch=8,n_hidden=512 / fc2".
inline LatencyCalibration MlpCalibration(double rate,
                                         const std::vector<int64_t>& batches = {1, 8}) {
  LatencyCalibration c;
  c.backend = "eigen";
  c.precision = "f32";
  c.threads = 1;
  c.vector_lanes = 16;
  const Topology mlp = ReadTopologyShapes(SourcePath("topologies/mlp.json"));
  for (int64_t hidden : {64, 128, 256, 512, 1024, 2048, 4096}) {
    for (int64_t batch : batches) {
      const ResolvedTopology r = Resolve(mlp, {{"N", batch}, {"n_hidden", hidden}});
      const TopologyAnalysis a = Analyze(r, Precision::kF32);
      for (size_t i = 0; i < r.layers.size(); ++i) {
        CalibrationSample s;
        s.features = FeaturesOfStep(r, a, {static_cast<int>(i), 0, ""}, 16);
        s.ms = s.features.flops / rate + 0.001;
        s.source = "probe_dense batch=" + std::to_string(batch) +
                   ",n_hidden=" + std::to_string(hidden) + " / " + r.layers[i].name;
        c.samples.push_back(s);
      }
    }
  }
  return c;
}

}  // namespace ntpb::testing
