#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "ntpbench/report.h"
#include "src/report/run_rows.h"
#include "src/report/text_table.h"

namespace ntpb {

namespace {

using report::TextTable;

std::string Printf(const char* fmt, double v) { return FormatNumber(fmt, v); }

std::string Bar(double share) {
  const int cells = static_cast<int>(share * 20 + 0.5);
  std::string bar;
  for (int i = 0; i < cells; ++i) bar += "\u2588";
  return bar;
}

}  // namespace

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? Printf("%.0f B", bytes) : Printf("%.2f ", bytes) + units[u];
}

std::string FormatCount(double count) {
  if (count >= 1e9) return Printf("%.2f G", count / 1e9);
  if (count >= 1e6) return Printf("%.2f M", count / 1e6);
  if (count >= 1e3) return Printf("%.2f k", count / 1e3);
  return Printf("%.0f", count);
}

namespace {
std::string FormatCounterTable(const RunMeasurement& m);
}  // namespace

std::string FormatRunTable(const ResolvedTopology& t, const TopologyAnalysis& a,
                           const RunMeasurement& m, Precision precision,
                           const MachinePeaks* peaks) {
  // "87% c": the roofline bound's time over the measured time, and what sets the bound: peak
  // compute (c), memory bandwidth (m), or the last-level cache's when everything one inference
  // touches stays cached (l3).
  const int64_t working_set = a.total.weight_bytes + a.peak_activation_bytes;
  auto roof = [&](const Cost& cost, double ms) -> std::string {
    if (!peaks || ms <= 0) return "";
    const RooflineBound bound = Roofline(cost, precision, *peaks, working_set);
    if (bound.ms <= 0) return "";
    return Printf("%.0f%% ", 100 * bound.ms / ms) + (!bound.memory_bound ? "c"
                                                     : bound.from_cache  ? "l3"
                                                                         : "m");
  };
  TextTable table({"layer", "op", "output", "ms", "share", "", "GFLOP/s", "roof", "FLOPs",
                   "weights", "activations out", "FLOP/B"});
  double total_ms = 0;
  // What each shown step moves and computes, by its first layer: a fused chain's intermediates
  // never reach memory, so markers and the total sum these rather than every layer's cost.
  std::vector<std::pair<int, Cost>> step_costs;
  // A timed row: a step or a marker, with what it computes and moves.
  auto add_timed = [&](const std::string& name, const std::string& op, const std::string& what,
                       const RegionMeasure& measure, const Cost& cost) {
    table.Add(
        {name, op, what, Printf("%.3f", measure.ms), Printf("%.1f%%", 100 * measure.time_share),
         Bar(measure.time_share), Printf("%.1f", measure.gflops), roof(cost, measure.ms),
         FormatCount(static_cast<double>(cost.flops)),
         FormatBytes(static_cast<double>(cost.weight_bytes)),
         FormatBytes(static_cast<double>(cost.output_bytes)), Printf("%.1f", cost.Intensity())});
  };
  // Steps a backend inserted in front of a layer (layout conversions, i8 quantization): real
  // cost, shown above the layer they prepare an input for.
  auto add_inlay = [&](const StepMeasure& step) {
    total_ms += step.measure.ms;
    const double share = step.measure.time_share;
    table.Add({step.name + " (inlay)", step.inlay_op, "", Printf("%.3f", step.measure.ms),
               Printf("%.1f%%", 100 * share), Bar(share), "", "", "", "", "", ""});
  };
  for (const report::RunRow& row : report::RunRows(t, m)) {
    if (row.kind == report::RunRow::kInlay) {
      add_inlay(*row.step);
      continue;
    }
    const ResolvedLayer& l = t.layers[row.layer];
    if (row.kind == report::RunRow::kFusedInto) {  // no time of its own
      table.Add({"  " + l.name, l.op, ShapeToString(l.output_shapes[0]), "fused", "", "", "", "",
                 "", "", "", ""});
      continue;
    }
    const RegionMeasure measure = row.step ? row.step->measure : RegionMeasure{};
    std::string op = l.op;
    for (int f = 1; f <= row.fused; ++f) op += "+" + t.layers[row.layer + f].op;
    const Cost cost = FusedCost(a, row.layer, row.fused);
    step_costs.emplace_back(row.layer, cost);
    const Shape& out = t.layers[row.layer + row.fused].output_shapes[0];
    total_ms += measure.ms;
    add_timed(l.name + (a.layers[row.layer].inlay ? " (inlay)" : ""), op, ShapeToString(out),
              measure, cost);
  }
  // Fusion never crosses a marker boundary: a marker holds whole steps.
  auto steps_cost = [&](int first, int last) {
    Cost c;
    for (const auto& [layer, cost] : step_costs) {
      if (layer >= first && layer <= last) c += cost;
    }
    return c;
  };
  if (!a.markers.empty()) {
    table.Rule();
    for (const MarkerAnalysis& marker : a.markers) {
      const Cost cost = steps_cost(marker.first, marker.last);
      const MarkerMeasure* measured = m.FindMarker(marker.name);
      const RegionMeasure measure = measured ? measured->measure : RegionMeasure{};
      add_timed("[" + marker.name + "]", "marker",
                t.layers[marker.first].name + ".." + t.layers[marker.last].name, measure, cost);
    }
  }
  table.Rule();
  const Cost total = steps_cost(0, static_cast<int>(t.layers.size()) - 1);
  table.Add({"total", "", "", Printf("%.3f", total_ms), "100.0%", "", Printf("%.1f", m.net.gflops),
             roof(total, total_ms), FormatCount(static_cast<double>(total.flops)),
             FormatBytes(static_cast<double>(total.weight_bytes)), "", ""});
  std::string out = table.Render(2);
  out += "samples/s " + Printf("%.2f", m.net.samples_per_second) + "   params " +
         FormatCount(static_cast<double>(a.total.params)) + "   peak activations " +
         FormatBytes(static_cast<double>(a.peak_activation_bytes)) +
         (m.memory.activation_bytes ? " (allocated " + FormatBytes(*m.memory.activation_bytes) + ")"
                                    : "") +
         "   workspace " + FormatBytes(m.memory.workspace_bytes.value_or(0)) + "   p50/p90/p99 " +
         Printf("%.3f", m.net.p50_ms) + "/" + Printf("%.3f", m.net.p90_ms) + "/" +
         Printf("%.3f ms", m.net.p99_ms) + "\n";
  if (peaks && peaks->peak_gflops.count(PrecisionName(precision))) {
    const bool cached = FitsInCache(working_set, *peaks);
    out += std::string("roof: ") + PrecisionName(precision) + " peak " +
           Printf("%.0f GFLOP/s", peaks->peak_gflops.at(PrecisionName(precision))) + ", " +
           (cached ? "last-level cache " + Printf("%.1f GB/s", peaks->cache_bandwidth_gbs) +
                         " (weights and activations, " +
                         FormatBytes(static_cast<double>(working_set)) + ", stay in its " +
                         FormatBytes(static_cast<double>(peaks->cache_bytes)) + ")"
                   : "memory " + Printf("%.1f GB/s", peaks->bandwidth_gbs)) +
           " (`ntpbench machine`)\n";
  }
  if (m.accuracy) {
    out += "outputs vs the Eigen f32 reference: max relative error " +
           Printf("%.2e", m.accuracy->max_rel_err) + ", cosine similarity " +
           Printf("%.6f", m.accuracy->cosine) + "\n";
  }
  return out + FormatCounterTable(m);
}

