#include "ntpbench/run_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/reliability.h"
#include "ntpbench/report.h"
#include "src/common/statistics.h"
#include "src/report/csv_field.h"
#include "src/report/step_alignment.h"
#include "src/report/text_table.h"

namespace ntpb {

namespace {

using report::AlignedSteps;

std::string Letter(size_t i) { return std::string(1, static_cast<char>('A' + i % 26)); }

std::vector<std::string> Split(const std::string& name) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (size_t slash; (slash = name.find('/', at)) != std::string::npos; at = slash + 1) {
    parts.push_back(name.substr(at, slash - at));
  }
  parts.push_back(name.substr(at));
  return parts;
}

// How alike two benchmark names are: the components ("deepspeech", "onednn", "bf16",
// "batch:1") they share.
int Likeness(const std::string& x, const std::string& y) {
  const std::vector<std::string> a = Split(x), b = Split(y);
  int shared = 0;
  for (const std::string& part : a) shared += std::count(b.begin(), b.end(), part) > 0;
  return shared;
}

// Benchmarks of `other` paired with the reference's (by index into ref order), by name first,
// then the most alike of the rest; unpaired: -1.
std::vector<int> Pair(const std::vector<std::string>& ref, const std::vector<std::string>& other) {
  std::vector<int> partner(ref.size(), -1);
  std::vector<bool> taken(other.size(), false);
  for (size_t i = 0; i < ref.size(); ++i) {
    for (size_t j = 0; j < other.size(); ++j) {
      if (!taken[j] && ref[i] == other[j]) {
        partner[i] = static_cast<int>(j);
        taken[j] = true;
        break;
      }
    }
  }
  while (true) {
    int best = -1, bi = -1, bj = -1;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (partner[i] >= 0) continue;
      for (size_t j = 0; j < other.size(); ++j) {
        if (taken[j]) continue;
        const int l = Likeness(ref[i], other[j]);
        if (l > best) best = l, bi = static_cast<int>(i), bj = static_cast<int>(j);
      }
    }
    if (bi < 0) break;
    // Nothing in common at all but the last one on each side: still the pair a person means.
    const size_t left_ref = std::count(partner.begin(), partner.end(), -1);
    const size_t left_other = std::count(taken.begin(), taken.end(), false);
    if (best == 0 && !(left_ref == 1 && left_other == 1)) break;
    partner[bi] = bj;
    taken[bj] = true;
  }
  return partner;
}

std::string Describe(const RunResults& file, const std::string& benchmark) {
  std::string machine =
      file.has_machine ? file.machine.cpu + ", " + std::to_string(file.machine.cores) + " cores"
                       : "";
  if (file.threads > 0) {
    machine += (machine.empty() ? "" : ", ") + std::to_string(file.threads) + " threads";
  }
  return file.file + "  " + benchmark + (machine.empty() ? "" : "  (" + machine + ")");
}

// One benchmark, decoded once: its median measurement and each repetition's.
struct Side {
  const BenchmarkResult* result = nullptr;
  RunMeasurement median;
  std::vector<RunMeasurement> repetitions;
};

Side Load(const BenchmarkResult& r) {
  Side s;
  s.result = &r;
  s.median = r.Measurement();
  if (r.repetitions.size() > 1) {
    for (size_t i = 0; i < r.repetitions.size(); ++i) {
      s.repetitions.push_back(r.RepetitionMeasurement(i));
    }
  }
  return s;
}

StepCost Sum(const StepCost& x, const StepCost& y) {
  return {x.flops + y.flops,
          x.params + y.params,
          x.weight_bytes + y.weight_bytes,
          x.input_bytes + y.input_bytes,
          x.output_bytes + y.output_bytes,
          x.weight_traffic_bytes + y.weight_traffic_bytes};
}

