#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "ntpbench/report.h"
#include "ntpbench/scenario.h"
#include "src/common/printable.h"
#include "src/report/run_rows.h"
#include "src/report/text_table.h"

namespace ntpb {

namespace {

using report::DisplayLength;
using report::Elide;
using report::TextTable;

std::string Printf(const char* fmt, double v) { return FormatNumber(fmt, v); }

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
std::string FormatAccuracy(const RunMeasurement& m);
}  // namespace

std::string FormatTime(double ms, const std::string& unit) {
  if (unit == "ns") return Printf("%.0f ns", ms * 1e6);
  if (unit == "us") return Printf("%.1f \u00b5s", ms * 1e3);
  if (unit == "ms") return Printf("%.3f ms", ms);
  if (unit == "s") return Printf("%.4f s", ms / 1e3);
  return ms < 1.0 ? Printf("%.1f \u00b5s", ms * 1e3) : Printf("%.2f ms", ms);
}

namespace {

// "35.2..780.3 µs", or "29.0 µs..2.27 ms" when the ends need different units.
std::string FormatRange(double min_ms, double max_ms, const std::string& unit) {
  if (max_ms <= 0) return "";
  const std::string lo = FormatTime(min_ms, unit), hi = FormatTime(max_ms, unit);
  const size_t lo_space = lo.rfind(' '), hi_space = hi.rfind(' ');
  if (lo.substr(lo_space) == hi.substr(hi_space)) return lo.substr(0, lo_space) + ".." + hi;
  return lo + ".." + hi;
}

// "latency min 1.2 ms, max 3.4 ms over 57 iterations (too few for a p90: it needs 100)", on a line
// of its own: the range behind the percentiles,
// and which of them rest on too few iterations to be more than the slowest one.
std::string LatencySpread(const NetworkMeasure& n, const TableView& view) {
  if (n.latency_samples <= 0) return "";
  std::string out = "\nlatency min " + FormatTime(n.min_ms, view.time_unit) + ", max " +
                    FormatTime(n.max_ms, view.time_unit) + " over " +
                    Printf("%.0f", n.latency_samples) +
                    (n.latency_samples == 1 ? " iteration" : " iterations");
  for (const int p : {90, 99}) {  // the lowest percentile short of iterations
    const int64_t needed = QueriesForPercentile(p);
    if (n.latency_samples < static_cast<double>(needed)) {
      out += " (too few for a p" + std::to_string(p) + ": it needs " + std::to_string(needed) + ")";
      break;
    }
  }
  if (n.step_samples > 0 && n.step_samples < n.latency_samples) {
    out += "; rows over the first " + Printf("%.0f", n.step_samples);
  }
  return out;
}

// "; cores 31 ns apart": the one-way core-to-core latency the run saw (a VM's host places its
// virtual CPUs near or far, and a small network's steps take longer far apart).
std::string CoreDistance(const RunMeasurement& m) {
  if (!m.interference || !(m.interference->core_to_core_ns > 0)) return "";
  return "; cores " + Printf("%.0f", m.interference->core_to_core_ns) + " ns apart";
}

}  // namespace

std::string FormatRunTable(const RunMeasurement& m, const MachinePeaks* peaks,
                           const TableView& view) {
  // "87% c": the roofline bound's time over the measured time, and what sets the bound: peak
  // compute (c), memory bandwidth (m), or a cache's (l2, l3) when what is read between two
  // reads of the same bytes stays in it. The run computed each step's bound; a region's is the
  // sum of its steps', with the letter of the bound that holds most of it.
  auto roof = [&](double roof_ms, const std::string& bound, double ms) -> std::string {
    if (roof_ms <= 0 || ms <= 0) return "";
    return Printf("%.0f%% ", 100 * roof_ms / ms) + (bound == "compute"  ? "c"
                                                    : bound == "memory" ? "m"
                                                                        : bound);
  };
  struct Bound {
    double ms = 0;
    std::map<std::string, double> by_kind;
    void Add(const StepMeasure& s) {
      ms += s.roof_ms;
      if (s.roof_ms > 0) by_kind[s.bound] += s.roof_ms;
    }
    std::string Kind() const {
      std::string kind;
      double most = 0;
      for (const auto& [k, v] : by_kind) {
        if (v > most) kind = k, most = v;
      }
      return kind;
    }
  };
  const int bar_cells = view.wide ? 20 : 10;
  auto bar = [&](double share) {
    std::string cells;
    for (int i = 0; i < static_cast<int>(share * bar_cells + 0.5); ++i) cells += "\u2588";
    return cells;
  };
  // Rows with every column; the default table keeps the first 9 (8 when no step names its
  // kernel, or when the kernel does not fit).
  using Row = std::vector<std::string>;
  // Medians with their range where the run kept each step's iterations; means in older files.
  const bool medians = m.net.step_samples > 0;
  const Row header_cells = {"layer",
                            "op",
                            "output",
                            medians ? "p50" : "mean",
                            medians ? "min..max" : "",
                            "share",
                            "",
                            "GFLOP/s",
                            "roof",
                            "kernel",
                            "FLOPs",
                            "weights",
                            "activations out",
                            "FLOP/B"};
  size_t kernel_column = 9;
  bool any_kernel = false, any_device = false;
  double device_total_ms = 0;
  for (const StepMeasure& s : m.steps) {
    any_kernel = any_kernel || !s.kernel.empty();
    any_device = any_device || s.measure.device_ms > 0;
    device_total_ms += s.measure.device_ms;
  }
  // Each row ends with its device time (OpenCL profiling); it moves beside the wall time when
  // the run measured one, and is dropped when not.
  auto device = [&](const RegionMeasure& measure) {
    return measure.device_ms > 0 ? FormatTime(measure.device_ms, view.time_unit) : "";
  };
  // A step's relative error against the f32 reference (below f32) rides at the end of its row
  // and is moved before the kernel column once every row is built.
  bool any_error = false;
  for (const StepMeasure& s : m.steps) any_error = any_error || s.rms_rel_err >= 0;
  auto timed_row = [&](const std::string& name, const std::string& op, const std::string& what,
                       const RegionMeasure& measure, const StepCost& cost, const Bound& bound,
                       const std::string& kernel = "", double error = -1) -> Row {
    const double ms = measure.Typical();
    Row r = {name,
             op,
             what,
             FormatTime(ms, view.time_unit),
             FormatRange(measure.min_ms, measure.max_ms, view.time_unit),
             Printf("%.1f%%", 100 * measure.time_share),
             bar(measure.time_share),
             Printf("%.1f", ms > 0 ? static_cast<double>(cost.flops) / (ms * 1e6) : 0.0),
             roof(bound.ms, bound.Kind(), ms),
             kernel,
             FormatCount(static_cast<double>(cost.flops)),
             FormatBytes(static_cast<double>(cost.weight_bytes)),
             FormatBytes(static_cast<double>(cost.output_bytes)),
             Printf("%.1f", cost.Intensity()),
             device(measure)};
    if (error >= 0) r.push_back(Printf("%.2e", error));
    return r;
  };
  // A step (with the layers fused into it) or an inlay: what --sort time and --top move.
  struct Group {
    std::vector<Row> rows;
    double ms = 0;
  };
  std::vector<Group> groups;
  double total_ms = 0;
  for (const report::RunRow& row : report::RunRows(m)) {
    const StepMeasure& step = *row.step;
    if (row.kind == report::RunRow::kInlay) {
      // Steps a backend inserted in front of a layer (layout conversions, i8 quantization):
      // real cost, shown above the layer they prepare an input for.
      total_ms += step.measure.ms;
      const double share = step.measure.time_share;
      groups.push_back({{{step.name + " (inlay)", step.inlay_op, "",
                          FormatTime(step.measure.Typical(), view.time_unit),
                          FormatRange(step.measure.min_ms, step.measure.max_ms, view.time_unit),
                          Printf("%.1f%%", 100 * share), bar(share), "", "", step.kernel, "", "",
                          "", "", device(step.measure)}},
                        step.measure.ms});
      continue;
    }
    if (row.kind == report::RunRow::kFusedInto) {  // no time of its own: under its step
      if (!groups.empty()) {
        groups.back().rows.push_back({"  " + row.name, row.op, row.shape, "fused", "", "", "", "",
                                      "", "", "", "", "", "", ""});
      }
      continue;
    }
    // The default table counts the fused layers (listed under the step); --wide names them.
    std::string op = row.op;
    if (view.wide && row.fused > 0) {
      for (int f = 1; f <= row.fused; ++f) op += "+" + step.layer_ops[f];
    } else if (step.fused_layers > 0) {
      op += " +" + std::to_string(step.fused_layers);
    }
    Bound bound;
    bound.Add(step);
    total_ms += step.measure.ms;
    groups.push_back({{timed_row(row.name + (step.inlay_layer ? " (inlay)" : ""), op, row.shape,
                                 step.measure, step.cost, bound, step.kernel, step.rms_rel_err)},
                      step.measure.ms});
  }
  const bool by_time = view.by_time || view.top > 0;
  if (by_time) {
    std::stable_sort(groups.begin(), groups.end(),
                     [](const Group& x, const Group& y) { return x.ms > y.ms; });
  }
  std::vector<Row> rows;
  size_t shown = 0;
  double hidden_ms = 0;
  for (const Group& g : groups) {
    if (view.top > 0 && shown >= static_cast<size_t>(view.top)) {
      hidden_ms += g.ms;
      continue;
    }
    ++shown;
    rows.insert(rows.end(), g.rows.begin(), g.rows.end());
  }
  if (shown < groups.size()) {
    const double share = total_ms > 0 ? hidden_ms / total_ms : 0;
    rows.push_back({"(" + std::to_string(groups.size() - shown) + " more steps)", "", "",
                    FormatTime(hidden_ms, view.time_unit), "(sum of means)",
                    Printf("%.1f%%", 100 * share), bar(share), "", "", "", "", "", "", "", ""});
  }
  // A region's cost and bound: its steps' (a fused chain's intermediates never reach memory).
  auto region = [&](int first, int last, StepCost* cost, Bound* bound) {
    for (int k = std::max(first, 0); k <= last && k < static_cast<int>(m.steps.size()); ++k) {
      *cost += m.steps[k].cost;
      bound->Add(m.steps[k]);
    }
  };
  const Row rule;  // an empty row is a rule
  const int steps = static_cast<int>(m.steps.size());
  bool any_marker = false;
  for (const MarkerMeasure& marker : m.markers) {
    if (marker.first_step < 0 || marker.last_step >= steps) continue;  // not placed
    if (!any_marker) rows.push_back(rule);
    any_marker = true;
    StepCost cost;
    Bound bound;
    region(marker.first_step, marker.last_step, &cost, &bound);
    rows.push_back(timed_row("[" + marker.name + "]", "marker", report::MarkerLayers(m, marker),
                             marker.measure, cost, bound));
  }
  rows.push_back(rule);
  StepCost total;
  Bound total_bound;
  region(0, steps - 1, &total, &total_bound);
  // The whole iteration's median and range (its latencies), else the steps' summed means.
  const double total_headline = medians && m.net.p50_ms > 0 ? m.net.p50_ms : total_ms;
  rows.push_back(
      {"total", "", "", FormatTime(total_headline, view.time_unit),
       medians ? FormatRange(m.net.min_ms, m.net.max_ms, view.time_unit) : "", "100.0%", "",
       Printf("%.1f", total_headline > 0 ? total.flops / (total_headline * 1e6) : m.net.gflops),
       roof(total_bound.ms, total_bound.Kind(), total_headline), "", FormatCount(total.flops),
       FormatBytes(total.weight_bytes), "", "",
       any_device ? FormatTime(device_total_ms, view.time_unit) : ""});
  Row header = header_cells;
  header.push_back("device");
  // Below f32: each step's output error against the reference, before the kernel column.
  if (any_error) {
    header.insert(header.begin() + 9, "rel. err");
    for (Row& r : rows) {
      if (r.empty()) continue;
      std::string error;
      if (r.size() > header.size() - 1) {
        error = r.back();
        r.pop_back();
      }
      r.insert(r.begin() + 9, error);
    }
    ++kernel_column;
  }
  auto place_device = [&](Row& r) {
    if (r.empty()) return;  // a rule
    std::string last = r.back();
    r.pop_back();
    if (any_device) r.insert(r.begin() + 5, last);
  };
  place_device(header);
  for (Row& r : rows) place_device(r);
  if (any_device) ++kernel_column;
  // Without medians (an older file) the range column is empty: dropped.
  if (!medians) {
    header.erase(header.begin() + 4);
    for (Row& r : rows) {
      if (!r.empty()) r.erase(r.begin() + 4);
    }
    --kernel_column;
  }
  // The default table: the first 10 columns (9 without kernels), names (and a marker's range)
  // shortened until the table fits view.width; kernels too, then dropped if it still does not.
  size_t columns = view.wide ? header.size() : any_kernel ? kernel_column + 1 : kernel_column;
  size_t max_kernel = view.wide ? SIZE_MAX : 24;
  auto render = [&](size_t max_name) {
    TextTable table(Row(header.begin(), header.begin() + columns));
    for (const Row& r : rows) {
      if (r.empty()) {
        table.Rule();
        continue;
      }
      Row cells(r.begin(), r.begin() + columns);
      cells[0] = Elide(cells[0], max_name);
      cells[2] = Elide(cells[2], max_name);
      if (columns > kernel_column) cells[kernel_column] = Elide(cells[kernel_column], max_kernel);
      table.Add(cells);
    }
    return table.Render(2);
  };
  auto widest = [](const std::string& text) {
    size_t width = 0;
    for (size_t at = 0; at < text.size();) {
      const size_t end = std::min(text.find('\n', at), text.size());
      width = std::max(width, DisplayLength(text.substr(at, end - at)));
      at = end + 1;
    }
    return width;
  };
  std::string out = render(SIZE_MAX);
  if (!view.wide) {
    size_t longest = 0;
    for (const Row& r : rows) {
      if (!r.empty()) longest = std::max(longest, std::max(r[0].size(), r[2].size()));
    }
    // Names are shortened down to `least` columns; below 24 the kernel goes first.
    auto fit = [&](size_t least) {
      const size_t width = widest(out);
      if (width <= view.width) return true;
      const size_t excess = width - view.width;
      out = render(std::max(least, longest > excess ? longest - excess : least));
      return widest(out) <= view.width;
    };
    if (!fit(columns > kernel_column ? 24 : 16) && columns > kernel_column) {
      max_kernel = 16;
      out = render(SIZE_MAX);
      if (!fit(24)) {
        columns = kernel_column;
        out = render(SIZE_MAX);
        fit(16);
      }
    }
  }
  // Times are per iteration, one batch; at a batch above 1 the per-sample median too.
  const double batch = m.setup.batch > 1 ? static_cast<double>(m.setup.batch) : 1.0;
  const std::string per_sample = batch > 1 && m.net.p50_ms > 0
                                     ? "   per sample (batch " + Printf("%.0f", batch) + ") p50 " +
                                           FormatTime(m.net.p50_ms / batch, view.time_unit)
                                     : "";
  out += "samples/s " + Printf("%.2f", m.net.samples_per_second) + "   params " +
         FormatCount(m.net.params) + "   mean " + FormatTime(total_ms, view.time_unit) +
         per_sample + "\np50/p90/p99 " + FormatTime(m.net.p50_ms, view.time_unit) + " / " +
         FormatTime(m.net.p90_ms, view.time_unit) + " / " +
         FormatTime(m.net.p99_ms, view.time_unit) + LatencySpread(m.net, view) + CoreDistance(m) +
         "\npeak activations " + FormatBytes(m.memory.peak_activation_bytes) +
         (m.memory.activation_bytes ? " (allocated " + FormatBytes(*m.memory.activation_bytes) + ")"
                                    : "") +
         "   workspace " + FormatBytes(m.memory.workspace_bytes.value_or(0)) + "\n";
  const std::string& precision = m.setup.precision;
  if (peaks && peaks->peak_gflops.count(precision)) {
    const double working_set = m.memory.weight_bytes + m.memory.peak_activation_bytes;
    const MemoryLevel level = LevelFor(static_cast<int64_t>(working_set), *peaks);
    const std::string fits = " (weights + activations " + FormatBytes(working_set) + " fit ";
    // Against f32's: on a 2-core Intel Xeon guest (Sapphire Rapids class, no AMX) vdpbf16ps ran
    // a quarter as many instructions a second as the f32 FMA (half its FLOPs), bf16's GEMM
    // ceiling at 0.56x f32's, and bf16 BERT took 1.5x its f32 time with nothing in the table
    // saying why.
    const auto f32 = peaks->peak_gflops.find("f32");
    const double own = peaks->peak_gflops.at(precision);
    std::string against_f32;
    if (precision != "f32" && f32 != peaks->peak_gflops.end() && f32->second > 0 && own > 0 &&
        std::abs(own / f32->second - 1) >= 0.1) {
      against_f32 = "      " + precision + " computes at " + Printf("%.2f", own / f32->second) +
                    "x f32's peak here" +
                    (own < f32->second ? ": compute-bound layers run slower than in f32" : "") +
                    "\n";
    }
    out += "roof: " + precision + " peak " + Printf("%.0f GFLOP/s", own) + ", " +
           (level == MemoryLevel::kL2
                ? "L2 " + Printf("%.1f GB/s", peaks->l2_bandwidth_gbs) + fits + "the L2s)"
            : level == MemoryLevel::kLastLevelCache
                ? "last-level cache " + Printf("%.1f GB/s", peaks->cache_bandwidth_gbs) + fits +
                      "its " + FormatBytes(static_cast<double>(peaks->cache_bytes)) + ")"
                : "memory " + Printf("%.1f GB/s", peaks->bandwidth_gbs)) +
           "; from `ntpbench machine`\n"
           "      a recurrence (weights re-read each step): its largest re-read tensor's plateau, "
           "half the L3 served beyond it\n";
    out += against_f32;
  }
  if (m.accuracy) out += FormatAccuracy(m);
  out += FormatCounterTable(m);
  if (m.net.counted_iterations > 0 && !m.net.counters.empty()) {
    const double over = total_ms > 0 ? m.net.counted_ms / total_ms - 1 : 0;
    out += "counters from a pass of their own after the timed one: " +
           Printf("%.0f", m.net.counted_iterations) + " iterations at " +
           FormatTime(m.net.counted_ms, view.time_unit) + " each,\n  counting included (" +
           Printf("%+.0f%%", 100 * over) +
           " over the timed mean); the times above hold none of it\n";
  }
  return out;
}

namespace {

// A lower precision against the Eigen f32 reference: the outputs, the logits, a classifier's
// agreement, and the steps that lose most.
std::string FormatAccuracy(const RunMeasurement& m) {
  const OutputAccuracy& a = *m.accuracy;
  std::string out =
      "accuracy vs the Eigen f32 reference (same weights and inputs; relative error = "
      "||x - ref|| / ||ref||):\n  outputs: relative error " +
      Printf("%.2e", a.rms_rel_err) + ", cosine " + Printf("%.6f", a.cosine) +
      ", largest element error " + Printf("%.2e", a.max_rel_err) + " (of max(1, |ref|))\n";
  if (!a.logits.empty()) {
    out += "  logits (" + a.logits + ", before the softmax): relative error " +
           Printf("%.2e", a.logits_rms_rel_err) + ", cosine " + Printf("%.6f", a.logits_cosine) +
           "\n";
  }
  if (a.top1_agreement >= 0) {
    out +=
        "  top-1 agreement " + Printf("%.1f%%", 100 * a.top1_agreement) +
        (a.top5_overlap >= 0 ? ", top-5 overlap " + Printf("%.1f%%", 100 * a.top5_overlap) : "") +
        " over " + Printf("%.0f", a.predictions) + " predictions of " + Printf("%.0f", a.inputs) +
        (a.inputs == 1 ? " input" : " seeded inputs") +
        (a.logits.empty() ? "" : " (argmax of the logits)") + "\n";
  }
  std::vector<const StepMeasure*> worst;
  for (const StepMeasure& s : m.steps) {
    if (s.rms_rel_err >= 0) worst.push_back(&s);
  }
  std::stable_sort(worst.begin(), worst.end(), [](const StepMeasure* x, const StepMeasure* y) {
    return x->rms_rel_err > y->rms_rel_err;
  });
  if (!worst.empty()) {
    // On one line where it fits 120 columns, else one step a line (exported names are long).
    std::string line = "  steps losing most (their output's relative error):";
    const size_t shown = std::min<size_t>(worst.size(), 3);
    for (size_t i = 0; i < shown; ++i) {
      line += std::string(i ? "," : "") + " " + worst[i]->name + " " +
              Printf("%.2e", worst[i]->rms_rel_err);
    }
    if (DisplayLength(line) > 120) {
      line = "  steps losing most (their output's relative error):";
      for (size_t i = 0; i < shown; ++i) {
        line +=
            "\n    " + Printf("%.2e", worst[i]->rms_rel_err) + "  " + Elide(worst[i]->name, 100);
      }
    }
    out += line + "\n";
  }
  return out;
}

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
         " (at layer " + Printable(t.layers[a.peak_layer].name) + ")   precision " +
         PrecisionName(a.precision) + "\n";
  if (a.kv_cache_layers > 0) {
    out += "KV cache " + FormatBytes(static_cast<double>(a.kv_cache_bytes_per_token)) +
           " per token of context and sequence (" + std::to_string(a.kv_cache_layers) +
           " kv_cache layers at " + PrecisionName(a.precision) + ")\n";
  }
  return out;
}

}  // namespace ntpb
