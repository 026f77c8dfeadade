#include "ntpbench/html_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/reliability.h"
#include "ntpbench/report.h"
#include "ntpbench/scenario_report.h"
#include "src/common/format_number.h"
#include "src/common/statistics.h"
#include "src/report/page_style.h"
#include "src/report/step_alignment.h"
#include "src/report/svg.h"

namespace ntpb {

namespace {

using report::Bar;
using report::Escape;
using report::SeriesColor;

// One benchmark that ran, with what the page keys it by.
struct Entry {
  const RunResults* file = nullptr;
  std::string name;     // Google Benchmark's run name
  std::string variant;  // the name less the topology and "/real_time": "onednn/bf16/batch:1"
  std::string machine;  // "AMD EPYC, 2 threads": what a fleet differs in
  RunMeasurement m;
  double ms = 0;           // median over the repetitions of each one's median iteration
  std::string unreliable;  // reliability.h's verdict; "" when the run could be trusted
};

std::string MachineLabel(const RunResults& f) {
  std::string label = f.has_machine ? f.machine.cpu : f.file;
  if (f.threads > 0)
    label += ", " + std::to_string(f.threads) + (f.threads == 1 ? " thread" : " threads");
  return label;
}

std::string TopologyOf(const Entry& e) {
  if (!e.m.setup.topology.empty()) return e.m.setup.topology;
  return e.name.substr(0, e.name.find('/'));
}

// The name less the topology, "real_time" and the thread count (the machine's part: a fleet
// compares one configuration across machines and thread counts).
std::string Variant(const std::string& name) {
  std::string v;
  size_t at = name.find('/');
  if (at == std::string::npos) return name;
  for (size_t end; at != std::string::npos; at = end) {
    end = name.find('/', at + 1);
    const std::string part = name.substr(at + 1, end == std::string::npos ? end : end - at - 1);
    if (part == "real_time" || part.rfind("nthreads:", 0) == 0) continue;
    v += (v.empty() ? "" : "/") + part;
  }
  return v;
}

std::string Ms(double ms) { return FormatTime(ms); }

std::string KindColor(const StepMeasure& s) {
  if (s.kind == StepKind::kInlay || s.inlay_layer) return "#f28e2b";  // inlays: orange
  if (s.kind == StepKind::kFused) return "#7b5ea7";                   // fused steps: purple
  return "#4e79a7";
}

std::string Legend() {
  return "<p class=\"legend\"><span style=\"background:#4e79a7\"></span>layer "
         "<span style=\"background:#7b5ea7\"></span>fused step (layers after it computed in its "
         "epilogue) <span style=\"background:#f28e2b\"></span>inlay (not a network layer: "
         "MFCC, the decoder, and the reorders and quantizations a backend inserts)</p>";
}

std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string html = "<table><tr>";
  for (const std::string& h : header) html += "<th>" + Escape(h) + "</th>";
  html += "</tr>";
  for (const auto& row : rows) {
    html += "<tr>";
    for (const std::string& cell : row) html += "<td>" + cell + "</td>";
    html += "</tr>";
  }
  return html + "</table>";
}

std::string PeakText(const MachinePeaks& p) {
  std::string out;
  for (const auto& [precision, gflops] : p.peak_gflops) {
    out += (out.empty() ? "" : ", ") + precision + " " + FormatNumber("%.0f", gflops);
  }
  return out;
}

std::string MachinesSection(const std::vector<RunResults>& files) {
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, size_t> row_of;
  for (const RunResults& f : files) {
    const std::string label = MachineLabel(f);
    if (const auto it = row_of.find(label); it != row_of.end()) {
      rows[it->second][1] += "<br>" + Escape(f.file);
      continue;
    }
    row_of[label] = rows.size();
    rows.push_back(
        {Escape(label), Escape(f.file), Escape(f.has_machine ? f.machine.isa : ""),
         Escape(f.has_machine ? f.machine.libraries : ""),
         f.peaks ? Escape(PeakText(*f.peaks)) : "not measured (<code>ntpbench machine</code>)",
         f.peaks ? FormatNumber("%.1f", f.peaks->bandwidth_gbs) : "",
         f.peaks && f.peaks->cache_bandwidth_gbs > 0
             ? FormatNumber("%.1f", f.peaks->cache_bandwidth_gbs) + " (" +
                   FormatBytes(static_cast<double>(f.peaks->cache_bytes)) + ")"
             : ""});
  }
  return "<h2>Machines</h2>" + Table({"machine", "file", "ISA", "libraries", "peak GFLOP/s",
                                      "memory GB/s", "last-level cache GB/s"},
                                     rows);
}

std::string SkippedSection(const std::vector<RunResults>& files) {
  std::string html;
  for (const RunResults& f : files) {
    for (const std::string& name : f.order) {
      const BenchmarkResult& r = f.benchmarks.at(name);
      if (!r.skipped.empty()) html += "<li>" + Escape(name) + ": " + Escape(r.skipped) + "</li>";
    }
  }
  return html.empty() ? "" : "<p>Did not run:</p><ul>" + html + "</ul>";
}

std::string RunsSection(const std::vector<Entry>& entries) {
  std::vector<std::vector<std::string>> rows;
  for (const Entry& e : entries) {
    // A disturbed run says so where its time is read.
    const std::string time = e.unreliable.empty()
                                 ? Ms(e.ms)
                                 : Ms(e.ms) + " <span class=\"unreliable\" title=\"" +
                                       Escape(e.unreliable) + "\">unreliable</span>";
    rows.push_back({Escape(TopologyOf(e)), Escape(e.variant), Escape(e.machine), time,
                    FormatNumber("%.1f", e.m.net.samples_per_second),
                    FormatNumber("%.1f", e.m.net.gflops), Ms(e.m.net.p99_ms),
                    e.m.accuracy ? FormatNumber("%.6f", e.m.accuracy->cosine) : "reference",
                    e.m.accuracy ? FormatNumber("%.2e", e.m.accuracy->max_rel_err) : ""});
  }
  std::string notes;
  for (const Entry& e : entries) {
    if (!e.unreliable.empty()) notes += "<li>" + Escape(e.name + ": " + e.unreliable) + "</li>";
  }
  if (!notes.empty()) notes = "<ul class=\"unreliable\">" + notes + "</ul>";
  return "<h2>Runs</h2>" +
         Table({"topology", "configuration", "machine", "p50 per batch", "samples/s", "GFLOP/s",
                "p99", "cosine to f32", "max rel. error"},
               rows) +
         notes;
}

// Per topology: each configuration a group, each machine a bar; speed-ups against the
// topology's first run.
std::string ComparisonSection(const std::string& topology, const std::vector<const Entry*>& runs) {
  std::vector<std::string> machines, variants;
  for (const Entry* e : runs) {
    if (std::find(machines.begin(), machines.end(), e->machine) == machines.end()) {
      machines.push_back(e->machine);
    }
    if (std::find(variants.begin(), variants.end(), e->variant) == variants.end()) {
      variants.push_back(e->variant);
    }
  }
  // The reference: the first run the machine did not disturb (else the first). Speed-ups are in
  // samples per second, so that a batch of 16 is not "slower" than one of 4 for its 4x work.
  const Entry* ref = runs.front();
  for (const Entry* e : runs) {
    if (e->unreliable.empty()) {
      ref = e;
      break;
    }
  }
  auto batch = [](const Entry* e) {
    return static_cast<double>(std::max<int64_t>(1, e->m.setup.batch));
  };
  const double ref_rate = batch(ref) / ref->ms;
  std::vector<report::BarGroup> groups;
  for (const std::string& v : variants) {
    report::BarGroup g{v, {}};
    for (size_t k = 0; k < machines.size(); ++k) {
      Bar b;
      b.color = SeriesColor(k);
      for (const Entry* e : runs) {
        if (e->variant != v || e->machine != machines[k]) continue;
        b.value = e->ms;
        const std::string per_sample = batch(e) > 1 ? " (" + Ms(e->ms / batch(e)) + "/sample)" : "";
        b.text =
            Ms(e->ms) + per_sample +
            (e == ref                 ? "  reference"
             : !e->unreliable.empty() ? "  x? unreliable"
                                      : "  x" + FormatNumber("%.2f", batch(e) / e->ms / ref_rate));
        b.title =
            e->name + " on " + e->machine + (e->unreliable.empty() ? "" : ": " + e->unreliable);
      }
      g.bars.push_back(b);
    }
    groups.push_back(g);
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t k = 0; k < machines.size(); ++k) legend.push_back({machines[k], SeriesColor(k)});
  return "<h3>" + Escape(topology) +
         ": time per inference of a batch</h3><p>x: samples per second over " +
         Escape(ref->variant + " on " + ref->machine) +
         " (the same as its time's ratio at the same batch); x? where the run was unreliable "
         "(not judged)</p>" +
         report::GroupedBarChart(groups, legend);
}

// Precisions of one topology, backend, batch and machine: speed-up next to the accuracy cost.
std::string PrecisionSection(const std::vector<const Entry*>& runs) {
  std::map<std::string, std::vector<const Entry*>> by_key;
  for (const Entry* e : runs) {
    // A scenario measures no accuracy (single-stream runs do): nothing to set against speed.
    if (e->m.setup.precision.empty() || e->m.scenario) continue;
    std::string key = e->variant;
    const std::string p = "/" + e->m.setup.precision;
    if (const size_t at = key.find(p); at != std::string::npos) key.erase(at, p.size());
    by_key[key + " on " + e->machine].push_back(e);
  }
  std::string html;
  std::vector<report::ScatterPoint> points;
  std::string legend;  // each configuration's line colour, named
  size_t series = 0;
  for (const auto& [key, list] : by_key) {
    if (list.size() < 2) continue;
    const Entry* f32 = nullptr;
    for (const Entry* e : list) {
      if (e->m.setup.precision == "f32") f32 = e;
    }
    std::vector<std::vector<std::string>> rows;
    for (const Entry* e : list) {
      const std::optional<OutputAccuracy>& a = e->m.accuracy;
      auto percent = [](double share) {
        return share >= 0 ? FormatNumber("%.1f%%", 100 * share) : std::string("-");
      };
      rows.push_back({Escape(e->m.setup.precision), Ms(e->ms),
                      f32 ? "x" + FormatNumber("%.2f", f32->ms / e->ms) : "",
                      a ? percent(a->top1_agreement) : "1 (reference)",
                      a && !a->logits.empty() ? FormatNumber("%.2e", a->logits_rms_rel_err) : "",
                      a ? FormatNumber("%.2e", a->rms_rel_err) : "0",
                      a ? FormatNumber("%.6f", a->cosine) : "1 (reference)",
                      FormatBytes(e->m.memory.weight_bytes)});
      // Speed-up against the error of the logits (of the outputs where there are none), labelled
      // with the top-1 agreement: one point per precision, joined over this configuration.
      if (f32 && e->ms > 0) {
        const double error = !a ? 0.0 : !a->logits.empty() ? a->logits_rms_rel_err : a->rms_rel_err;
        const std::string agreement = a && a->top1_agreement >= 0
                                          ? FormatNumber(" (top-1 %.1f%%)", 100 * a->top1_agreement)
                                          : "";
        points.push_back({100 * error, f32->ms / e->ms, report::SeriesColor(series),
                          e->m.setup.precision + agreement,
                          key + " " + e->m.setup.precision + agreement, true});
      }
    }
    if (f32) {
      legend += "<span style=\"background:" + report::SeriesColor(series) + "\"></span>" +
                Escape(key) + " ";
    }
    ++series;
    html += "<h4>" + Escape(key) + "</h4>" +
            Table({"precision", "time", "speed-up over f32", "top-1 agreement", "logits error",
                   "outputs error", "cosine to f32 outputs", "weights"},
                  rows);
  }
  if (!points.empty()) {
    html +=
        "<p>Speed-up over f32 against the error of the logits (the input of the final "
        "softmax; the outputs' where there is none), ||x - ref|| / ||ref|| in percent, each "
        "point labelled with its top-1 agreement with f32 (argmax of the logits); one line "
        "per configuration.</p><p class=\"legend\">" +
        legend + "</p>" +
        report::ScatterChart(points, "error of the logits against f32 (%)", "speed-up over f32");
  }
  return html.empty() ? "" : "<h3>Precisions: speed against accuracy</h3>" + html;
}

// The steps of every run of a topology, aligned with its first run's; the first run's slowest
// rows.
// The slowest of the first run's steps (at most `top`), each with the time of the steps facing
// it in every run (-1 where a run has none): rows are the first run's steps as they align with
// the second run's (a fused step there groups the first's layers it computes).
struct LayerRow {
  std::string name, op;
  std::vector<double> ms;  // per run
};
std::vector<LayerRow> SlowestAlignedLayers(const std::vector<const Entry*>& runs, int top) {
  const RunMeasurement& ref = runs.front()->m;
  std::vector<std::vector<report::AlignedSteps>> aligned;
  std::vector<report::StepsFacingIndex> facing_index;
  for (const Entry* e : runs) aligned.push_back(report::AlignSteps(ref, e->m));
  for (const auto& alignment : aligned) facing_index.emplace_back(alignment);
  struct Group {
    std::vector<int> ref_steps;
    double ref_ms = 0;
  };
  std::vector<Group> groups;
  for (const report::AlignedSteps& g : aligned[1]) {
    if (g.a.empty()) continue;
    Group r{g.a, 0};
    for (int s : g.a) r.ref_ms += ref.steps[s].measure.Typical();
    groups.push_back(r);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& x, const Group& y) { return x.ref_ms > y.ref_ms; });
  if (groups.size() > static_cast<size_t>(top)) groups.resize(top);
  std::vector<LayerRow> rows;
  for (const Group& g : groups) {
    const StepMeasure& first = ref.steps[g.ref_steps.front()];
    LayerRow row;
    row.name = first.name +
               (g.ref_steps.size() > 1 ? " (+" + std::to_string(g.ref_steps.size() - 1) + ")" : "");
    row.op = first.kind == StepKind::kInlay ? first.inlay_op : first.op;
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::vector<int> facing = facing_index[i].StepsFacing(g.ref_steps);
      double ms = 0;
      for (int s : facing) ms += runs[i]->m.steps[s].measure.Typical();
      row.ms.push_back(facing.empty() ? -1 : ms);
    }
    rows.push_back(row);
  }
  return rows;
}

