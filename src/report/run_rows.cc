#include "src/report/run_rows.h"

#include <algorithm>

namespace ntpb::report {

std::vector<RunRow> RunRows(const ResolvedTopology& t, const RunMeasurement& m) {
  const int layers = static_cast<int>(t.layers.size());
  std::vector<RunRow> rows;
  int fused_left = 0;  // layers still to show as fused into the step above
  for (int i = 0; i < layers; ++i) {
    for (const StepMeasure& step : m.steps) {
      if (step.kind == StepKind::kInlay && step.feeds == i) {
        rows.push_back({RunRow::kInlay, -1, 0, &step});
      }
    }
    if (fused_left > 0) {
      --fused_left;
      rows.push_back({RunRow::kFusedInto, i, 0, nullptr});
      continue;
    }
    const StepMeasure* step = m.FindStep(t.layers[i].name);
    fused_left = step && step->kind == StepKind::kFused
                     ? std::clamp(step->fused_layers, 0, layers - 1 - i)
                     : 0;
    rows.push_back({RunRow::kLayer, i, fused_left, step});
  }
  // Inlays the run did not place (JSON without the layer they feed).
  for (const StepMeasure& step : m.steps) {
    if (step.kind == StepKind::kInlay && (step.feeds < 0 || step.feeds >= layers)) {
      rows.push_back({RunRow::kInlay, -1, 0, &step});
    }
  }
  return rows;
}

}  // namespace ntpb::report
