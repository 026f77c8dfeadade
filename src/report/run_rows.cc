#include "src/report/run_rows.h"

#include <algorithm>

namespace ntpb::report {

std::vector<RunRow> RunRows(const RunMeasurement& m) {
  std::vector<RunRow> rows;
  for (const StepMeasure& step : m.steps) {
    if (step.kind == StepKind::kInlay) {
      rows.push_back({RunRow::kInlay, &step, step.name, step.inlay_op, "", 0});
      continue;
    }
    // Files from before the layers' ops and shapes were recorded name only the step's own.
    const bool described = step.layers.size() > 1 && step.layer_ops.size() == step.layers.size() &&
                           step.layer_shapes.size() == step.layers.size();
    const int fused = described ? static_cast<int>(step.layers.size()) - 1 : 0;
    rows.push_back({RunRow::kLayer, &step, step.layers.empty() ? step.name : step.layers.front(),
                    described ? step.layer_ops.front() : step.op, step.shape, fused});
    for (int k = 1; k <= fused; ++k) {
      rows.push_back(
          {RunRow::kFusedInto, &step, step.layers[k], step.layer_ops[k], step.layer_shapes[k], 0});
    }
  }
  return rows;
}

std::string MarkerLayers(const RunMeasurement& m, const MarkerMeasure& marker) {
  std::string from, to;
  for (int k = std::max(marker.first_step, 0);
       k <= marker.last_step && k < static_cast<int>(m.steps.size()); ++k) {
    const StepMeasure& s = m.steps[k];
    if (s.kind == StepKind::kInlay) continue;
    if (from.empty()) from = s.layers.empty() ? s.name : s.layers.front();
    to = s.layers.empty() ? s.name : s.layers.back();
  }
  return from + ".." + to;
}

}  // namespace ntpb::report