SideValue StepsValue(const Side& side, const std::vector<int>& steps) {
  SideValue v;
  if (steps.empty()) return v;
  v.present = true;
  const auto& all = side.median.steps;
  for (int s : steps) {
    v.ms += all[s].measure.Typical();
    v.cost = Sum(v.cost, all[s].cost);
  }
  const StepMeasure& first = all[steps.front()];
  v.op = first.kind == StepKind::kInlay ? first.inlay_op : first.op;
  if (v.op.empty()) v.op = first.kind == StepKind::kInlay ? "inlay" : "";
  // "conv2d +2": the layers after the first that these steps compute (fused, or split).
  size_t layers = 0;
  for (int s : steps) layers += std::max<size_t>(1, all[s].layers.size());
  if (layers > 1) v.op += " +" + std::to_string(layers - 1);
  v.shape = all[steps.back()].shape;
  v.kernel = first.kernel;
  for (const RunMeasurement& rep : side.repetitions) {
    double ms = 0;
    for (int s : steps) {
      const StepMeasure* step = rep.FindStep(all[s].name);
      ms += step ? step->measure.Typical() : 0;
    }
    v.samples.push_back(ms);
  }
  return v;
}

// Each repetition's median iteration, where every repetition recorded one; else (older files)
// each repetition's mean, as Google Benchmark's time.
std::vector<double> RepetitionTimes(const Side& side) {
  std::vector<double> p50s;
  const BenchmarkResult& r = *side.result;
  for (std::size_t i = 0; i < r.repetitions.size(); ++i) {
    const double p50 = r.RepetitionMeasurement(i).net.p50_ms;
    if (p50 <= 0) return r.real_time_ms;
    p50s.push_back(p50);
  }
  return p50s.empty() ? r.real_time_ms : p50s;
}

SideValue NetworkValue(const Side& side) {
  SideValue v;
  v.present = true;
  const std::vector<double> times = RepetitionTimes(side);
  v.ms = Median(times);
  if (times.size() > 1) v.samples = times;
  const RunMeasurement& m = side.median;
  v.cost.flops = m.net.flops;
  v.cost.params = m.net.params;
  v.cost.weight_bytes = m.memory.weight_bytes;
  for (const StepMeasure& s : m.steps) {
    v.cost.input_bytes += s.cost.input_bytes;
    v.cost.output_bytes += s.cost.output_bytes;
    v.cost.weight_traffic_bytes += s.cost.weight_traffic_bytes;
  }
  return v;
}

SideValue MarkerValue(const Side& side, const std::string& name) {
  SideValue v;
  const MarkerMeasure* marker = side.median.FindMarker(name);
  if (!marker) return v;
  v.present = true;
  v.ms = marker->measure.Typical();
  v.op = "marker";
  for (const RunMeasurement& rep : side.repetitions) {
    const MarkerMeasure* r = rep.FindMarker(name);
    v.samples.push_back(r ? r->measure.Typical() : 0);
  }
  return v;
}

// What differs besides time, in full ("FLOPs 1.20 G -> 2.40 G") and short for the text table
// ("FLOPs x2.00").
void Differences(const SideValue& ref, const SideValue& x, RowJudgement* j) {
  auto add = [&](const std::string& full, const std::string& brief) {
    j->note += (j->note.empty() ? "" : "; ") + full;
    j->brief_note += (j->brief_note.empty() ? "" : "; ") + brief;
  };
  auto differs = [](double p, double q) { return std::abs(p - q) > 1e-9 * std::max(p, q); };
  auto ratio = [](double p, double q) { return p > 0 ? FormatNumber("x%.2f", q / p) : "new"; };
  if (differs(ref.cost.flops, x.cost.flops)) {
    add("FLOPs " + FormatCount(ref.cost.flops) + " -> " + FormatCount(x.cost.flops),
        "FLOPs " + ratio(ref.cost.flops, x.cost.flops));
  }
  if (differs(ref.cost.params, x.cost.params)) {
    add("params " + FormatCount(ref.cost.params) + " -> " + FormatCount(x.cost.params),
        "params " + ratio(ref.cost.params, x.cost.params));
  }
  if (differs(ref.cost.Bytes(), x.cost.Bytes())) {
    add("bytes " + FormatBytes(ref.cost.Bytes()) + " -> " + FormatBytes(x.cost.Bytes()),
        "bytes " + ratio(ref.cost.Bytes(), x.cost.Bytes()));
  }
  if (!ref.shape.empty() && !x.shape.empty() && ref.shape != x.shape) {
    add("shape " + ref.shape + " -> " + x.shape, "shape " + x.shape);
  }
  if (!ref.kernel.empty() && !x.kernel.empty() && ref.kernel != x.kernel) {
    add("kernel " + ref.kernel + " -> " + x.kernel, x.kernel);
  }
}

