#include "ntpbench/sweep_report.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ntpbench/error.h"
#include "ntpbench/sweep_analysis.h"
#include "src/common/format_number.h"
#include "src/report/page_style.h"
#include "src/report/svg.h"
#include "src/report/text_table.h"

namespace ntpb {
namespace {

using report::Escape;
using report::TextTable;

// "3", or "1 (depthwise-separable)" when the factor labels its values.
std::string ValueLabel(const SweepFactor& factor, const std::string& value) {
  const std::string label = factor.LabelOf(value);
  return label.empty() ? value : value + " (" + label + ")";
}
// Just the label where there is one (chart axes).
std::string ShortLabel(const SweepFactor& factor, const std::string& value) {
  const std::string label = factor.LabelOf(value);
  return label.empty() ? value : label;
}

// A setting of the sweep's base, with the default a point gets without one.
std::string BaseSetting(const Sweep& sweep, const std::string& name, const std::string& fallback) {
  auto it = sweep.base.find(name);
  return it == sweep.base.end() ? fallback : it->second;
}

std::string Ms(double ms) { return FormatNumber(ms < 10 ? "%.3f" : "%.1f", ms); }

// The series' name: what distinguishes its results file (the base backend and precision).
std::string SeriesName(const Sweep& sweep) {
  return BaseSetting(sweep, "backend", "eigen") + " " + BaseSetting(sweep, "precision", "f32");
}

struct FileSummary {
  const SweepResults* results;
  Sweep sweep;
  std::vector<SweepPointSummary> points;
  std::vector<DensityContradiction> contradictions;
  std::string series;
};

std::string StepsEvidence(const SweepResults& r, const SweepPointSummary& p, size_t top) {
  const SweepPointResult* point = r.Find(p.id);
  if (!point || !point->ok) return "";
  const RunResults run = point->Run(r.file);
  const RunMeasurement m = run.benchmarks.begin()->second.Measurement();
  std::vector<const StepMeasure*> steps;
  for (const StepMeasure& s : m.steps) steps.push_back(&s);
  std::sort(steps.begin(), steps.end(), [](const StepMeasure* a, const StepMeasure* b) {
    return a->measure.ms > b->measure.ms;
  });
  std::string html =
      "<table><tr><th>" + Escape(p.id) +
      ": slowest steps</th><th>op</th><th>kernel</th><th>ms</th><th>share</th><th>GFLOP/s</th>"
      "<th>FLOP/B</th></tr>";
  for (size_t i = 0; i < steps.size() && i < top; ++i) {
    const StepMeasure& s = *steps[i];
    html += "<tr><td>" + Escape(s.name) + "</td><td>" + Escape(s.op) + "</td><td>" +
            Escape(s.kernel) + "</td><td>" + Ms(s.measure.ms) + "</td><td>" +
            FormatNumber("%.1f%%", 100 * s.measure.time_share) + "</td><td>" +
            FormatNumber("%.1f", s.measure.gflops) + "</td><td>" +
            FormatNumber("%.1f", s.cost.Intensity()) + "</td></tr>";
  }
  return html + "</table>";
}

}  // namespace

namespace {

// A factor's points under the generate scenario: each request's time to first token and per
// output token (medians), and the tokens per second, against the base point's.
std::string GenerationSeriesTable(const SweepFactor& factor,
                                  const std::vector<const SweepPointSummary*>& series) {
  TextTable t({factor.name, "TTFT p50 ms", "TPOT p50 ms", "tokens/s", "TTFT vs base",
               "TPOT vs base", "note"});
  const SweepPointSummary* base = nullptr;
  for (const SweepPointSummary* p : series) base = p->base && p->ok && p->generate ? p : base;
  for (const SweepPointSummary* p : series) {
    const std::string value = ValueLabel(factor, p->settings.at(factor.name));
    if (!p->ok || !p->generate) {
      t.Add({value, "-", "-", "-", "-", "-",
             report::Elide(p->ok ? "not a generate run" : "failed: " + p->reason, 44)});
      continue;
    }
    auto versus = [&](double mine, double theirs) {
      return theirs > 0 ? FormatNumber("x%.2f", mine / theirs) : std::string("-");
    };
    t.Add({value, Ms(p->ttft_ms), Ms(p->tpot_ms), FormatNumber("%.1f", p->tokens_per_second),
           base ? versus(p->ttft_ms, base->ttft_ms) : "-",
           base ? versus(p->tpot_ms, base->tpot_ms) : "-",
           std::string(p->base ? "base " : "") +
               (p->unreliable.empty() ? "" : "unreliable (see below)")});
  }
  return t.Render();
}

}  // namespace

std::string RenderSweepTable(const SweepResults& results) {
  const Sweep sweep = SweepOf(results);
  const std::vector<SweepPointSummary> points = SummarizeSweep(results);
  const std::vector<DensityContradiction> contradictions = FindDensityContradictions(points);
  std::string out =
      sweep.name + " (" + std::to_string(points.size()) + " points, " + results.file + ")\n";
  for (const SweepFactor& factor : sweep.factors) {
    const auto series = FactorSeries(points, sweep, factor.name);
    if (std::any_of(series.begin(), series.end(),
                    [](const SweepPointSummary* p) { return p->generate; })) {
      out += "\n" + GenerationSeriesTable(factor, series);
      continue;
    }
    TextTable t({factor.name, "p50 ms", "p99 ms", "samples/s", "GFLOP/s", "GFLOP", "FLOP/B",
                 "vs base", "note"});
    double base_ms = 0;
    for (const SweepPointSummary* p : series) {
      if (p->base && p->ok) base_ms = p->latency_ms;
    }
    for (const SweepPointSummary* p : series) {
      const std::string value = ValueLabel(factor, p->settings.at(factor.name));
      if (!p->ok) {
        t.Add(
            {value, "-", "-", "-", "-", "-", "-", "-", report::Elide("failed: " + p->reason, 44)});
        continue;
      }
      bool flagged = false;
      for (const DensityContradiction& c : contradictions) {
        flagged = flagged || &points[c.denser] == p;
      }
      t.Add({value, Ms(p->latency_ms), Ms(p->p99_ms), FormatNumber("%.1f", p->samples_per_second),
             FormatNumber("%.1f", p->gflops), FormatNumber("%.3f", p->flops * 1e-9),
             FormatNumber("%.1f", p->density),
             base_ms > 0 ? FormatNumber("x%.2f", p->latency_ms / base_ms) : "-",
             std::string(p->base ? "base " : "") + (flagged ? "denser, slower (see below)" : "") +
                 (p->unreliable.empty() ? "" : "unreliable (see below)")});
    }
    out += "\n" + t.Render();
  }
  // Two factors in a grid (sizing x precision): every combination, latency and speed-up.
  if (sweep.mode == SweepMode::kGrid && sweep.factors.size() == 2) {
    const SweepFactor &rows = sweep.factors[0], &columns = sweep.factors[1];
    std::vector<std::string> header = {rows.name + " \\ " + columns.name};
    for (const std::string& v : columns.values) header.push_back(ValueLabel(columns, v));
    for (const std::string& v : columns.values) {
      header.push_back(ShortLabel(columns, v) + " speed-up");
    }
    TextTable t(header);
    for (const std::string& a : rows.values) {
      std::vector<std::string> row = {ValueLabel(rows, a)};
      std::vector<double> ms;
      for (const std::string& b : columns.values) {
        const SweepPointSummary* found = nullptr;
        for (const SweepPointSummary& p : points) {
          if (p.settings.at(rows.name) == a && p.settings.at(columns.name) == b) found = &p;
        }
        ms.push_back(found && found->ok ? found->latency_ms : 0);
        row.push_back(!found || !found->ok ? "failed"
                                           : Ms(found->latency_ms) + " ms" +
                                                 (found->unreliable.empty() ? "" : " ?"));
      }
      for (double m : ms) {
        row.push_back(m > 0 && ms.front() > 0 ? FormatNumber("x%.2f", ms.front() / m) : "-");
      }
      t.Add(row);
    }
    out += "\nevery combination (median latency, ? where unreliable; speed-up over " +
           columns.name + " " + ShortLabel(columns, columns.values.front()) + "):\n" + t.Render();
  }
  size_t failed = 0;
  for (const SweepPointSummary& p : points) failed += p.ok ? 0 : 1;
  if (failed > 0) {
    out += "\nfailed points:\n";
    for (const SweepPointSummary& p : points) {
      if (!p.ok) out += "  " + p.id + ": " + p.reason + "\n";
    }
  }
  size_t unreliable = 0;
  for (const SweepPointSummary& p : points) unreliable += p.ok && !p.unreliable.empty();
  if (unreliable > 0) {
    out +=
        "\nunreliable points (shown, not judged: their times may hold the machine's other "
        "work):\n";
    for (const SweepPointSummary& p : points) {
      if (p.ok && !p.unreliable.empty()) out += "  " + p.id + ": " + p.unreliable + "\n";
    }
  }
  if (!contradictions.empty()) {
    out +=
        "\noperation density did not predict throughput (denser by >10%, yet >10% fewer "
        "GFLOP/s; same backend and precision):\n";
    for (const DensityContradiction& c : contradictions) {
      const SweepPointSummary &a = points[c.denser], &b = points[c.faster];
      out += "  " + a.id + " (" + FormatNumber("%.1f", a.density) + " FLOP/B, " +
             FormatNumber("%.1f", a.gflops) + " GFLOP/s) vs " + b.id + " (" +
             FormatNumber("%.1f", b.density) + " FLOP/B, " + FormatNumber("%.1f", b.gflops) +
             " GFLOP/s)\n";
    }
  }
  return out;
}

namespace {

// The title, the sweep's description and base, and one row per results file.
std::string HeaderSection(const std::vector<FileSummary>& files, const std::string& title) {
  const Sweep& sweep = files.front().sweep;
  std::string base;
  for (const auto& [name, value] : sweep.base)
    base += (base.empty() ? "" : ", ") + name + " " + value;
  std::string html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + Escape(title) +
                     "</title>" + report::kPageStyle + "</head><body><h1>" + Escape(title) +
                     "</h1>";
  html += "<p><b>" + Escape(sweep.name) + "</b>: " + Escape(sweep.description) +
          "</p><p>Topology <code>" + Escape(sweep.topology) + "</code>, " +
          SweepModeName(sweep.mode) + "; base " + Escape(base) +
          ". Latency is the median time per inference (the median of the repetitions' medians); "
          "hollow dashed points and cells marked unreliable were measured while the machine was "
          "busy or spread too much, and are not judged; throughput = batch / latency; GFLOP/s "
          "= analytic FLOPs / latency; operation density = FLOPs / bytes moved (weights read, "
          "activations in and out).</p>";
  html +=
      "<table><tr><th>series</th><th>file</th><th>machine</th><th>points</th><th>failed</th>"
      "</tr>";
  for (const FileSummary& f : files) {
    size_t failed = 0;
    for (const SweepPointSummary& p : f.points) failed += p.ok ? 0 : 1;
    html += "<tr><td>" + Escape(f.series) + "</td><td>" + Escape(f.results->file) + "</td><td>" +
            Escape(f.results->machine) + "</td><td>" + std::to_string(f.points.size()) +
            "</td><td>" + std::to_string(failed) + "</td></tr>";
  }
  html += "</table>";
  return html;
}

// Each series' colour, by name.
std::string Legend(const std::vector<FileSummary>& files) {
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t i = 0; i < files.size(); ++i) {
    legend.emplace_back(files[i].series, report::SeriesColor(i));
  }
  std::string legend_html = "<p class=\"legend\">";
  for (const auto& [name, color] : legend) {
    legend_html += "<span style=\"background:" + color + "\"></span>" + Escape(name);
  }
  legend_html += "</p>";