std::string LayerTableSection(const std::vector<const Entry*>& runs, int top) {
  if (runs.size() < 2) return "";
  const std::vector<LayerRow> rows = SlowestAlignedLayers(runs, top);
  std::vector<std::string> header = {"layer (" + runs.front()->variant + ")", "op"};
  for (size_t i = 0; i < runs.size(); ++i) {
    header.push_back(std::string(1, static_cast<char>('A' + i % 26)));
  }
  std::vector<std::vector<std::string>> cells;
  for (const LayerRow& r : rows) {
    std::vector<std::string> row = {Escape(r.name), Escape(r.op)};
    double fastest = 1e300;
    for (double t : r.ms) {
      if (t > 0) fastest = std::min(fastest, t);
    }
    for (double t : r.ms) {
      if (t < 0) {
        row.push_back("-");
        continue;
      }
      // Greener the closer to the fastest run of the row.
      const double slow = std::min(1.0, std::log2(t / fastest) / 3);
      const int red = static_cast<int>(220 + 35 * slow), green = static_cast<int>(245 - 80 * slow);
      row.push_back("<span class=\"heat\" style=\"background:rgb(" + std::to_string(red) + "," +
                    std::to_string(green) + ",200)\">" + Ms(t) + "</span>");
    }
    cells.push_back(row);
  }
  std::string legend;
  for (size_t i = 0; i < runs.size(); ++i) {
    legend += "<li>" + std::string(1, static_cast<char>('A' + i % 26)) + ": " +
              Escape(runs[i]->variant + " on " + runs[i]->machine) + "</li>";
  }
  return "<h3>Layers across runs (the " + std::to_string(rows.size()) +
         " slowest of A; aligned by layer name, else op and shape)</h3><ul>" + legend + "</ul>" +
         Table(header, cells);
}