RowJudgement Judge(const SideValue& ref, const SideValue& x, size_t index,
                   const RunCompareOptions& o) {
  RowJudgement j;
  // A row of a third run's alone (its transfer steps) is no verdict on this one.
  if (!ref.present && !x.present) return j;
  if (!ref.present || !x.present) {
    j.verdict = "only " + Letter(ref.present ? 0 : index);
    return j;
  }
  Differences(ref, x, &j);
  j.change = ref.ms > 0 ? (x.ms - ref.ms) / ref.ms : 0;
  const bool slower = j.change > 0;
  if (std::abs(j.change) < o.threshold) {
    j.verdict = "same";
  } else if (ref.samples.size() >= 2 && x.samples.size() >= 2) {
    const MannWhitneyResult test = MannWhitneyU(ref.samples, x.samples);
    j.p_value = test.p_value;
    // Too few repetitions for any p-value below alpha: the change is told, not judged.
    if (test.min_p_value > o.alpha) {
      j.verdict = slower ? "slower?" : "faster?";
    } else {
      j.verdict = test.p_value < o.alpha ? (slower ? "slower" : "faster") : "noise";
    }
  } else {
    j.verdict = slower ? "slower?" : "faster?";
  }
  return j;
}

std::string StepsName(const RunMeasurement& m, const std::vector<int>& steps) {
  std::string name = m.steps[steps.front()].name;
  if (steps.size() > 1) name += " (+" + std::to_string(steps.size() - 1) + " steps)";
  return name;
}

// A run's spec beyond its name: its params' values and seed (the run's configuration, where the
// file recorded it) and its scenario.
struct Spec {
  RunSetup setup;
  std::map<std::string, std::string> params;
  std::string seed, backend_options, scenario;
  // The topology's structure at those sizes: two models of one name (two exports both named
  // after their file, model.onnx) differ here. Neither depends on backend or precision.
  double flops = 0, weights = 0;
};

Spec SpecOf(const Side& side) {
  Spec spec;
  spec.setup = side.median.setup;
  spec.flops = side.median.net.flops;
  spec.weights = side.median.net.params;
  const nlohmann::json& config = side.result->config;
  if (config.is_object()) {
    if (config.contains("params") && config["params"].is_object()) {
      for (const auto& [name, value] : config["params"].items()) spec.params[name] = value.dump();
    }
    if (config.contains("seed")) spec.seed = config["seed"].dump();
    if (config.contains("backend_options")) {
      spec.backend_options = config["backend_options"].dump();
    }
  }
  if (const std::optional<ScenarioMeasure>& sc = side.median.scenario) {
    spec.scenario =
        std::string(ScenarioName(sc->kind)) + " x" + std::to_string(sc->streams) + " streams";
  }
  return spec;
}