  return legend_html;
}

// One factor, the others at their base values: charts and a table, one series per file.
std::string FactorSection(const SweepFactor& f, const std::vector<FileSummary>& files) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::string html;
  const std::string& factor = f.name;
  const std::vector<std::string>& values = f.values;
  std::vector<std::string> categories;
  for (const std::string& v : values) categories.push_back(ShortLabel(f, v));
  std::vector<report::LineSeries> sps, gfl, lat, p99;
  // A generate sweep's points are requests: time to first token, per output token, tokens/s.
  bool generate = false;
  for (const FileSummary& file : files) {
    for (const SweepPointSummary& p : file.points) generate = generate || p.generate;
  }
  std::string table = "<table><tr><th>" + Escape(factor) + "</th>";
  for (const FileSummary& f : files) {
    table += "<th>" + Escape(f.series) +
             (generate ? ": TTFT ms</th><th>TPOT ms</th><th>tokens/s</th>"
                         "<th>request ms</th><th>p99 ms</th>"
                       : ": ms</th><th>p99 ms</th><th>samples/s</th>"
                         "<th>GFLOP/s</th><th>FLOP/B</th>");
  }
  table += "</tr>";
  std::vector<std::string> rows(values.size());
  for (size_t v = 0; v < values.size(); ++v) {
    rows[v] = "<tr><td>" + Escape(ValueLabel(f, values[v])) + "</td>";
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const auto series = FactorSeries(files[i].points, files[i].sweep, factor);
    report::LineSeries s{
        files[i].series, report::SeriesColor(i), std::vector<double>(values.size(), nan), {}, {}};
    report::LineSeries g = s, l = s, q = s;
    for (size_t v = 0; v < values.size(); ++v) {
      const SweepPointSummary* p = nullptr;
      for (const SweepPointSummary* c : series) p = c->settings.at(factor) == values[v] ? c : p;
      if (!p || !p->ok) {
        rows[v] += "<td colspan=\"5\" class=\"bad\">" +
                   Escape(p ? "failed: " + p->reason : "not run") + "</td>";
        for (auto* x : {&s, &g, &l, &q}) x->titles.push_back(p ? p->reason : "not run");
        continue;
      }
      if (generate) {
        s.y[v] = p->tokens_per_second, g.y[v] = p->tpot_ms, l.y[v] = p->ttft_ms;
        q.y[v] = p->latency_ms;
      } else {
        s.y[v] = p->samples_per_second, g.y[v] = p->gflops, l.y[v] = p->latency_ms;
        q.y[v] = p->p99_ms;
      }
      const bool doubtful = !p->unreliable.empty();
      for (auto* x : {&s, &g, &l, &q}) {
        x->titles.push_back(p->id + (doubtful ? " (" + p->unreliable + ")" : ""));
        x->unreliable.resize(values.size());
        x->unreliable[v] = doubtful;
      }
      const std::string mark = doubtful ? " <span class=\"bad\" title=\"" + Escape(p->unreliable) +
                                              "\">unreliable</span>"
                                        : "";
      if (generate) {
        rows[v] += "<td>" + Ms(p->ttft_ms) + mark + "</td><td>" + Ms(p->tpot_ms) + "</td><td>" +
                   FormatNumber("%.1f", p->tokens_per_second) + "</td><td>" + Ms(p->latency_ms) +
                   "</td><td>" + Ms(p->p99_ms) + "</td>";
        continue;
      }
      rows[v] += "<td>" + Ms(p->latency_ms) + mark + "</td><td>" + Ms(p->p99_ms) + "</td><td>" +
                 FormatNumber("%.1f", p->samples_per_second) + "</td><td>" +
                 FormatNumber("%.1f", p->gflops) + "</td><td>" + FormatNumber("%.1f", p->density) +
                 "</td>";
    }
    sps.push_back(s), gfl.push_back(g), lat.push_back(l), p99.push_back(q);
  }
  html +=
      "<h3>" + Escape(factor) + "</h3><div class=\"charts\">" +
      (generate ? report::LineChart(categories, lat, factor, "time to first token ms", 290) +
                      report::LineChart(categories, gfl, factor, "time per output token ms", 290) +
                      report::LineChart(categories, sps, factor, "tokens/s", 290) +
                      report::LineChart(categories, p99, factor, "request ms (median)", 290)
                : report::LineChart(categories, sps, factor, "samples/s", 290) +
                      report::LineChart(categories, gfl, factor, "GFLOP/s", 290) +
                      report::LineChart(categories, lat, factor, "latency ms (median)", 290) +
                      report::LineChart(categories, p99, factor, "latency ms (p99)", 290)) +
      "</div>";
  for (const std::string& r : rows) table += r + "</tr>";
  html += table + "</table>";
  return html;
}