// NTP's framework comparison: the backends (libraries and frameworks) that ran one topology at
// the first run's precision and batch on its machine, layer by layer (the slowest of the first
// backend's), and what each spends outside its steps: its time per inference less the sum of
// its steps' (the runner's loop and whatever the backend does between layers).
std::string FrameworkSection(const std::vector<const Entry*>& all, int top) {
  std::vector<const Entry*> runs;
  for (const Entry* e : all) {
    const RunSetup &s = e->m.setup, &first = all.front()->m.setup;
    if (e->machine != all.front()->machine || s.precision != first.precision ||
        s.batch != first.batch || s.backend.empty()) {
      continue;
    }
    const bool seen = std::any_of(runs.begin(), runs.end(),
                                  [&](const Entry* r) { return r->m.setup.backend == s.backend; });
    if (!seen) runs.push_back(e);
  }
  if (runs.size() < 2) return "";
  std::vector<report::BarGroup> groups;
  auto bar = [&](size_t k, double ms, const std::string& what) {
    Bar b;
    b.color = SeriesColor(k);
    if (ms < 0) return b;  // no step faces the layer there
    b.value = ms;
    b.text = Ms(ms);
    b.title = runs[k]->m.setup.backend + ": " + what;
    return b;
  };
  // A dozen layers at most: a bar per backend each, the chart stays readable.
  for (const LayerRow& r : SlowestAlignedLayers(runs, std::min(top, 12))) {
    report::BarGroup g{r.name + " (" + r.op + ")", {}};
    for (size_t k = 0; k < runs.size(); ++k) g.bars.push_back(bar(k, r.ms[k], r.name));
    groups.push_back(g);
  }
  report::BarGroup outside{"outside its steps", {}};
  for (size_t k = 0; k < runs.size(); ++k) {
    double steps = 0;
    for (const StepMeasure& s : runs[k]->m.steps) steps += s.measure.Typical();
    outside.bars.push_back(
        bar(k, std::max(0.0, runs[k]->ms - steps),
            "time per inference " + Ms(runs[k]->ms) + " less its steps' " + Ms(steps)));
  }
  groups.push_back(outside);
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t k = 0; k < runs.size(); ++k) {
    legend.push_back(
        {runs[k]->m.setup.backend + " (" + Ms(runs[k]->ms) + " per inference)", SeriesColor(k)});
  }
  const RunSetup& s = runs.front()->m.setup;
  return "<h3>Backends and frameworks layer by layer (" + Escape(s.precision) + ", batch " +
         std::to_string(s.batch) + ", " + Escape(runs.front()->machine) +
         ")</h3><p>The slowest layers of " + Escape(s.backend) +
         " with the steps that compute them on each backend (aligned by layer name, else op and "
         "shape); last, each backend's time per inference less the sum of its steps: what it "
         "spends between its layers.</p>" +
         report::GroupedBarChart(groups, legend);
}

