// Speed and accuracy together: each precision of one configuration (topology, backend, batch,
// sizes) against its f32 run, so that "bf16 is 2.4x faster and agrees on 99.8% of top-1" is one
// glance.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/results.h"

namespace ntpb {

struct PrecisionRun {
  std::string name;  // the Google Benchmark run's name ("mlp/onednn/bf16/batch:1/real_time")
  RunMeasurement measured;
};

// One row per precision, grouped by the name less its precision: median time per iteration,
// speed-up over the group's f32 run, logits and outputs error, top-1 agreement and top-5
// overlap. "" when no group has two precisions.
std::string RenderPrecisionTable(const std::vector<PrecisionRun>& runs);

// The group a run belongs to: its name less the precision component ("mlp/onednn/batch:1").
std::string PrecisionGroup(const std::string& name, const std::string& precision);

}  // namespace ntpb