// Every point under the roofline of the first file's ceilings.
std::string DensitySection(const std::vector<SweepResults>& results,
                           const std::vector<FileSummary>& files, const std::string& legend_html) {
  std::string html;
  html += "<h2>Throughput against operation density</h2>" + legend_html +
          "<p>Every point that ran, under the roofline of the machine's measured ceilings (the "
          "first series' peak for its precision, memory and last-level-cache bandwidth). By the "
          "roofline a denser configuration runs at least as many GFLOP/s; points in red ran "
          "more than 10% slower than a configuration more than 10% less dense (same backend "
          "and precision); grey points were unreliable and are not judged.</p>";
  std::vector<report::RooflinePoint> dots;
  std::vector<report::RooflineCeiling> ceilings;
  for (size_t i = 0; i < files.size(); ++i) {
    for (size_t k = 0; k < files[i].points.size(); ++k) {
      const SweepPointSummary& p = files[i].points[k];
      if (!p.ok) continue;
      bool flagged = false;
      for (const DensityContradiction& c : files[i].contradictions) {
        flagged = flagged || c.denser == k;
      }
      // An unreliable point is grey: drawn where it was measured, not read as the series'.
      dots.push_back({p.density, p.gflops, flagged ? 6.0 : 4.0,
                      flagged                 ? "#c0392b"
                      : !p.unreliable.empty() ? "#aaa"
                                              : report::SeriesColor(i),
                      files[i].series + " " + p.id + FormatNumber(": %.1f FLOP/B, ", p.density) +
                          FormatNumber("%.1f GFLOP/s", p.gflops) +
                          (p.unreliable.empty() ? "" : " (" + p.unreliable + ")")});
    }
  }
  for (const SweepPointResult& p : results.front().points) {
    if (!p.ok || !ceilings.empty()) continue;
    const RunResults run = p.Run(results.front().file);
    if (!run.peaks) continue;
    const std::string precision = p.settings.at("precision");
    auto peak = run.peaks->peak_gflops.find(precision);
    if (peak != run.peaks->peak_gflops.end()) {
      ceilings.push_back({precision + " peak " + FormatNumber("%.0f GFLOP/s", peak->second),
                          peak->second, 0, "#555"});
    }
    ceilings.push_back({FormatNumber("memory %.1f GB/s", run.peaks->bandwidth_gbs), 0,
                        run.peaks->bandwidth_gbs, "#888"});
    if (run.peaks->cache_bandwidth_gbs > 0) {
      ceilings.push_back(
          {FormatNumber("last-level cache %.1f GB/s", run.peaks->cache_bandwidth_gbs), 0,
           run.peaks->cache_bandwidth_gbs, "#aaa"});
    }
  }
  if (ceilings.empty()) {
    html += "<p>No ceilings: <code>ntpbench machine</code> had not measured this machine.</p>";
  }
  html += report::RooflineChart(dots, ceilings, 900, 460);

  return html;
}