// What makes `b` measure something else than `a` ("" when nothing): another topology (by name,
// or by its FLOPs and parameters at the same sizes), batch size, size (a param's value) or
// scenario. Backend, precision, threads, backend options and
// machine are what a comparison is for; a seed only changes the random weights.
std::string Mismatch(const Spec& a, const Spec& b) {
  if (!a.setup.topology.empty() && !b.setup.topology.empty() &&
      a.setup.topology != b.setup.topology) {
    return "another topology (" + b.setup.topology + "; A: " + a.setup.topology + ")";
  }
  if (a.setup.batch > 0 && b.setup.batch > 0 && a.setup.batch != b.setup.batch) {
    return "another batch size (" + std::to_string(b.setup.batch) +
           "; A: " + std::to_string(a.setup.batch) + ")";
  }
  std::string sizes, theirs;
  for (const auto& [name, value] : b.params) {
    const auto it = a.params.find(name);
    if (it == a.params.end() || it->second == value) continue;
    sizes += (sizes.empty() ? "" : ", ") + name + " " + value;
    theirs += (theirs.empty() ? "" : ", ") + name + " " + it->second;
  }
  if (!sizes.empty()) return "other sizes (" + sizes + "; A: " + theirs + ")";
  if (a.flops > 0 && b.flops > 0 && (a.flops != b.flops || a.weights != b.weights)) {
    return "another topology of the same name (" + FormatCount(b.flops) + " FLOPs, " +
           FormatCount(b.weights) + " params; A: " + FormatCount(a.flops) + " FLOPs, " +
           FormatCount(a.weights) + " params)";
  }
  if (a.scenario != b.scenario) {
    return "another scenario (" + (b.scenario.empty() ? "single-stream" : b.scenario) +
           "; A: " + (a.scenario.empty() ? "single-stream" : a.scenario) + ")";
  }
  return "";
}

// What differs and is compared on purpose, said once: "B differs in seed 7 (A: 42)".
std::string Differs(const Spec& a, const Spec& b) {
  std::string out;
  if (!a.seed.empty() && !b.seed.empty() && a.seed != b.seed) {
    out += "seed " + b.seed + " (A: " + a.seed + ")";
  }
  if (!a.backend_options.empty() && !b.backend_options.empty() &&
      a.backend_options != b.backend_options) {
    out += (out.empty() ? "" : ", ") + std::string("backend options ") + b.backend_options +
           " (A: " + a.backend_options + ")";
  }
  return out;
}

