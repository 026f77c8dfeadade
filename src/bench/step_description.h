// What a step computes, for the results model: its op, output shape, the layers it computes
// (with their ops and output shapes), analytic cost and roofline bound, from the topology the
// run compiled. The run file carries these, so the run table, the CSV and the reports render
// from the results model alone. One description for single-stream runs and generation phases.
#pragma once

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/precision.h"
#include "ntpbench/results.h"
#include "ntpbench/roofline.h"

namespace ntpb::bench {

// Fills `step` (all but its measure) from `info`; `peaks` (null: no ceilings measured) gives the
// roofline bound.
inline void DescribeStep(const ResolvedTopology& t, const TopologyAnalysis& a, const StepInfo& info,
                         Precision precision, const MachinePeaks* peaks, StepMeasure* step) {
  step->name = info.name;
  step->op = info.op;
  step->kernel = info.kernel;
  if (info.layer < 0) {  // a backend's inlay: no analytic cost
    step->kind = StepKind::kInlay;
    step->inlay_op = info.op;
    step->feeds = info.feeds;
    return;
  }
  if (info.fused > 0) {  // the report shows the layers it absorbed (post-op fusion) under it
    step->kind = StepKind::kFused;
    step->fused_layers = info.fused;
  }
  const Cost c = FusedCost(a, info.layer, info.fused);
  step->cost = {static_cast<double>(c.flops),        static_cast<double>(c.params),
                static_cast<double>(c.weight_bytes), static_cast<double>(c.input_bytes),
                static_cast<double>(c.output_bytes), static_cast<double>(c.weight_traffic_bytes)};
  for (int l = info.layer; l <= info.layer + info.fused; ++l) {
    const ResolvedLayer& layer = t.layers[l];
    step->layers.push_back(layer.name);
    step->layer_ops.push_back(layer.op);
    step->layer_shapes.push_back(
        layer.output_shapes.empty() ? "" : ShapeToString(layer.output_shapes[0]));
  }
  step->shape = step->layer_shapes.back();
  step->inlay_layer = a.layers[info.layer].inlay;
  if (peaks) {
    const RooflineBound bound =
        Roofline(c, precision, *peaks, a.total.weight_bytes + a.peak_activation_bytes);
    step->roof_ms = bound.ms;
    step->bound = BoundName(bound);
  }
}

}  // namespace ntpb::bench