namespace {

// Measured counters (sde, perf, rusage, PAPI, ...) of net and each marker: one row a metric, one
// column a region; empty when none was measured.
std::string FormatCounterTable(const RunMeasurement& m) {
  std::vector<std::pair<std::string, std::map<std::string, double>>> regions;
  regions.emplace_back("net", m.net.counters);
  // The memory source's network pair lives in the memory signature: shown with the rest.
  if (m.memory.allocs) regions[0].second[kAllocsMetric] = *m.memory.allocs;
  if (m.memory.alloc_bytes) regions[0].second[kAllocBytesMetric] = *m.memory.alloc_bytes;
  for (const MarkerMeasure& marker : m.markers) {
    regions.emplace_back("[" + marker.name + "]", marker.measure.counters);
  }
  std::set<std::string> metrics;
  for (const auto& [region, counters] : regions) {
    for (const auto& [metric, value] : counters) metrics.insert(metric);
  }
  if (metrics.empty()) return "";
  std::vector<std::string> header = {"counter per iteration"};
  for (const auto& [region, counters] : regions) header.push_back(region);
  TextTable table(header);
  for (const std::string& metric : metrics) {
    std::vector<std::string> row = {metric};
    for (const auto& [region, counters] : regions) {
      auto it = counters.find(metric);
      row.push_back(it == counters.end()
                        ? ""
                        : Printf(std::abs(it->second) < 100 ? "%.3g" : "%.4g", it->second));
    }
    table.Add(row);
  }
  return table.Render(1);
}

}  // namespace

std::string FormatInspectTable(const ResolvedTopology& t, const TopologyAnalysis& a) {
  TextTable table({"layer", "op", "inputs", "output", "params", "FLOPs", "weights",
                   "activations in", "activations out", "FLOP/B"});
  for (size_t i = 0; i < t.layers.size(); ++i) {
    const ResolvedLayer& l = t.layers[i];
    const Cost& c = a.layers[i].cost;
    std::string inputs;
    for (size_t k = 0; k < l.inputs.size(); ++k) inputs += (k ? ", " : "") + l.inputs[k];
    table.Add({l.name + (a.layers[i].inlay ? " (inlay)" : ""), l.op, inputs,
               ShapeToString(l.output_shapes[0]), FormatCount(static_cast<double>(c.params)),
               FormatCount(static_cast<double>(c.flops)),
               FormatBytes(static_cast<double>(c.weight_bytes)),
               FormatBytes(static_cast<double>(c.input_bytes)),
               FormatBytes(static_cast<double>(c.output_bytes)), Printf("%.1f", c.Intensity())});
  }
  if (!a.markers.empty()) {
    table.Rule();
    for (const MarkerAnalysis& m : a.markers) {
      const Cost& c = m.cost;
      table.Add(
          {"[" + m.name + "]", "marker", t.layers[m.first].name + ".." + t.layers[m.last].name, "",
           FormatCount(static_cast<double>(c.params)), FormatCount(static_cast<double>(c.flops)),
           FormatBytes(static_cast<double>(c.weight_bytes)),
           FormatBytes(static_cast<double>(c.input_bytes)),
           FormatBytes(static_cast<double>(c.output_bytes)), Printf("%.1f", c.Intensity())});
    }
  }
  table.Rule();
  table.Add({"total", "", "", "", FormatCount(static_cast<double>(a.total.params)),
             FormatCount(static_cast<double>(a.total.flops)),
             FormatBytes(static_cast<double>(a.total.weight_bytes)), "", "", ""});
  std::string out = table.Render(4);
  out += "params " + std::to_string(a.total.params) + "   FLOPs " + std::to_string(a.total.flops) +
         "   peak live activations " + FormatBytes(static_cast<double>(a.peak_activation_bytes)) +
         " (at layer " + t.layers[a.peak_layer].name + ")   precision " +
         PrecisionName(a.precision) + "\n";
  return out;
}

}  // namespace ntpb