RunComparison ComparePair(const std::vector<const RunResults*>& files,
                          const std::vector<std::string>& names, const RunCompareOptions& options) {
  RunComparison c;
  std::vector<Side> sides(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (names[i].empty()) {
      c.runs.push_back(Letter(i) + ": " + files[i]->file + "  (no benchmark pairs with A's)");
      continue;
    }
    sides[i] = Load(files[i]->benchmarks.at(names[i]));
    c.runs.push_back(Letter(i) + ": " + Describe(*files[i], names[i]));
  }
  // A run of another model or batch size is shown beside A, not judged against it: a time per
  // batch of 16 is no regression of one per batch of 4, nor a CNN of an MLP.
  std::vector<std::string> mismatch(files.size());
  bool batches_differ = false;
  for (size_t i = 1; i < files.size(); ++i) {
    if (names[i].empty() || names[0].empty()) continue;
    const Spec a = SpecOf(sides[0]), b = SpecOf(sides[i]);
    mismatch[i] = Mismatch(a, b);
    if (!mismatch[i].empty()) {
      c.notes.push_back(Letter(i) + " measures " + mismatch[i] + ": shown, not judged");
    }
    if (const std::string d = Differs(a, b); !d.empty()) {
      c.notes.push_back(Letter(i) + " differs in " + d);
    }
    batches_differ |= a.setup.batch > 0 && b.setup.batch > 0 && a.setup.batch != b.setup.batch;
  }
  // A run the machine disturbed (reliability.h) gets no verdict, nor does any run against it: a
  // "slower" on a busy machine's numbers would be the neighbour's doing.
  std::vector<bool> disturbed(files.size(), false);
  for (size_t i = 0; i < files.size(); ++i) {
    if (names[i].empty()) continue;
    const Reliability r = JudgeBenchmark(*sides[i].result);
    if (r.reliable) continue;
    disturbed[i] = true;
    c.notes.push_back(Letter(i) + "'s verdicts withheld: " + r.Verdict());
  }
  for (size_t i = 1; i < files.size(); ++i) {
    if (disturbed[0] && !disturbed[i] && !names[i].empty() && mismatch[i].empty()) {
      mismatch[i] = "a disturbed reference";
    }
    if (disturbed[i] && mismatch[i].empty()) mismatch[i] = "disturbed";
  }
  auto judged = [&](RunComparisonRow row) {
    for (size_t i = 1; i < row.sides.size(); ++i) {
      RowJudgement j =
          names[i].empty() ? RowJudgement{} : Judge(row.sides[0], row.sides[i], i, options);
      if (!mismatch[i].empty() && row.sides[0].present && row.sides[i].present) {
        j.verdict = disturbed[0] || disturbed[i] ? "withheld" : "n/a";
        j.p_value = -1;
      }
      row.judgements.push_back(j);
    }
    return row;
  };
  // The network.
  RunComparisonRow net;
  net.kind = RunComparisonRow::Kind::kNetwork;
  net.name = "network";
  for (size_t i = 0; i < files.size(); ++i) {
    net.sides.push_back(names[i].empty() ? SideValue{} : NetworkValue(sides[i]));
  }
  c.rows.push_back(judged(net));
  // Times are per iteration, one batch: where batches differ, the network per sample too (what
  // batching buys), shown beside A and not judged.
  if (batches_differ) {
    RunComparisonRow per_sample = net;
    per_sample.name = "network per sample";
    for (size_t i = 0; i < per_sample.sides.size(); ++i) {
      const double batch = static_cast<double>(std::max<int64_t>(1, sides[i].median.setup.batch));
      SideValue& v = per_sample.sides[i];
      v.ms /= batch;
      for (double& x : v.samples) x /= batch;
      v.cost = StepCost{};
    }
    RunComparisonRow shown = judged(per_sample);
    for (size_t i = 0; i < shown.judgements.size(); ++i) {
      const SideValue &x = per_sample.sides[0], &y = per_sample.sides[i + 1];
      if (!x.present || !y.present || x.ms <= 0) continue;
      shown.judgements[i].change = y.ms / x.ms - 1;
    }
    c.rows.push_back(shown);
  }
  // Markers, by name.
  std::vector<std::string> markers;
  for (size_t i = 0; i < files.size(); ++i) {
    for (const MarkerMeasure& m : sides[i].median.markers) {
      if (std::find(markers.begin(), markers.end(), m.name) == markers.end()) {
        markers.push_back(m.name);
      }
    }
  }
  for (const std::string& name : markers) {
    RunComparisonRow row;
    row.kind = RunComparisonRow::Kind::kMarker;
    row.name = "[" + name + "]";
    for (size_t i = 0; i < files.size(); ++i) row.sides.push_back(MarkerValue(sides[i], name));
    c.rows.push_back(judged(row));
  }
  // Steps: aligned with the reference, one other run at a time; a row is the reference's steps
  // and, per other run, the steps that align with any of them.
  const RunMeasurement& ref = sides[0].median;
  std::vector<std::vector<AlignedSteps>> alignments(files.size());
  for (size_t i = 1; i < files.size(); ++i) {
    if (!names[i].empty()) alignments[i] = report::AlignSteps(ref, sides[i].median);
  }
  std::vector<report::StepsFacingIndex> facing_index;
  for (const auto& alignment : alignments) facing_index.emplace_back(alignment);
  // The reference's groups: the first other run's where there is one, else one per step.
  std::vector<AlignedSteps> rows;
  const size_t first_other = files.size() > 1 && !names[1].empty() ? 1 : 0;
  if (first_other) {
    rows = alignments[1];
  } else {
    for (int s = 0; s < static_cast<int>(ref.steps.size()); ++s) {
      rows.push_back({AlignedSteps::By::kOnlyA, {s}, {}});
    }
  }
  std::vector<RunComparisonRow> step_rows;
  for (const AlignedSteps& r : rows) {
    RunComparisonRow row;
    row.sides.push_back(StepsValue(sides[0], r.a));
    row.aligned = r.by == AlignedSteps::By::kOpShape ? "op/shape" : "name";
    for (size_t i = 1; i < files.size(); ++i) {
      std::vector<int> theirs;
      if (i == 1) {
        theirs = r.b;
      } else if (!r.a.empty()) {
        theirs = facing_index[i].StepsFacing(r.a);
      }
      row.sides.push_back(names[i].empty() ? SideValue{} : StepsValue(sides[i], theirs));
    }
    const bool by_name_differs = r.by == AlignedSteps::By::kOpShape;
    if (!r.a.empty()) {
      row.name = StepsName(ref, r.a);
      if (by_name_differs) row.name += " / " + StepsName(sides[1].median, r.b);
    } else {
      row.name = StepsName(sides[1].median, r.b);
      row.aligned = "";
    }
    step_rows.push_back(judged(row));
  }
  // Steps of the later runs that align with none of the reference's.
  for (size_t i = 2; i < files.size(); ++i) {
    for (const AlignedSteps& g : alignments[i]) {
      if (!g.a.empty()) continue;
      RunComparisonRow row;
      row.name = StepsName(sides[i].median, g.b);
      for (size_t k = 0; k < files.size(); ++k) {
        row.sides.push_back(k == i ? StepsValue(sides[i], g.b) : SideValue{});
      }
      step_rows.push_back(judged(row));
    }
  }
  if (options.top > 0 && step_rows.size() > static_cast<size_t>(options.top)) {
    auto moved = [](const RunComparisonRow& r) {
      double most = 0;
      for (const SideValue& v : r.sides) most = std::max(most, std::abs(v.ms - r.sides[0].ms));
      return most;
    };
    std::stable_sort(step_rows.begin(), step_rows.end(),
                     [&](const auto& x, const auto& y) { return moved(x) > moved(y); });
    step_rows.resize(options.top);
  }
  c.rows.insert(c.rows.end(), step_rows.begin(), step_rows.end());
  return c;
}

}  // namespace

