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
  const ResolvedTopology& t = r.topology;
  const TopologyAnalysis& a = r.analysis;
  const RunMeasurement& m = r.measurement;
  std::string out;
  auto add = [&](std::vector<std::string> fields) {
    fields.insert(fields.begin(), r.benchmark);
    out += Row(fields);
  };
  auto cost_fields = [](const Cost& c) {
    return std::vector<std::string>{Number(static_cast<double>(c.flops)),
                                    Number(static_cast<double>(c.weight_bytes)),
                                    Number(static_cast<double>(c.output_bytes))};
  };
  for (const report::RunRow& row : report::RunRows(t, m)) {
    if (row.kind == report::RunRow::kInlay) {
      const StepMeasure& s = *row.step;
      add({s.name, s.inlay_op, StepKindName(s.kind), "", Number(s.measure.ms),
           Number(s.measure.time_share), Number(s.measure.gflops), "0", "0", ""});
      continue;
    }
    const ResolvedLayer& l = t.layers[row.layer];
    std::vector<std::string> fields = {l.name, l.op};
    if (row.kind == report::RunRow::kFusedInto) {  // no time of its own
      fields.insert(fields.end(), {"fused", ShapeToString(l.output_shapes[0]), "", "", ""});
    } else {
      const RegionMeasure measure = row.step ? row.step->measure : RegionMeasure{};
      fields.insert(fields.end(), {row.step ? StepKindName(row.step->kind) : "layer",
                                   ShapeToString(l.output_shapes[0]), Number(measure.ms),
                                   Number(measure.time_share), Number(measure.gflops)});
    }
    for (const std::string& f : cost_fields(a.layers[row.layer].cost)) fields.push_back(f);
    add(fields);
  }
  for (const MarkerAnalysis& marker : a.markers) {
    const MarkerMeasure* measured = m.FindMarker(marker.name);
    const RegionMeasure measure = measured ? measured->measure : RegionMeasure{};
    std::vector<std::string> row = {marker.name,
                                    "marker",
                                    "marker",
                                    t.layers[marker.first].name + ".." + t.layers[marker.last].name,
                                    Number(measure.ms),
                                    Number(measure.time_share),
                                    Number(measure.gflops)};
    for (const std::string& f : cost_fields(marker.cost)) row.push_back(f);
    add(row);
  }
  return out;
}

}  // namespace ntpb