std::string RunDetails(const Entry& e, size_t index, int top) {
  const RunMeasurement& m = e.m;
  std::vector<const StepMeasure*> steps;
  for (const StepMeasure& s : m.steps) steps.push_back(&s);
  std::stable_sort(steps.begin(), steps.end(), [](const StepMeasure* x, const StepMeasure* y) {
    return x->measure.ms > y->measure.ms;
  });
  std::vector<Bar> bars;
  double shown = 0;
  for (size_t i = 0; i < steps.size() && i < static_cast<size_t>(top); ++i) {
    const StepMeasure& s = *steps[i];
    std::string label = s.name;
    if (s.kind == StepKind::kFused) label += " (+" + std::to_string(s.fused_layers) + " fused)";
    if (s.kind == StepKind::kInlay) label += " [" + s.inlay_op + "]";
    if (s.inlay_layer) label += " [inlay]";
    shown += s.measure.time_share;
    bars.push_back(
        {label, s.measure.Typical(), KindColor(s),
         Ms(s.measure.Typical()) + "  " + FormatNumber("%.1f%%", 100 * s.measure.time_share),
         label + ": " + s.op + " " + s.shape + (s.kernel.empty() ? "" : ", " + s.kernel) + ", " +
             (s.measure.max_ms > 0 ? "min " + Ms(s.measure.min_ms) + ", max " +
                                         Ms(s.measure.max_ms) + ", mean " + Ms(s.measure.ms) + ", "
                                   : "") +
             FormatNumber("%.1f GFLOP/s", s.measure.gflops) +
             (s.roof_ms > 0 ? ", " + FormatNumber("%.0f%%", 100 * s.roof_ms / s.measure.ms) +
                                  " of its " + s.bound + " roof"
                            : "")});
  }
  std::string html = "<details" + std::string(index < 2 ? " open" : "") + "><summary>" +
                     Escape(e.name) + " on " + Escape(e.machine) + ": " + Ms(e.ms) + "</summary>";
  html += "<h4>Hot spots (" + std::to_string(bars.size()) + " of " + std::to_string(steps.size()) +
          " steps, " + FormatNumber("%.0f%%", 100 * shown) + " of the time)</h4>" + Legend() +
          report::BarChart(bars);
  if (!m.markers.empty()) {
    std::set<std::string> counters;
    for (const MarkerMeasure& mk : m.markers) {
      for (const auto& [k, v] : mk.measure.counters) counters.insert(k);
    }
    std::vector<std::string> header = {"marker", "p50", "min..max", "share", "GFLOP/s"};
    header.insert(header.end(), counters.begin(), counters.end());
    std::vector<std::vector<std::string>> rows;
    for (const MarkerMeasure& mk : m.markers) {
      std::vector<std::string> row = {
          Escape(mk.name), Ms(mk.measure.Typical()),
          mk.measure.max_ms > 0 ? Ms(mk.measure.min_ms) + ".." + Ms(mk.measure.max_ms) : "",
          FormatNumber("%.1f%%", 100 * mk.measure.time_share),
          FormatNumber("%.1f", mk.measure.gflops)};
      for (const std::string& c : counters) {
        const auto it = mk.measure.counters.find(c);
        row.push_back(it == mk.measure.counters.end() ? "" : FormatNumber("%.4g", it->second));
      }
      rows.push_back(row);
    }
    html += "<h4>Markers</h4>" + Table(header, rows);
  }
  // The roofline: every step with FLOPs, under this run's machine's ceilings.
  std::vector<report::RooflinePoint> points;
  for (const StepMeasure& s : m.steps) {
    if (s.cost.flops <= 0 || s.measure.ms <= 0 || s.cost.Bytes() <= 0) continue;
    points.push_back(
        {s.cost.Intensity(), s.measure.gflops,
         3 + 9 * std::sqrt(std::max(0.0, s.measure.time_share)), KindColor(s),
         s.name + " (" + s.op + "): " + FormatNumber("%.2f FLOP/B", s.cost.Intensity()) + ", " +
             FormatNumber("%.1f GFLOP/s", s.measure.gflops) + ", " + Ms(s.measure.ms)});
  }
  std::vector<report::RooflineCeiling> ceilings;
  const RunResults& f = *e.file;
  if (f.peaks) {
    const auto peak = f.peaks->peak_gflops.find(m.setup.precision);
    if (peak != f.peaks->peak_gflops.end()) {
      ceilings.push_back({m.setup.precision + " peak " + FormatNumber("%.0f GFLOP/s", peak->second),
                          peak->second, 0, "#c0392b"});
    }
    if (f.peaks->bandwidth_gbs > 0) {
      ceilings.push_back({"memory " + FormatNumber("%.1f GB/s", f.peaks->bandwidth_gbs), 0,
                          f.peaks->bandwidth_gbs, "#2c7bb6"});
    }
    if (f.peaks->cache_bandwidth_gbs > 0) {
      ceilings.push_back(
          {"last-level cache " + FormatNumber("%.1f GB/s", f.peaks->cache_bandwidth_gbs), 0,
           f.peaks->cache_bandwidth_gbs, "#1a9641"});
    }
    if (f.peaks->l2_bandwidth_gbs > 0) {
      ceilings.push_back({"L2 " + FormatNumber("%.1f GB/s", f.peaks->l2_bandwidth_gbs), 0,
                          f.peaks->l2_bandwidth_gbs, "#7b3294"});
    }
  }
  html += "<h4>Roofline (each step a point, its area its share of the time)</h4>";
  if (points.empty()) {
    html +=
        "<p>No step of this run records its FLOPs and bytes (a file from before ntpbench "
        "wrote its description).</p>";
  } else {
    if (ceilings.empty()) {
      html +=
          "<p>No ceilings: <code>ntpbench machine</code> had not measured this machine when "
          "it ran.</p>";
    }
    html += report::RooflineChart(points, ceilings);
  }
  return html + "</details>";
}

}  // namespace

