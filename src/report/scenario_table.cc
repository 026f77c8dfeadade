#include <cstdio>

#include "ntpbench/report.h"
#include "ntpbench/scenario_report.h"
#include "src/report/text_table.h"

namespace ntpb {
namespace {

std::string Number(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

std::vector<bool> ParetoFront(const std::vector<ScenarioRun>& runs) {
  std::vector<bool> front(runs.size(), true);
  auto group = [](const ScenarioRun& r) {
    const RunSetup& s = r.measured.setup;
    return s.topology + "/" + s.backend + "/" + s.precision;
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    const NetworkMeasure& a = runs[i].measured.net;
    for (size_t j = 0; j < runs.size() && front[i]; ++j) {
      if (group(runs[j]) != group(runs[i])) continue;
      const NetworkMeasure& b = runs[j].measured.net;
      const bool as_good = b.samples_per_second >= a.samples_per_second && b.p99_ms <= a.p99_ms;
      const bool better = b.samples_per_second > a.samples_per_second || b.p99_ms < a.p99_ms;
      if (j != i && as_good && better) front[i] = false;
    }
  }
  return front;
}

namespace {

// A run's name less Google Benchmark's suffixes ("/iterations:1", "/real_time",
// "/manual_time"), which every row shares.
std::string ShortName(std::string name) {
  for (const char* suffix : {"/real_time", "/manual_time", "/iterations:1"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
    }
  }
  return name;
}

}  // namespace

std::string RenderScenarioTable(const std::vector<ScenarioRun>& given) {
  std::vector<ScenarioRun> runs = given;
  for (ScenarioRun& r : runs) r.name = ShortName(r.name);
  const std::vector<bool> front = ParetoFront(runs);
  // The rows' common part ("resnet50/onednn/f32/") once above the table, so the rows fit 120
  // columns and show what differs.
  std::string common = runs.empty() ? "" : runs[0].name;
  for (const ScenarioRun& r : runs) {
    size_t n = 0;
    while (n < common.size() && n < r.name.size() && common[n] == r.name[n]) ++n;
    common.resize(n);
  }
  common.resize(common.rfind('/') == std::string::npos ? 0 : common.rfind('/') + 1);
  report::TextTable table({"benchmark", "streams", "batch", "samples/s", "queries/s", "p50 ms",
                           "p99 ms", "queries", "front"});
  std::string notes;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunMeasurement& m = runs[i].measured;
    const auto& s = m.scenario;
    const double qps =
        s ? s->achieved_qps : (m.setup.batch > 0 ? m.net.samples_per_second / m.setup.batch : 0);
    std::string queries = s ? Number(s->queries, "%.0f") : "";
    if (s && s->queries < s->queries_needed) queries += " of " + Number(s->queries_needed, "%.0f");
    const int threads = s ? s->threads_per_stream : runs[i].threads;
    table.Add({report::Elide(runs[i].name.substr(common.size()), 48),
               std::to_string(s ? s->streams : 1) + "x" + std::to_string(threads) + "t",
               std::to_string(m.setup.batch), Number(m.net.samples_per_second, "%.1f"),
               Number(qps, "%.1f"), Number(m.net.p50_ms, "%.3f"), Number(m.net.p99_ms, "%.3f"),
               queries, front[i] ? "*" : ""});
    if (s && s->kind == ScenarioKind::kServer && s->p99_bound_ms > 0) {
      notes += runs[i].name + ": " +
               (s->max_qps > 0 ? "at most " + Number(s->max_qps, "%.1f") + " queries/s keep p99 <= "
                               : "even the lowest rate tried, " + Number(s->target_qps, "%.1f") +
                                     " queries/s, missed p99 <= ") +
               Number(s->p99_bound_ms, "%g") + " ms\n";
    }
  }
  std::string out = common.empty() ? "" : "benchmarks " + common + "...\n";
  out += table.Render(1);
  out +=
      "streams x threads each (rows without a scenario: single-stream); front *: no row of its "
      "backend and\nprecision has both more samples/s and a lower p99\n";
  bool short_of_p99 = false;
  for (const ScenarioRun& r : runs) {
    short_of_p99 |=
        r.measured.scenario && r.measured.scenario->queries < r.measured.scenario->queries_needed;
  }
  if (short_of_p99) {
    out += "queries \"N of M\": the p99 of N queries; it needs M (10 above it) to mean something\n";
  }
  return out + notes;
}

std::string RenderGenerationTable(const std::vector<ScenarioRun>& given) {
  // Rows named by what differs: the part before "/generate" less what every row shares.
  std::vector<std::pair<std::string, const ScenarioRun*>> rows;
  for (const ScenarioRun& r : given) {
    const auto& s = r.measured.scenario;
    if (!s || s->kind != ScenarioKind::kGenerate) continue;
    std::string name = ShortName(r.name);
    const size_t generate = name.find("/generate");
    if (generate != std::string::npos) name.resize(generate);
    rows.emplace_back(name + "/", &r);
  }
  report::TextTable table({"run", "batch", "prompt", "gen", "TTFT ms", "TPOT p50", "p90", "p99 ms",
                           "prefill/s", "decode/s", "tokens/s", "KV cache", "requests"});
  bool short_of_p99 = false, arrivals = false;
  for (const auto& [name, run] : rows) {
    const ScenarioMeasure& s = *run->measured.scenario;
    std::string requests = Number(s.queries, "%.0f");
    if (s.queries < s.queries_needed) {
      requests += " of " + Number(s.queries_needed, "%.0f");
      short_of_p99 = true;
    }
    const RunSetup& setup = run->measured.setup;
    arrivals |= s.target_qps > 0;
    table.Add({setup.backend + "/" + setup.precision +
                   (s.target_qps > 0 ? " @" + Number(s.target_qps, "%g") + "/s" : ""),
               std::to_string(run->measured.setup.batch), Number(s.prompt_tokens, "%.0f"),
               Number(s.gen_tokens, "%.0f"), Number(s.ttft_p50_ms, "%.2f"),
               Number(s.tpot_p50_ms, "%.2f"), Number(s.tpot_p90_ms, "%.2f"),
               Number(s.tpot_p99_ms, "%.2f"), Number(s.prefill_tokens_per_s, "%.1f"),
               Number(s.decode_tokens_per_s, "%.1f"), Number(s.tokens_per_s, "%.1f"),
               FormatBytes(s.kv_cache_bytes), requests});
  }
  std::string out = rows.empty() ? "" : "benchmarks " + rows[0].first + "...\n";
  out += table.Render(1);
  out +=
      "TTFT: the prefill of the prompt (p50 over the requests); TPOT: one decode step (over every "
      "step);\nprefill/s, decode/s, tokens/s: tokens of all `batch` sequences per second;\n"
      "KV cache: keys and values of prompt + gen tokens\n";
  if (arrivals) {
    out +=
        "@R/s: requests arrived at R per second (Poisson) and waited for the one stream; their "
        "TTFT counts\nfrom the arrival, queueing included (requests are not batched "
        "together)\n";
  }
  if (short_of_p99) {
    out +=
        "requests \"N of M\": a TPOT p99 needs M requests (1000 decode steps) to mean "
        "something\n";
  }
  return out;
}

std::string RenderPhaseTable(const RunMeasurement& run, double bandwidth_gbs) {
  const PhaseMeasure *prefill = nullptr, *decode = nullptr;
  for (const PhaseMeasure& p : run.phases) {
    if (p.name == "prefill") prefill = &p;
    if (p.name == "decode") decode = &p;
  }
  if (!prefill || !decode || prefill->steps.size() != decode->steps.size()) return "";
  // An asynchronous backend's steps are timed on its device (their wall times are where they
  // were enqueued, the whole run's where it waited): a step the device timed shows that time; a
  // step the host ran (an inlay such as the MFCC) its wall time.
  bool device = false;
  for (const PhaseMeasure* p : {prefill, decode}) {
    for (const StepMeasure& s : p->steps) device = device || s.measure.device_ms > 0;
  }
  auto ms = [](const StepMeasure& s) {
    return s.measure.device_ms > 0 ? s.measure.device_ms : s.measure.ms;
  };
  auto total = [&ms](const PhaseMeasure& p) {
    double sum = 0;
    for (const StepMeasure& s : p.steps) sum += ms(s);
    return sum;
  };
  const double prefill_ms = total(*prefill), decode_ms = total(*decode);
  report::TextTable table({"step", "op", "prefill ms", "share", "roof ms", "bound", "decode ms",
                           "share", "roof ms", "bound"});
  auto share = [](double ms, double of) { return of > 0 ? Number(100 * ms / of, "%.1f%%") : ""; };
  auto roof = [](const StepMeasure& s) { return s.roof_ms > 0 ? Number(s.roof_ms, "%.3f") : ""; };
  double decode_bytes = 0;
  for (size_t i = 0; i < prefill->steps.size(); ++i) {
    const StepMeasure &p = prefill->steps[i], &d = decode->steps[i];
    decode_bytes += d.cost.Bytes();
    table.Add({report::Elide(p.name, 28), p.op, Number(ms(p), "%.3f"), share(ms(p), prefill_ms),
               roof(p), p.bound, Number(ms(d), "%.3f"), share(ms(d), decode_ms), roof(d), d.bound});
  }
  table.Rule();
  table.Add(
      {"total", "", Number(prefill_ms, "%.3f"), "", "", "", Number(decode_ms, "%.3f"), "", "", ""});
  std::string out = table.Render(2);
  out += "per run of the phase: a prefill of the prompt (" + Number(prefill->runs, "%.0f") +
         " measured), one decode step at the mean context (" + Number(decode->runs, "%.0f") +
         " measured)\n";
  if (device) {
    out +=
        "ms: a step the device ran, its own time there (its events, launch gaps left out); a "
        "host step,\nits wall time; TTFT and TPOT are wall times\n";
  }
  if (decode_ms > 0) {
    const double gbs = decode_bytes / (decode_ms * 1e-3) * 1e-9;
    out += "a decode step moves " + FormatBytes(decode_bytes) +
           " (weights, caches, activations): " + Number(gbs, "%.1f") + " GB/s";
    if (bandwidth_gbs > 0) {
      out += ", " + Number(100 * gbs / bandwidth_gbs, "%.0f") + "% of the " +
             Number(bandwidth_gbs, "%.1f") + " GB/s DRAM read `ntpbench machine` cached";
    }
    out += "\n";
  }
  return out;
}

}  // namespace ntpb