// The points whose density did not predict their throughput, with per-layer evidence.
std::string ContradictionSection(const std::vector<FileSummary>& files) {
  std::string html;
  html += "<h2>Where operation density failed to predict throughput</h2>";
  size_t shown = 0;
  for (const FileSummary& f : files) {
    if (f.contradictions.empty()) continue;
    html += "<h3>" + Escape(f.series) +
            "</h3><table><tr><th>denser point</th><th>FLOP/B</th>"
            "<th>GFLOP/s</th><th>less dense, faster</th><th>FLOP/B</th><th>GFLOP/s</th>"
            "<th>density ×</th><th>GFLOP/s ×</th></tr>";
    for (const DensityContradiction& c : f.contradictions) {
      const SweepPointSummary &a = f.points[c.denser], &b = f.points[c.faster];
      html += "<tr><td>" + Escape(a.id) + "</td><td>" + FormatNumber("%.1f", a.density) +
              "</td><td>" + FormatNumber("%.1f", a.gflops) + "</td><td>" + Escape(b.id) +
              "</td><td>" + FormatNumber("%.1f", b.density) + "</td><td>" +
              FormatNumber("%.1f", b.gflops) + "</td><td>" + FormatNumber("%.2f", c.density_ratio) +
              "</td><td>" + FormatNumber("%.2f", c.gflops_ratio) + "</td></tr>";
    }
    html += "</table>";
    // The layers behind the strongest contradictions: what each point spent its time on.
    for (size_t i = 0; i < f.contradictions.size() && i < 3; ++i, ++shown) {
      const DensityContradiction& c = f.contradictions[i];
      html += "<details" + std::string(i == 0 ? " open" : "") + "><summary>" +
              Escape(f.points[c.denser].id) + " vs " + Escape(f.points[c.faster].id) +
              ": per-layer evidence</summary><div class=\"charts\">" +
              StepsEvidence(*f.results, f.points[c.denser], 8) +
              StepsEvidence(*f.results, f.points[c.faster], 8) + "</div></details>";
    }
  }
  if (shown == 0) html += "<p>None: throughput rose with operation density at every point.</p>";
  return html;
}

}  // namespace