std::vector<RunComparison> CompareRuns(const std::vector<RunResults>& files,
                                       const RunCompareOptions& options) {
  if (files.size() < 2) throw Error("", "", "", "compare needs two run files or more");
  std::vector<std::string> ref_names;
  for (const std::string& name : files[0].order) {
    if (files[0].benchmarks.at(name).skipped.empty()) ref_names.push_back(name);
  }
  if (ref_names.empty()) throw Error(files[0].file, "", "", "no benchmark ran in this file");
  // partners[i][k]: file i's benchmark paired with the reference's k-th ("" for none).
  std::vector<std::vector<std::string>> partners(files.size());
  partners[0] = ref_names;
  std::vector<std::string> notes;
  for (size_t i = 1; i < files.size(); ++i) {
    std::vector<std::string> names;
    for (const std::string& name : files[i].order) {
      if (files[i].benchmarks.at(name).skipped.empty()) names.push_back(name);
    }
    const std::vector<int> pair = Pair(ref_names, names);
    if (std::all_of(pair.begin(), pair.end(), [](int p) { return p < 0; })) {
      throw Error(files[i].file, "", "",
                  "no benchmark in it pairs with one of " + files[0].file +
                      "'s (nothing ran, or nothing in common)");
    }
    std::set<int> used;
    for (size_t k = 0; k < ref_names.size(); ++k) {
      partners[i].push_back(pair[k] >= 0 ? names[pair[k]] : "");
      used.insert(pair[k]);
    }
    for (size_t j = 0; j < names.size(); ++j) {
      if (!used.count(static_cast<int>(j))) {
        notes.push_back(Letter(i) + " " + files[i].file + ": " + names[j] +
                        " pairs with nothing in A");
      }
    }
  }
  std::vector<const RunResults*> all;
  for (const RunResults& f : files) all.push_back(&f);
  std::vector<RunComparison> out;
  for (size_t k = 0; k < ref_names.size(); ++k) {
    std::vector<std::string> names;
    bool any = false;
    for (size_t i = 0; i < files.size(); ++i) {
      names.push_back(partners[i][k]);
      any = any || (i > 0 && !partners[i][k].empty());
    }
    if (!any) {
      notes.push_back("A " + files[0].file + ": " + ref_names[k] + " pairs with nothing");
      continue;
    }
    out.push_back(ComparePair(all, names, options));
  }
  if (!out.empty()) out.back().notes.insert(out.back().notes.end(), notes.begin(), notes.end());
  return out;
}

