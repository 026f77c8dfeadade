#include "ntpbench/sweep_analysis.h"

#include <algorithm>

#include "ntpbench/error.h"
#include "ntpbench/reliability.h"
#include "src/common/statistics.h"

namespace ntpb {

std::string SweepPointSummary::Group() const {
  auto get = [&](const char* k) {
    auto it = settings.find(k);
    return it == settings.end() ? std::string() : it->second;
  };
  std::string g = get("backend") + " " + get("precision");
  if (get("threads") != "0" && !get("threads").empty()) g += " threads:" + get("threads");
  return g;
}

SweepPointSummary SummarizePoint(const SweepPointResult& p, const std::string& file) {
  SweepPointSummary s;
  s.id = p.id;
  s.settings = p.settings;
  s.varied = p.varied;
  s.base = p.base;
  s.ok = p.ok;
  s.reason = p.reason;
  if (!p.ok) return s;
  const RunResults run = p.Run(file);
  if (run.benchmarks.size() != 1) {
    throw Error(
        file, "", p.id,
        "a point's run holds one benchmark, this one " + std::to_string(run.benchmarks.size()));
  }
  const BenchmarkResult& b = run.benchmarks.begin()->second;
  if (!b.skipped.empty() || b.real_time_ms.empty()) {
    s.ok = false;
    s.reason = b.skipped.empty() ? "no measurement" : b.skipped;
    return s;
  }
  const RunMeasurement m = b.Measurement();
  std::vector<double> p50s;
  for (std::size_t r = 0; r < b.repetitions.size(); ++r) {
    const double p50 = b.RepetitionMeasurement(r).net.p50_ms;
    if (p50 > 0) p50s.push_back(p50);
  }
  s.latency_ms = !p50s.empty() ? Median(p50s) : Median(b.real_time_ms);
  const Reliability reliability = JudgeBenchmark(b);
  if (!reliability.reliable) s.unreliable = reliability.Verdict();
  s.p99_ms = m.net.p99_ms;
  if (m.scenario && m.scenario->kind == ScenarioKind::kGenerate) {
    s.generate = true;
    s.ttft_ms = m.scenario->ttft_p50_ms;
    s.tpot_ms = m.scenario->tpot_p50_ms;
    s.tokens_per_second = m.scenario->tokens_per_s;
    return s;
  }
  s.flops = m.net.flops;
  for (const StepMeasure& step : m.steps) s.bytes += step.cost.Bytes();
  const double batch = m.setup.batch > 0 ? static_cast<double>(m.setup.batch) : 1.0;
  s.samples_per_second = s.latency_ms > 0 ? batch * 1e3 / s.latency_ms : 0;
  s.gflops = s.latency_ms > 0 ? s.flops / (s.latency_ms * 1e6) : 0;
  s.density = s.bytes > 0 ? s.flops / s.bytes : 0;
  return s;
}

std::vector<SweepPointSummary> SummarizeSweep(const SweepResults& results) {
  std::vector<SweepPointSummary> out;
  for (const SweepPointResult& p : results.points) out.push_back(SummarizePoint(p, results.file));
  return out;
}

Sweep SweepOf(const SweepResults& results) {
  return ParseSweepJson(results.sweep.dump(), results.file);
}

std::vector<const SweepPointSummary*> FactorSeries(const std::vector<SweepPointSummary>& points,
                                                   const Sweep& sweep, const std::string& factor) {
  const SweepFactor* varied = nullptr;
  for (const SweepFactor& f : sweep.factors) varied = f.name == factor ? &f : varied;
  if (!varied) return {};
  const SweepPointSummary* base_point = nullptr;
  for (const SweepPointSummary& p : points) base_point = p.base ? &p : base_point;
  std::map<std::string, std::string> line;  // the other factors' values on the line
  for (const SweepFactor& f : sweep.factors) {
    if (f.name == factor) continue;
    if (base_point) {
      line[f.name] = base_point->settings.at(f.name);
    } else if (auto it = sweep.base.find(f.name); it != sweep.base.end()) {
      line[f.name] = it->second;
    }
  }
  std::vector<const SweepPointSummary*> series;
  for (const std::string& v : varied->values) {
    const SweepPointSummary* found = nullptr;
    for (const SweepPointSummary& p : points) {
      auto it = p.settings.find(factor);
      if (it == p.settings.end() || it->second != v) continue;
      bool on_line = true;
      for (const auto& [name, value] : line) {
        auto s = p.settings.find(name);
        on_line = on_line && s != p.settings.end() && s->second == value;
      }
      if (on_line) found = &p;
    }
    if (found) series.push_back(found);
  }
  return series;
}

std::vector<DensityContradiction> FindDensityContradictions(
    const std::vector<SweepPointSummary>& points, double margin) {
  std::vector<DensityContradiction> out;
  for (std::size_t a = 0; a < points.size(); ++a) {
    const SweepPointSummary& dense = points[a];
    if (!dense.ok || !dense.unreliable.empty() || dense.density <= 0 || dense.gflops <= 0) continue;
    DensityContradiction best;
    for (std::size_t b = 0; b < points.size(); ++b) {
      const SweepPointSummary& other = points[b];
      if (b == a || !other.ok || !other.unreliable.empty() || other.density <= 0 ||
          other.Group() != dense.Group()) {
        continue;
      }
      const double density_ratio = dense.density / other.density;
      const double gflops_ratio = other.gflops / dense.gflops;
      if (density_ratio > 1 + margin && gflops_ratio > 1 + margin &&
          gflops_ratio > best.gflops_ratio) {
        best = {a, b, density_ratio, gflops_ratio};
      }
    }
    if (best.gflops_ratio > 0) out.push_back(best);
  }
  std::sort(out.begin(), out.end(),
            [](const DensityContradiction& x, const DensityContradiction& y) {
              return x.gflops_ratio > y.gflops_ratio;
            });
  return out;
}

}  // namespace ntpb