std::string RenderSweepHtml(const std::vector<SweepResults>& results, const std::string& title) {
  if (results.empty()) throw Error("", "", "", "no sweep results to report");
  std::vector<FileSummary> files;
  for (size_t i = 0; i < results.size(); ++i) {
    FileSummary f{&results[i], SweepOf(results[i]), SummarizeSweep(results[i]), {}, ""};
    f.series = SeriesName(f.sweep);
    f.contradictions = FindDensityContradictions(f.points);
    // Two files of one backend and precision (two machines): tell them apart by file.
    for (size_t j = 0; j < i; ++j) {
      if (files[j].series == f.series) f.series += " (" + results[i].file + ")";
    }
    files.push_back(std::move(f));
  }
  const Sweep& sweep = files.front().sweep;
  const std::string legend_html = Legend(files);
  std::string html = HeaderSection(files, title);
  html += "<h2>Each factor, the others at their base values</h2>" + legend_html;
  for (const SweepFactor& f : sweep.factors) html += FactorSection(f, files);
  // Generate points are requests, not one inference on a roofline: a sweep of only those ends
  // with its factors.
  bool on_roofline = false;
  for (const FileSummary& f : files) {
    for (const SweepPointSummary& p : f.points) on_roofline = on_roofline || p.density > 0;
  }
  if (!on_roofline) {
    return html +
           "<p>Its points are generate requests (a prefill and decode steps each), which the "
           "roofline of one inference does not bound: no density chart.</p></body></html>\n";
  }
  html += DensitySection(results, files, legend_html);
  html += ContradictionSection(files);
  return html + "</body></html>\n";
}

}  // namespace ntpb
