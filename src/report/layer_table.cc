#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "ntpbench/report.h"
#include "src/common/counter_names.h"
#include "src/report/text_table.h"

namespace ntpb {

namespace cn = counter_names;
namespace {

using report::TextTable;

std::string Printf(const char* fmt, double v) { return FormatNumber(fmt, v); }

double Get(const std::map<std::string, double>& c, const std::string& key) {
  auto it = c.find(key);
  return it == c.end() ? 0.0 : it->second;
}

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
std::string FormatCounterTable(const TopologyAnalysis& a,
                               const std::map<std::string, double>& counters);
}  // namespace

std::string FormatRunTable(const ResolvedTopology& t, const TopologyAnalysis& a,
                           const std::map<std::string, double>& counters, Precision precision,
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
  int fused_left = 0;  // rows still to show as fused into the step above
  // What each shown step moves and computes, by its first layer: a fused chain's intermediates
  // never reach memory, so markers and the total sum these rather than every layer's cost.
  std::vector<std::pair<int, Cost>> step_costs;
  for (size_t i = 0; i < t.layers.size(); ++i) {
    const ResolvedLayer& l = t.layers[i];
    const LayerAnalysis& la = a.layers[i];
    const std::string key = cn::LayerRegion(l.name);
    // Steps a backend inserted in front of this layer (layout conversions, i8 quantization):
    // real cost.
    for (const char* kind : {"reorder", "quantize", "dequantize"}) {
      const std::string inserted = key + "." + kind + ".";
      for (auto it = counters.lower_bound(inserted);
           it != counters.end() && it->first.compare(0, inserted.size(), inserted) == 0; ++it) {
        const std::string& k = it->first;
        const std::string ms_suffix = std::string(".") + cn::kMs;
        if (k.size() < ms_suffix.size() ||
            k.compare(k.size() - ms_suffix.size(), ms_suffix.size(), ms_suffix) != 0) {
          continue;
        }
        const std::string step = k.substr(0, k.size() - ms_suffix.size());
        const double step_share = Get(counters, cn::Of(step, cn::kTimeShare));
        total_ms += it->second;
        table.Add({step.substr(cn::LayerRegion("").size()) + " (inlay)", kind, "",
                   Printf("%.3f", it->second), Printf("%.1f%%", 100 * step_share), Bar(step_share),
                   "", "", "", "", "", ""});
      }
    }
    if (fused_left > 0) {  // computed by the step above (post-op fusion): no time of its own
      --fused_left;
      table.Add({"  " + l.name, l.op, ShapeToString(l.output_shapes[0]), "fused", "", "", "", "",
                 "", "", "", ""});
      continue;
    }
    fused_left = std::clamp(static_cast<int>(Get(counters, cn::Of(key, cn::kFusedLayers))), 0,
                            static_cast<int>(t.layers.size() - 1 - i));
    std::string op = l.op;
    for (int f = 1; f <= fused_left; ++f) op += "+" + t.layers[i + f].op;
    const Cost cost = FusedCost(a, static_cast<int>(i), fused_left);
    step_costs.emplace_back(static_cast<int>(i), cost);
    const Shape& out = t.layers[i + fused_left].output_shapes[0];
    total_ms += Get(counters, cn::Of(key, cn::kMs));
    const double share = Get(counters, cn::Of(key, cn::kTimeShare));
    table.Add({l.name + (la.inlay ? " (inlay)" : ""), op, ShapeToString(out),
               Printf("%.3f", Get(counters, cn::Of(key, cn::kMs))), Printf("%.1f%%", 100 * share),
               Bar(share), Printf("%.1f", Get(counters, cn::Of(key, cn::kGflops))),
               roof(cost, Get(counters, cn::Of(key, cn::kMs))),
               FormatCount(static_cast<double>(cost.flops)),
               FormatBytes(static_cast<double>(cost.weight_bytes)),
               FormatBytes(static_cast<double>(cost.output_bytes)),
               Printf("%.1f", cost.Intensity())});
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
      MarkerAnalysis m = marker;
      m.cost = steps_cost(m.first, m.last);
      const double share = Get(counters, cn::Of(m.name, cn::kTimeShare));
      table.Add(
          {"[" + m.name + "]", "marker", t.layers[m.first].name + ".." + t.layers[m.last].name,
           Printf("%.3f", Get(counters, cn::Of(m.name, cn::kMs))), Printf("%.1f%%", 100 * share),
           Bar(share), Printf("%.1f", Get(counters, cn::Of(m.name, cn::kGflops))),
           roof(m.cost, Get(counters, cn::Of(m.name, cn::kMs))),
           FormatCount(static_cast<double>(m.cost.flops)),
           FormatBytes(static_cast<double>(m.cost.weight_bytes)),
           FormatBytes(static_cast<double>(m.cost.output_bytes)),
           Printf("%.1f", m.cost.Intensity())});
    }
  }
  table.Rule();
  const Cost total = steps_cost(0, static_cast<int>(t.layers.size()) - 1);
  table.Add({"total", "", "", Printf("%.3f", total_ms), "100.0%", "",
             Printf("%.1f", Get(counters, cn::kNetGflops)), roof(total, total_ms),
             FormatCount(static_cast<double>(total.flops)),
             FormatBytes(static_cast<double>(total.weight_bytes)), "", ""});
  std::string out = table.Render(2);
  out += "samples/s " + Printf("%.2f", Get(counters, cn::kNetSamplesPerSecond)) + "   params " +
         FormatCount(static_cast<double>(a.total.params)) + "   peak activations " +
         FormatBytes(static_cast<double>(a.peak_activation_bytes)) +
         (counters.count(cn::kMemActivationBytes)
              ? " (allocated " + FormatBytes(Get(counters, cn::kMemActivationBytes)) + ")"
              : "") +
         "   workspace " + FormatBytes(Get(counters, cn::kMemWorkspaceBytes)) + "   p50/p90/p99 " +
         Printf("%.3f", Get(counters, cn::kNetP50Ms)) + "/" +
         Printf("%.3f", Get(counters, cn::kNetP90Ms)) + "/" +
         Printf("%.3f ms", Get(counters, cn::kNetP99Ms)) + "\n";
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
  if (counters.count(cn::kAccCosine)) {
    out += "outputs vs the Eigen f32 reference: max relative error " +
           Printf("%.2e", Get(counters, cn::kAccMaxRelErr)) + ", cosine similarity " +
           Printf("%.6f", Get(counters, cn::kAccCosine)) + "\n";
  }
  return out + FormatCounterTable(a, counters);
}