// A decoder's generations (the generate scenario): time to first token and time per output token
// against the prompt's length, one series per backend and precision (the prefill grows with the
// prompt, a decode step barely), the generation table, and each run's per-layer table by phase.
std::string GenerationSection(const std::string& topology, const std::vector<const Entry*>& runs) {
  std::vector<ScenarioRun> rows;
  std::vector<std::string> groups;
  for (const Entry* e : runs) {
    if (!e->m.scenario || e->m.scenario->kind != ScenarioKind::kGenerate) continue;
    rows.push_back({e->name, e->m, e->file->threads});
    const std::string group = e->m.setup.backend + " " + e->m.setup.precision;
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  if (rows.empty()) return "";
  std::vector<report::ScatterPoint> ttft, tpot;
  for (const ScenarioRun& r : rows) {
    const ScenarioMeasure& s = *r.measured.scenario;
    const std::string group = r.measured.setup.backend + " " + r.measured.setup.precision;
    const size_t g =
        static_cast<size_t>(std::find(groups.begin(), groups.end(), group) - groups.begin());
    const std::string what = group + " b" + std::to_string(r.measured.setup.batch) + ", prompt " +
                             FormatNumber("%.0f", s.prompt_tokens) + ", gen " +
                             FormatNumber("%.0f", s.gen_tokens);
    ttft.push_back({s.prompt_tokens, s.ttft_p50_ms, SeriesColor(g), "",
                    what + ": TTFT " + FormatNumber("%.2f", s.ttft_p50_ms) + " ms", true});
    tpot.push_back({s.prompt_tokens, s.tpot_p50_ms, SeriesColor(g), "",
                    what + ": TPOT p50 " + FormatNumber("%.2f", s.tpot_p50_ms) + " ms", true});
  }
  std::string legend;
  for (size_t g = 0; g < groups.size(); ++g) {
    legend += "<b style=\"color:" + SeriesColor(g) + "\">" + Escape(groups[g]) + "</b> ";
  }
  std::string phases;
  for (const ScenarioRun& r : rows) {
    const std::string table = RenderPhaseTable(r.measured, 0);
    if (!table.empty()) {
      phases += "<details><summary>" + Escape(r.name) + ": per layer and phase</summary><pre>" +
                Escape(table) + "</pre></details>";
    }
  }
  return "<h3>" + Escape(topology) +
         ": generation (time to first token, time per output token)</h3><p>" + legend +
         "</p><div style=\"display:inline-block;margin:0 12px 12px 0\">" +
         report::ScatterChart(ttft, "prompt tokens", "TTFT ms (prefill, p50)", 480, 320) +
         "</div><div style=\"display:inline-block;margin:0 12px 12px 0\">" +
         report::ScatterChart(tpot, "prompt tokens", "TPOT ms (decode step, p50)", 480, 320) +
         "</div><pre>" + Escape(RenderGenerationTable(rows)) + "</pre>" + phases;
}

// The batching decision (scenario.h): samples/s against p99 for the runs of a topology that
// measured scenarios (single-stream runs beside them), one chart per backend and precision (each
// its own scale), the Pareto front outlined, joined and labelled (the others in tooltips); and
// the table.
std::string ScenarioSection(const std::string& topology, const std::vector<const Entry*>& runs) {
  std::vector<ScenarioRun> rows;
  std::vector<std::string> groups;
  bool any = false;
  for (const Entry* e : runs) {
    if (e->m.scenario && e->m.scenario->kind == ScenarioKind::kGenerate) continue;  // below
    any |= e->m.scenario.has_value();
    rows.push_back({e->name, e->m, e->file->threads});
    const std::string group = e->m.setup.backend + " " + e->m.setup.precision;
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  if (!any) return "";
  const std::vector<bool> front = ParetoFront(rows);
  std::string charts;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<report::ScatterPoint> points;
    for (size_t i = 0; i < rows.size(); ++i) {
      const RunMeasurement& m = rows[i].measured;
      if (m.setup.backend + " " + m.setup.precision != groups[g]) continue;
      const int streams = m.scenario ? m.scenario->streams : 1;
      const std::string kind = m.scenario ? ScenarioName(m.scenario->kind) : "single-stream";
      const std::string label =
          (m.scenario ? kind.substr(0, 3) + " " + std::to_string(streams) + "s " : "ss ") + "b" +
          std::to_string(m.setup.batch);
      points.push_back(
          {m.net.p99_ms, m.net.samples_per_second, SeriesColor(g), front[i] ? label : "",
           label + " (" + rows[i].name + "): " + FormatNumber("%.1f", m.net.samples_per_second) +
               " samples/s, p99 " + FormatNumber("%.2f", m.net.p99_ms) + " ms",
           front[i]});
    }
    charts += "<div style=\"display:inline-block;margin:0 12px 12px 0\"><b style=\"color:" +
              SeriesColor(g) + "\">" + Escape(groups[g]) + "</b><br>" +
              report::ScatterChart(points, "p99 latency per query (ms)", "samples/s", 480, 320) +
              "</div>";
  }
  return "<h3>" + Escape(topology) +
         ": throughput against p99 latency (the batching decision)</h3><p>Per backend and "
         "precision; outlined, joined and labelled: the Pareto front (no other run has both "
         "more samples/s and a lower p99), labels: scenario (ss single-stream, off offline, ser "
         "server, mul multi-stream), streams, batch; every point has a tooltip.</p>" +
         charts + "<pre>" + Escape(RenderScenarioTable(rows)) + "</pre>";
}

std::string RenderHtmlReport(const std::vector<RunResults>& files,
                             const HtmlReportOptions& options) {
  std::vector<Entry> entries;
  std::vector<std::string> duplicates;  // configurations seen twice on one machine
  for (const RunResults& f : files) {
    for (const std::string& name : f.order) {
      const BenchmarkResult& r = f.benchmarks.at(name);
      if (!r.skipped.empty() || r.real_time_ms.empty()) continue;
      Entry e;
      e.file = &f;
      e.name = name;
      e.variant = Variant(name);
      e.machine = MachineLabel(f);
      e.m = r.Measurement();
      // The repetitions' medians (their means in files from before medians were kept).
      std::vector<double> p50s;
      for (std::size_t k = 0; k < r.repetitions.size(); ++k) {
        const double p50 = r.RepetitionMeasurement(k).net.p50_ms;
        if (p50 > 0) p50s.push_back(p50);
      }
      e.ms = p50s.size() == r.repetitions.size() && !p50s.empty() ? Median(p50s)
                                                                  : Median(r.real_time_ms);
      e.unreliable = JudgeBenchmark(r).Verdict();
      // The same configuration on the same machine twice (two files of one machine, or one file
      // given twice): both shown, told apart by their file, never one hidden behind the other.
      int copies = 0;
      for (const Entry& seen : entries) {
        copies += seen.variant == e.variant && MachineLabel(*seen.file) == e.machine;
      }
      if (copies > 0) {
        duplicates.push_back(e.variant + " on " + e.machine + " (" + f.file + ")");
        e.machine +=
            " (" + f.file + (copies > 1 ? ", copy " + std::to_string(copies + 1) : "") + ")";
      }
      entries.push_back(std::move(e));
    }
  }
  if (entries.empty()) {
    throw Error(files.empty() ? "" : files.front().file, "", "",
                "no benchmark ran in these files: nothing to report");
  }
  // Two runs on one machine label from different files stay apart when their machines differ.
  std::string html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" +
                     Escape(options.title) + "</title>" + report::kPageStyle + "</head><body><h1>" +
                     Escape(options.title) + "</h1>";
  html += "<p>" + std::to_string(entries.size()) + " runs from " + std::to_string(files.size()) +
          " file" + (files.size() == 1 ? "" : "s") +
          ". Times are medians: each repetition's median iteration (one inference of a batch), the "
          "median "
          "of those over the repetitions; a step's is its median iteration, with its range in "
          "its tooltip.</p>";
  if (!duplicates.empty()) {
    html +=
        "<p class=\"bad\">The same configuration on the same machine more than once, each "
        "shown with its file:";
    for (const std::string& d : duplicates) html += " " + Escape(d) + ";";
    html += "</p>";
  }
  html += MachinesSection(files);
  html += RunsSection(entries) + SkippedSection(files);
  std::vector<std::string> topologies;
  for (const Entry& e : entries) {
    if (std::find(topologies.begin(), topologies.end(), TopologyOf(e)) == topologies.end()) {
      topologies.push_back(TopologyOf(e));
    }
  }
  html += "<h2>Comparisons</h2>";
  for (const std::string& t : topologies) {
    std::vector<const Entry*> runs;
    for (const Entry& e : entries) {
      if (TopologyOf(e) == t) runs.push_back(&e);
    }
    html += ComparisonSection(t, runs);
    html += ScenarioSection(t, runs);
    html += GenerationSection(t, runs);
    html += PrecisionSection(runs);
    html += FrameworkSection(runs, options.top);
    html += LayerTableSection(runs, options.top);
  }
  html += "<h2>Each run</h2>";
  for (size_t i = 0; i < entries.size(); ++i) html += RunDetails(entries[i], i, options.top);
  return html + "</body></html>\n";
}

}  // namespace ntpb