namespace {

std::string Cell(const SideValue& v) { return v.present ? FormatTime(v.ms) : "-"; }

std::string ChangeCell(const RowJudgement& j, const SideValue& ref, const SideValue& x) {
  if (!ref.present || !x.present) return "";
  return FormatNumber("%+.1f%%", 100 * j.change);
}

std::string PCell(const RowJudgement& j) {
  return j.p_value >= 0 ? FormatNumber("%.3f", j.p_value) : "";
}

std::string OpCell(const RunComparisonRow& r) {
  for (const SideValue& v : r.sides) {
    if (v.present && !v.op.empty()) return v.op;
  }
  return "";
}

std::string MarkdownField(const std::string& text) {
  const std::string s = Printable(text);
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

constexpr const char* kLegend =
    "times: medians per iteration (one batch; 'per sample' divides by the batch), over the\n"
    "  repetitions' medians\n"
    "verdict: faster/slower: beyond the threshold and significant over the repetitions\n"
    "  (Mann-Whitney U); noise: beyond the threshold, not significant; faster?/slower?: beyond\n"
    "  the threshold, too few repetitions to test (--benchmark_repetitions); n/a: another\n"
    "  topology, batch size, size or scenario, shown beside A; withheld: a run the machine\n"
    "  disturbed (notes);\n"
    "  same: within the threshold";

}  // namespace

std::string FormatRunComparisons(const std::vector<RunComparison>& comparisons,
                                 CompareFormat format, const RunCompareOptions& options) {
  std::string out;
  if (format == CompareFormat::kCsv) {
    out = "comparison,row,kind,aligned,op,run,ms,change,p_value,verdict,note\n";
    for (size_t c = 0; c < comparisons.size(); ++c) {
      for (const RunComparisonRow& r : comparisons[c].rows) {
        const char* kind = r.kind == RunComparisonRow::Kind::kNetwork  ? "network"
                           : r.kind == RunComparisonRow::Kind::kMarker ? "marker"
                                                                       : "step";
        for (size_t i = 0; i < r.sides.size(); ++i) {
          const SideValue& v = r.sides[i];
          const RowJudgement j = i == 0 ? RowJudgement{} : r.judgements[i - 1];
          out += std::to_string(c + 1) + "," + CsvField(r.name) + "," + kind + "," + r.aligned +
                 "," + CsvField(v.op) + "," + Letter(i) + "," +
                 (v.present ? FormatNumber("%.6f", v.ms) : "") + "," +
                 (i > 0 && v.present && r.sides[0].present ? FormatNumber("%.4f", j.change) : "") +
                 "," + (j.p_value >= 0 ? FormatNumber("%.4g", j.p_value) : "") + "," + j.verdict +
                 "," + CsvField(j.note) + "\n";
        }
      }
    }
    return out;
  }
  const bool md = format == CompareFormat::kMarkdown;
  for (const RunComparison& c : comparisons) {
    for (const std::string& run : c.runs) out += (md ? "- " : "") + run + "\n";
    out += "\n";
    const size_t n = c.rows.empty() ? 0 : c.rows[0].sides.size();
    std::vector<std::string> header = {"row", "op", "A"};
    std::vector<bool> left = {true, true, false};
    for (size_t i = 1; i < n; ++i) {
      for (const std::string& h :
           {Letter(i), std::string("change"), std::string("p"), std::string("verdict")}) {
        header.push_back(h);
        left.push_back(h == "verdict");
      }
    }
    header.push_back("note");
    left.push_back(true);
    std::vector<std::vector<std::string>> rows;
    for (const RunComparisonRow& r : c.rows) {
      std::vector<std::string> row = {r.name + (r.aligned == "op/shape" ? " *" : ""), OpCell(r),
                                      Cell(r.sides[0])};
      std::string notes;
      for (size_t i = 1; i < n; ++i) {
        const RowJudgement& j = r.judgements[i - 1];
        row.push_back(Cell(r.sides[i]));
        row.push_back(ChangeCell(j, r.sides[0], r.sides[i]));
        row.push_back(PCell(j));
        row.push_back(j.verdict);
        const std::string& note = md ? j.note : j.brief_note;
        if (!note.empty())
          notes += (notes.empty() ? "" : "; ") + (n > 2 ? Letter(i) + ": " : "") + note;
      }
      row.push_back(notes);
      rows.push_back(row);
    }
    if (md) {
      auto line = [&](const std::vector<std::string>& cells) {
        std::string l = "|";
        for (const std::string& cell : cells) l += " " + MarkdownField(cell) + " |";
        return l + "\n";
      };
      out += line(header);
      std::string rule = "|";
      for (size_t i = 0; i < header.size(); ++i) rule += left[i] ? " --- |" : " ---: |";
      out += rule + "\n";
      for (const auto& row : rows) out += line(row);
    } else {
      // 120 columns: names shortened in the middle, notes cut at their end (their start says
      // which run they are of), shorter still until the widest line fits.
      for (auto& row : rows) row[0] = report::Elide(row[0], 34);
      bool cut = false;
      auto render = [&](size_t note_width) {
        report::TextTable table(header);
        size_t k = 0;
        cut = false;
        for (const RunComparisonRow& r : c.rows) {
          if (k > 0 && r.kind != c.rows[k - 1].kind) table.Rule();
          std::vector<std::string> cells = rows[k++];
          std::string& note = cells.back();
          if (report::DisplayLength(note) > note_width) {
            // Whole characters: a UTF-8 sequence is not split.
            size_t bytes = 0, chars = 0;
            while (bytes < note.size() && chars + 1 < note_width) {
              ++bytes;
              while (bytes < note.size() && (note[bytes] & 0xC0) == 0x80) ++bytes;
              ++chars;
            }
            note = note.substr(0, bytes) + "\u2026";
            cut = true;
          }
          table.Add(cells);
        }
        return table.Render(left);
      };
      size_t note_width = n > 2 ? 30 : 44;
      std::string text = render(note_width);
      for (;;) {
        size_t widest = 0;
        for (size_t at = 0; at < text.size();) {
          const size_t end = std::min(text.find('\n', at), text.size());
          widest = std::max(widest, report::DisplayLength(text.substr(at, end - at)));
          at = end + 1;
        }
        if (widest <= 120 || note_width <= 12) break;
        note_width -= std::min(note_width - 12, widest - 120);
        text = render(note_width);
      }
      out += text;
      if (cut) out += "notes cut to fit 120 columns: --format markdown or csv has them whole\n";
    }
    out += "\n";
    for (const std::string& note : c.notes) out += "note: " + note + "\n";
  }
  out += std::string(kLegend) + " (" + FormatNumber("%.0f%%", 100 * options.threshold) +
         ", alpha " + FormatNumber("%.2g", options.alpha) + "); * aligned by op and shape\n";
  return out;
}

}  // namespace ntpb