namespace {

// Measured counters (sde, perf, rusage, PAPI, ...) of net and each marker: one row a metric, one
// column a region; empty when none was measured.
std::string FormatCounterTable(const TopologyAnalysis& a,
                               const std::map<std::string, double>& counters) {
  static const std::set<std::string> kTiming = {"ms",     "time_share", "gflops",
                                                "flops",  "params",     "samples_per_second",
                                                "p50_ms", "p90_ms",     "p99_ms"};
  std::vector<std::string> regions = {cn::kNet};
  for (const MarkerAnalysis& m : a.markers) regions.push_back(m.name);
  std::set<std::string> metrics;
  for (const auto& [key, value] : counters) {
    for (const std::string& r : regions) {
      if (key.rfind(r + ".", 0) != 0) continue;
      const std::string metric = key.substr(r.size() + 1);
      if (!kTiming.count(metric)) metrics.insert(metric);
    }
  }
  if (metrics.empty()) return "";
  std::vector<std::string> header = {"counter per iteration"};
  for (const std::string& r : regions) header.push_back(r == cn::kNet ? r : "[" + r + "]");
  TextTable table(header);
  for (const std::string& metric : metrics) {
    std::vector<std::string> row = {metric};
    for (const std::string& r : regions) {
      auto it = counters.find(r + "." + metric);
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
