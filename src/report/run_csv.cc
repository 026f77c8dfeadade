// The run as CSV (RFC 4180): every executed step, the layers fused into one, and the markers.
#include <cstdio>

#include "ntpbench/report.h"
#include "src/report/csv_field.h"
#include "src/report/run_rows.h"

namespace ntpb {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string Row(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + CsvField(fields[i]);
  return line + "\n";
}

}  // namespace

std::string FormatRunCsv(const RunReport& r) {
  const RunMeasurement& m = r.measurement;
  std::string out;
  auto add = [&](std::vector<std::string> fields) {
    fields.insert(fields.begin(), r.benchmark);
    out += Row(fields);
  };
  auto cost_fields = [](const StepCost& c) {
    return std::vector<std::string>{Number(c.flops), Number(c.weight_bytes),
                                    Number(c.output_bytes)};
  };
  for (const report::RunRow& row : report::RunRows(m)) {
    const StepMeasure& s = *row.step;
    if (row.kind == report::RunRow::kInlay) {
      add({s.name, s.inlay_op, StepKindName(s.kind), "", Number(s.measure.ms),
           Number(s.measure.time_share), Number(s.measure.gflops), "0", "0", ""});
    } else if (row.kind == report::RunRow::kFusedInto) {  // no time or cost of its own
      add({row.name, row.op, "fused", row.shape, "", "", "", "", "", ""});
    } else {
      std::vector<std::string> fields = {row.name,
                                         row.op,
                                         StepKindName(s.kind),
                                         row.shape,
                                         Number(s.measure.ms),
                                         Number(s.measure.time_share),
                                         Number(s.measure.gflops)};
      for (const std::string& f : cost_fields(s.cost)) fields.push_back(f);
      add(fields);
    }
  }
  const int steps = static_cast<int>(m.steps.size());
  for (const MarkerMeasure& marker : m.markers) {
    if (marker.first_step < 0 || marker.last_step >= steps) continue;  // not placed
    StepCost cost;  // its steps': a fused chain's intermediates never reach memory
    for (int k = marker.first_step; k <= marker.last_step; ++k) cost += m.steps[k].cost;
    std::vector<std::string> row = {marker.name,
                                    "marker",
                                    "marker",
                                    report::MarkerLayers(m, marker),
                                    Number(marker.measure.ms),
                                    Number(marker.measure.time_share),
                                    Number(marker.measure.gflops)};
    for (const std::string& f : cost_fields(cost)) row.push_back(f);
    add(row);
  }
  return out;
}

}  // namespace ntpb
