// `ntpbench predict`: a topology's latency on calibrated machines without running it
// (latency_prediction.h), one column per calibration; `--check` runs a held-out set here and
// prints how far the predictions were from the measurements.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/latency_prediction.h"
#include "ntpbench/prediction_check.h"
#include "ntpbench/run_file.h"
#include "ntpbench/topology_file.h"
#include "src/bench/machine_class_detect.h"
#include "src/bench/run_settings.h"
#include "src/cli/commands.h"
#include "src/cli/help_formatter.h"
#include "src/cli/option_checks.h"
#include "src/cli/point_process.h"
#include "src/cli/sweep_run.h"
#include "src/common/file_io.h"
#include "src/common/json_field.h"
#include "src/common/json_text.h"
#include "src/common/statistics.h"
#include "src/predict/probe_samples.h"
#include "src/report/text_table.h"

namespace ntpb::cli {
namespace {

// Passes more, at most, for a held-out model none of whose passes ran with the cores placed as
// while calibrated.
constexpr int kPlacementPasses = 2;

struct PredictOptions {
  std::vector<std::string> topologies;
  std::vector<std::string> calibrations;
  std::vector<int64_t> batches;  // default 1 (--check: 1 and 8)
  ParamEnv sets;
  bool json = false;
  bool wide = false;  // the samples each step rests on
  bool check = false;
  std::string heldout = "calibration/heldout/heldout.json";
  std::string check_output;  // --check: the results as JSON
  std::string measured;      // a run file of the same topology: its times beside the prediction
  double point_timeout = 600;
  // --check: measurements of each model, in passes over the list. Three: against a calibration
  // of several passes the fastest counts, as it kept each step's fastest; against one of one
  // pass their median sets one slow pass aside (a VM's neighbours only ever slow it), where two
  // passes' median is their mean.
  int passes = 3;
};

struct Model {
  std::string path;
  ParamEnv sets;
  std::string label;  // the path and its sets, as the check table shows it
};

std::string Label(const std::string& path, const ParamEnv& sets) {
  std::string label = std::filesystem::path(path).filename().string();
  for (const auto& [k, v] : sets) label += " " + k + "=" + std::to_string(v);
  return label;
}

// The backend's plan of steps as the calibration's machine would make it, or one step per layer
// where this build lacks the backend.
std::vector<PlannedStep> Plan(const ResolvedTopology& r, const LatencyCalibration& c) {
  if (const Backend* b = FindBackend(c.backend)) return PlanOnCalibratedMachine(r, c, *b);
  static bool said = false;  // once, not per batch
  if (!said) {
    said = true;
    std::fprintf(stderr,
                 "ntpbench predict: %s: this ntpbench has no %s backend to plan its steps with: "
                 "one step per layer, no fusion\n",
                 c.file.c_str(), c.backend.c_str());
  }
  std::vector<PlannedStep> steps;
  for (size_t i = 0; i < r.layers.size(); ++i) steps.push_back({static_cast<int>(i), 0, ""});
  return steps;
}

// The topology at a batch, resolved once for every calibration (and a measured run) to read.
ResolvedTopology ResolveAt(const Topology& topology, const ParamEnv& sets, int64_t batch) {
  ParamEnv env = sets;
  env["N"] = batch;
  return Resolve(topology, env);
}

LatencyPrediction PredictOne(const ResolvedTopology& r, const LatencyCalibration& c) {
  const TopologyAnalysis a = Analyze(r, ParsePrecision(c.precision, c.file + ": precision"));
  return PredictLatency(r, a, Plan(r, c), c);
}

// The hardware a calibration ran on, short (the class's libraries and build are in the file).
std::string Hardware(const MachineClass& m) {
  return m.cpu + ", " + std::to_string(m.cores) + (m.cores == 1 ? " core, " : " cores, ") +
         (m.isa.empty() ? "no AVX" : m.isa);
}

std::string Threads(int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

std::string Ms(double ms) { return FormatNumber(ms < 1 ? "%.4f" : "%.3f", ms); }

std::string Interval(const StepPrediction& s) {
  return s.calibrated ? Ms(s.low_ms) + "-" + Ms(s.high_ms) : "";
}

// What a run measured of the topology at a batch, by host layer (MeasuredUnits), and its
// median inference.
struct Measured {
  std::map<std::string, double> by_layer;
  double ms = 0;
  std::string what;  // the run's benchmark name
};

// The run of `file` that ran `r` at its batch on the calibration's backend and precision.
Measured MeasuredRun(const std::string& file, const ResolvedTopology& r, int64_t batch,
                     const LatencyCalibration& c) {
  const RunResults run = ReadRunResults(file);
  std::string seen;
  for (const std::string& name : run.order) {
    const BenchmarkResult& b = run.benchmarks.at(name);
    if (!b.skipped.empty()) continue;
    const RunMeasurement m = b.Measurement();
    seen += (seen.empty() ? "" : ", ") + name;
    if (m.setup.backend != c.backend || m.setup.precision != c.precision ||
        m.setup.batch != batch || m.scenario) {
      continue;
    }
    Measured out;
    out.what = name;
    for (const auto& [layer, unit] : MeasuredUnits(m, r)) {
      out.by_layer[r.layers[layer].name] = unit.ms;
    }
    out.ms = m.net.p50_ms > 0 ? m.net.p50_ms : Median(b.real_time_ms);
    return out;
  }
  throw Error(file, "", "--measured",
              "has no single-stream run of " + c.backend + " " + c.precision + " at batch " +
                  std::to_string(batch) + " (it has " + (seen.empty() ? "none" : seen) + ")");
}

// One table: the steps of the first calibration's plan, a time column per calibration, and
// what a run measured of each step where one is given.
// A step's kind as the table shows it, shortened (the calibration and the JSON keep the ops'
// names): "conv2d.dw[k3s2]+bn+crelu".
std::string ShortSignature(const StepFeatures& f) {
  std::string text = f.Signature();
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{".depthwise", ".dw"},
                                                        {".grouped", ".grp"},
                                                        {"batchnorm", "bn"},
                                                        {"clipped_relu", "crelu"},
                                                        {"layernorm", "ln"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      text.replace(at, from.size(), to);
    }
  }
  return text;
}

// One table: the steps of the first calibration's plan, a time column per calibration, and
// what a run measured of each step where one is given. `wide`: the samples each rests on.
std::string PredictionTable(const std::vector<LatencyPrediction>& p,
                            const std::vector<LatencyCalibration>& c, const Measured* measured,
                            bool wide) {
  std::vector<std::string> header = {"step", "op", "shape", "MFLOP"};
  const bool one = p.size() == 1;
  for (size_t i = 0; i < p.size(); ++i) {
    const std::string tag = one ? "" : std::string(1, static_cast<char>('A' + i)) + " ";
    header.push_back(tag + "ms");
    if (one) header.push_back("interval");
  }
  if (measured) header.insert(header.end(), {"measured", "error"});
  if (one) header.push_back("share");
  if (one && wide) header.push_back("basis");
  report::TextTable table(header);
  const LatencyPrediction& first = p.front();
  std::set<std::string> uncalibrated;
  bool extrapolated = false;
  for (size_t s = 0; s < first.steps.size(); ++s) {
    const StepPrediction& step = first.steps[s];
    std::vector<std::string> row = {report::Elide(step.layers.front(), wide ? 32 : 24),
                                    report::Elide(ShortSignature(step.features), 28), step.shape,
                                    FormatNumber("%.1f", step.features.flops / 1e6)};
    for (size_t i = 0; i < p.size(); ++i) {
      // Another backend may plan other steps: its column shows the step of the same host layer.
      const StepPrediction* same = nullptr;
      for (const StepPrediction& o : p[i].steps) {
        if (o.layers.front() == step.layers.front()) same = &o;
      }
      if (same && !same->calibrated) uncalibrated.insert(same->features.family);
      extrapolated = extrapolated || (same && same->extrapolated);
      row.push_back(!same               ? "(fused)"
                    : !same->calibrated ? "n/a"
                                        : Ms(same->ms) + (same->extrapolated ? "*" : ""));
      if (one) row.push_back(Interval(step));
    }
    if (measured) {
      const auto m = measured->by_layer.find(step.layers.front());
      const bool both = m != measured->by_layer.end() && step.calibrated && m->second > 0;
      row.push_back(m == measured->by_layer.end() ? "" : Ms(m->second));
      row.push_back(both ? FormatNumber("%+.0f%%", 100 * (step.ms / m->second - 1)) : "");
    }
    if (one) {
      row.push_back(
          step.calibrated && first.ms > 0 ? FormatNumber("%.1f%%", 100 * step.ms / first.ms) : "");
      if (wide) row.push_back(step.basis);
    }
    table.Add(row);
  }
  table.Rule();
  std::vector<std::string> total = {"total", "", "", ""};
  for (const LatencyPrediction& each : p) {
    total.push_back(Ms(each.ms));
    if (one) total.push_back(Ms(each.low_ms) + "-" + Ms(each.high_ms));
  }
  if (measured) {
    total.push_back(Ms(measured->ms));
    total.push_back(FormatNumber("%+.1f%%", 100 * (first.ms / measured->ms - 1)));
  }
  if (one) total.push_back("100%");
  if (one && wide) total.push_back("");
  table.Add(total);
  std::vector<bool> left(header.size(), false);
  left[0] = left[1] = true;
  if (one && wide) left.back() = true;
  std::string out = table.Render(left);
  if (extrapolated) out += "*: extrapolated, every sample of its kind over 3x away\n";
  if (one && wide) {
    out += "the samples each step rests on, nearest first (their time -> scaled to the step):\n";
    for (const StepPrediction& step : first.steps) {
      const std::string name = report::Elide(step.layers.front(), 32);
      for (size_t i = 0; i < step.from.size(); ++i) {
        const PricedFrom& f = step.from[i];
        out += "  " + (i == 0 ? name : std::string(name.size(), ' ')) + "  " + f.source + ": " +
               Ms(f.sample_ms) + " -> " + Ms(f.estimate_ms) + " ms\n";
      }
    }
  }
  if (!uncalibrated.empty()) {
    std::string families;
    for (const std::string& f : uncalibrated) families += (families.empty() ? "" : ", ") + f;
    out += "n/a: no " + families + " in the calibration: left out of the total\n";
  }
  if (measured) {
    out += "measured: " + measured->what +
           " (a step: its median, the backend's reorders counted with the layer they prepare; "
           "total: the median inference)\n";
  }
  if (!one) {
    for (size_t i = 0; i < c.size(); ++i) {
      out += std::string(1, static_cast<char>('A' + i)) + ": " + Hardware(c[i].machine) + ", " +
             c[i].backend + " " + c[i].precision + ", " + Threads(c[i].threads) + " (" + c[i].file +
             ")\n";
    }
  }
  return out;
}

nlohmann::json PredictionJson(const LatencyPrediction& p, const LatencyCalibration& c) {
  nlohmann::json steps = nlohmann::json::array();
  for (const StepPrediction& s : p.steps) {
    nlohmann::json from = nlohmann::json::array();
    for (const PricedFrom& f : s.from) {
      from.push_back(
          {{"source", f.source}, {"sample_ms", f.sample_ms}, {"estimate_ms", f.estimate_ms}});
    }
    steps.push_back({{"layers", s.layers},
                     {"op", s.features.Signature()},
                     {"shape", s.shape},
                     {"flops", s.features.flops},
                     {"bytes", s.features.bytes},
                     {"calibrated", s.calibrated},
                     {"ms", s.ms},
                     {"low_ms", s.low_ms},
                     {"high_ms", s.high_ms},
                     {"samples", s.samples},
                     {"extrapolated", s.extrapolated},
                     {"basis", s.basis},
                     {"from", from}});
  }
  return {{"topology", p.topology},
          {"batch", p.batch},
          {"calibration", c.file},
          {"machine", Hardware(c.machine)},
          {"backend", c.backend},
          {"precision", c.precision},
          {"threads", c.threads},
          {"ms", p.ms},
          {"low_ms", p.low_ms},
          {"high_ms", p.high_ms},
          {"uncalibrated", p.uncalibrated},
          {"steps", steps}};
}

// The held-out models: the topologies given, else the held-out file's list (a path ending in
// "/" is every topology in that folder).
std::vector<Model> HeldOut(const PredictOptions& o) {
  std::vector<Model> models;
  if (!o.topologies.empty()) {
    for (const std::string& t : o.topologies) models.push_back({t, o.sets, Label(t, o.sets)});
    return models;
  }
  const nlohmann::json j = nlohmann::json::parse(ReadTextFile(o.heldout, 1 << 20), nullptr, false);
  if (j.is_discarded() || JsonStringOrEmpty(j, "format") != "ntpbench-heldout") {
    throw Error(o.heldout, "", "format", "not a held-out list (\"format\": \"ntpbench-heldout\")");
  }
  if (!j.contains("models") || !j["models"].is_array()) {
    throw Error(o.heldout, "", "models", "missing or not a list");
  }
  const std::filesystem::path folder = std::filesystem::path(o.heldout).parent_path();
  for (size_t i = 0; i < j["models"].size(); ++i) {
    const nlohmann::json& m = j["models"][i];
    const std::string field = "models[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("topology") || !m["topology"].is_string()) {
      throw Error(o.heldout, "", field + ".topology", "missing or not a path");
    }
    ParamEnv sets = o.sets;
    if (m.contains("set")) {
      if (!m["set"].is_object()) throw Error(o.heldout, "", field + ".set", "not an object");
      for (const auto& [k, v] : m["set"].items()) {
        const std::optional<int64_t> value = JsonInteger<int64_t>(v);
        if (!value) throw Error(o.heldout, "", field + ".set." + k, "not a 64-bit integer");
        sets[k] = *value;
      }
    }
    const std::string path = (folder / m["topology"].get<std::string>()).string();
    if (!path.empty() && path.back() == '/') {
      std::vector<std::string> found;
      std::error_code error;
      for (const auto& e : std::filesystem::directory_iterator(path, error)) {
        const std::string ext = e.path().extension().string();
        if (ext == ".json" || ext == ".onnx" || ext == ".xml") found.push_back(e.path().string());
      }
      if (error) throw Error(o.heldout, "", field + ".topology", error.message());
      std::sort(found.begin(), found.end());
      for (const std::string& f : found) models.push_back({f, sets, Label(f, sets)});
    } else {
      models.push_back({path, sets, Label(path, sets)});
    }
  }
  return models;
}

// The model's median latency here, run as `ntpbench run` in a process of its own, with how far
// apart its cores were (core-to-core ns, 0: not measured); nullopt with the reason when it failed.
std::optional<PredictionCheckRow::Pass> Measure(const Model& m, int64_t batch,
                                                const LatencyCalibration& c, double timeout,
                                                std::string* why) {
  // This process's own files: two checks at once never read each other's run.
  const std::string stem = (std::filesystem::temp_directory_path() /
                            ("ntpbench-predict-check." + std::to_string(::getpid())))
                               .string();
  const std::string json = stem + ".json", log = stem + ".log";
  std::vector<std::string> args = {"run",
                                   m.path,
                                   "--backend",
                                   c.backend,
                                   "--precision",
                                   c.precision,
                                   "--batch",
                                   std::to_string(batch),
                                   "--threads",
                                   std::to_string(c.threads),
                                   "--json",
                                   json,
                                   "--quiet",
                                   "--benchmark_min_time=0.2",
                                   "--benchmark_repetitions=3"};
  for (const auto& [k, v] : m.sets) {
    args.push_back("--set");
    args.push_back(k + "=" + std::to_string(v));
  }
  // As the calibrated machine ran: the plan the prediction priced.
  if (const Backend* b = FindBackend(c.backend)) {
    for (const auto& [option, value] : CalibratedOptions(c, *b)) {
      args.push_back("--backend-option");
      args.push_back(c.backend + "." + option + "=" + value);
    }
  }
  const PointOutcome r = RunPointProcess(args, log, timeout);
  std::optional<PredictionCheckRow::Pass> ms;
  if (r.ok) {
    const RunResults run = ReadRunResults(json);
    const BenchmarkResult& b = run.benchmarks.begin()->second;
    std::vector<double> p50s;
    for (size_t i = 0; i < b.repetitions.size(); ++i) {
      p50s.push_back(b.RepetitionMeasurement(i).net.p50_ms);
    }
    ms = PredictionCheckRow::Pass{Median(p50s.empty() || p50s.front() <= 0 ? b.real_time_ms : p50s),
                                  b.CoreToCoreNs()};
    std::remove(log.c_str());
  } else {
    *why = r.reason;
  }
  std::remove(json.c_str());
  return ms;
}

// Each of the calibration's speed references run once here: its latency by probe (a failed one is
// said on stderr and left out).
std::map<std::string, double> RunSpeedReferences(const LatencyCalibration& c, double timeout) {
  std::map<std::string, double> ms;
  if (!c.speed_references.empty()) {
    std::fprintf(stderr,
                 "ntpbench predict: running a point of each of the calibration's %zu probes again, "
                 "to compare this machine's speed with its speed while calibrated\n",
                 c.speed_references.size());
  }
  for (const auto& [probe, r] : c.speed_references) {
    std::string why;
    std::optional<double> now;
    try {
      now = MeasureSweepPoint(r.sweep, r.base, r.point, timeout, &why);
    } catch (const Error& e) {
      why = e.what();  // the probe's file is not here (run from where calibrate ran)
    }
    if (now) {
      ms[probe] = *now;
    } else {
      std::fprintf(stderr, "ntpbench predict: %s's speed reference (%s) did not run: %s\n",
                   probe.c_str(), r.point.c_str(), why.c_str());
    }
  }
  return ms;
}

// The check's table and its error distribution, with the worst cases and their dominant step.
// `wide`: with each model's dominant step (past 120 columns; the worst ones are named below it).
std::string CheckReport(const PredictionCheck& check, bool wide) {
  std::vector<std::string> headings = {"model",       "batch",  "predicted ms", "interval",
                                       "measured ms", "spread", "error"};
  std::vector<bool> left = {true, false, false, false, false, false, false};
  if (wide) {
    headings.push_back("dominant step");
    left.push_back(true);
  }
  report::TextTable table(headings);
  std::vector<double> magnitudes, spreads;
  std::vector<const PredictionCheckRow*> measured;
  for (const PredictionCheckRow& r : check.rows) {
    const std::optional<double> error = r.RelativeError();
    if (error) {
      magnitudes.push_back(std::fabs(*error));
      spreads.push_back(r.measured_spread);
      measured.push_back(&r);
    }
    std::vector<std::string> row = {
        report::Elide(r.model, 36),
        std::to_string(r.batch),
        Ms(r.predicted_ms),
        Ms(r.low_ms) + "-" + Ms(r.high_ms),
        r.measured_ms ? Ms(*r.measured_ms) : "failed",
        r.measured_ms ? FormatNumber("%.0f%%", 100 * r.measured_spread) : "",
        (error ? FormatNumber("%+.1f%%", 100 * *error) : "") +
            (r.placed_apart ? " (cores apart)" : "") +
            (r.uncalibrated ? " (" + std::to_string(r.uncalibrated) + " uncalibrated)" : "")};
    if (wide) row.push_back(r.dominant);
    table.Add(row);
  }
  std::string out =
      WrapText("held-out check of " + check.calibration + ": " + check.machine + ", " +
                   check.backend + " " + check.precision + ", " + Threads(check.threads) +
                   "; measured: each model's " +
                   (check.fastest_pass ? "fastest pass (the calibration kept each step's fastest)"
                                       : "median pass") +
                   (check.core_to_core_ns > 0
                        ? " of those with the cores placed as while calibrated (" +
                              FormatNumber("%.0f", check.core_to_core_ns) + " ns core to core)"
                        : ""),
               120) +
      "\n";
  out += table.Render(left);
  if (magnitudes.empty()) return out + "\nnothing measured\n";
  auto within = [&](double bound) {
    const long n = std::count_if(magnitudes.begin(), magnitudes.end(),
                                 [&](double e) { return e <= bound + 1e-12; });
    return std::to_string(n) + " (" + FormatNumber("%.0f%%", 100.0 * n / magnitudes.size()) + ")";
  };
  out +=
      "\n" + std::to_string(magnitudes.size()) + " predictions: within +-5% " + within(0.05) +
      ", +-10% " + within(0.10) + ", +-20% " + within(0.20) + "; median |error| " +
      FormatNumber("%.1f%%", 100 * Median(magnitudes)) + ", worst " +
      FormatNumber("%.1f%%", 100 * *std::max_element(magnitudes.begin(), magnitudes.end())) + "\n" +
      WrapText("the machine itself: the same run varied by a median " +
                   FormatNumber("%.1f%%", 100 * Median(spreads)) + " (worst " +
                   FormatNumber("%.1f%%", 100 * *std::max_element(spreads.begin(), spreads.end())) +
                   ") between passes (spread: slowest over fastest); an error within that is "
                   "noise",
               120) +
      "\n";
  if (const long apart =
          std::count_if(check.rows.begin(), check.rows.end(),
                        [](const PredictionCheckRow& r) { return r.placed_apart; })) {
    out += WrapText(std::to_string(apart) +
                        " of them ran only with the cores placed farther apart than while "
                        "calibrated (\"cores apart\"): their error holds what that placement costs "
                        "(a VM's host moves its virtual CPUs; small networks slow most)",
                    120) +
           "\n";
  }
  if (const std::optional<double> change = check.MedianMachineChange()) {
    // What the predictions would be within, had the machine run as fast as while calibrated.
    const int n = check.CountWithin(0.10, 1 + *change);
    std::string each;
    for (const auto& [probe, c] : check.machine_change) {
      each += (each.empty() ? "" : ", ") + probe + FormatNumber(" %+.1f%%", 100 * c);
    }
    out += WrapText("the machine against its calibration: the probes' reference points ran " +
                        FormatNumber("%+.1f%%", 100 * *change) +
                        " (median); with the predictions scaled by that, " + std::to_string(n) +
                        " (" + FormatNumber("%.0f%%", 100.0 * n / magnitudes.size()) +
                        ") are within +-10%. Per probe: " + each,
                    120) +
           "\n";
  }
  out += "worst:\n";
  std::sort(measured.begin(), measured.end(), [](const auto* a, const auto* b) {
    return std::fabs(*a->RelativeError()) > std::fabs(*b->RelativeError());
  });
  for (size_t i = 0; i < measured.size() && i < 5; ++i) {
    out += "  " + measured[i]->model + " batch " + std::to_string(measured[i]->batch) + ": " +
           FormatNumber("%+.1f%%", 100 * *measured[i]->RelativeError()) + ", dominant " +
           measured[i]->dominant + "\n";
  }
  return out;
}

int Check(const PredictOptions& o, const std::vector<LatencyCalibration>& calibrations) {
  if (calibrations.size() != 1) {
    throw Error("", "", "--check", "checks one calibration, this machine's (give one)");
  }
  const LatencyCalibration& c = calibrations.front();
  if (!FindBackend(c.backend)) {
    const std::string why = BackendUnavailableReason(c.backend);
    throw Error(c.file, "", "backend",
                "--check runs the models on " + c.backend + ", which " +
                    (why.empty() ? "this ntpbench does not know" : "is unavailable: " + why));
  }
  const std::set<std::string> backends = {c.backend};
  if (!(DetectMachineClass(&backends) == c.machine)) {
    std::fprintf(stderr,
                 "ntpbench predict: warning: %s was calibrated on another machine class (%s); "
                 "--check measures this one\n",
                 c.file.c_str(), Hardware(c.machine).c_str());
  }
  const std::vector<Model> models = HeldOut(o);
  const std::vector<int64_t> batches = o.batches.empty() ? std::vector<int64_t>{1, 8} : o.batches;
  CatchInterrupts();
  PredictionCheck check;
  check.calibration = c.file;
  check.machine = Hardware(c.machine);
  // A calibration under an ISA cap (ONEDNN_MAX_CPU_ISA=AVX2 on an AVX-512 CPU) is another
  // machine's: its name says so, or two such checks read alike.
  if (c.vector_lanes != VectorLanes(c.machine)) {
    check.machine += ", the backend's kernels " + std::to_string(c.vector_lanes) +
                     " f32 lanes wide (an ISA cap)";
  }
  check.backend = c.backend;
  check.precision = c.precision;
  check.threads = c.threads;
  check.fastest_pass = c.passes > 1;
  check.core_to_core_ns = c.core_to_core_ns;
  // Predicted first (nothing runs), then measured in passes over the whole list: a machine whose
  // speed drifts over minutes (a VM beside busy neighbours) shows it as a spread between passes,
  // the floor under which an error is noise.
  std::vector<const Model*> row_models;
  for (const Model& m : models) {
    const Topology topology = ReadTopologyShapes(m.path);
    for (int64_t batch : batches) {
      LatencyPrediction p;
      try {
        p = PredictOne(ResolveAt(topology, m.sets, batch), c);
      } catch (const Error& e) {
        std::fprintf(stderr, "%s batch %lld: not predicted: %s\n", m.label.c_str(),
                     static_cast<long long>(batch), e.what());
        continue;
      }
      PredictionCheckRow row;
      row.model = m.label;
      row.topology = m.path;
      row.batch = batch;
      row.predicted_ms = p.ms;
      row.low_ms = p.low_ms;
      row.high_ms = p.high_ms;
      row.uncalibrated = p.uncalibrated;
      const StepPrediction* dominant = nullptr;
      for (const StepPrediction& s : p.steps) {
        if (!dominant || s.ms > dominant->ms) dominant = &s;
      }
      if (dominant && p.ms > 0) {
        row.dominant = report::Elide(dominant->layers.front(), 24) + " " +
                       dominant->features.Signature() + " (" +
                       FormatNumber("%.0f%%", 100 * dominant->ms / p.ms) + ")";
      }
      check.rows.push_back(row);
      row_models.push_back(&m);
    }
  }
  // The machine's speed against its calibration's, before the passes and after them.
  const std::map<std::string, double> before = RunSpeedReferences(c, o.point_timeout);
  if (Interrupted()) return 130;
  size_t total = check.rows.size() * o.passes;
  size_t done = 0;
  // One pass over `rows` (indices into check.rows); false when interrupted.
  auto run_pass = [&](const std::vector<size_t>& rows, const std::string& pass_name) {
    for (size_t i : rows) {
      PredictionCheckRow& row = check.rows[i];
      ++done;
      if (!row.failed.empty()) continue;  // failed in an earlier pass
      const std::optional<PredictionCheckRow::Pass> ms =
          Measure(*row_models[i], row.batch, c, o.point_timeout, &row.failed);
      if (Interrupted()) return false;
      if (ms) row.passes.push_back(*ms);
      std::fprintf(stderr, "[%zu/%zu] %s, %s batch %lld: predicted %s ms, measured %s\n", done,
                   total, pass_name.c_str(), row.model.c_str(), static_cast<long long>(row.batch),
                   Ms(row.predicted_ms).c_str(),
                   ms ? (Ms(ms->ms) + " ms, cores " + FormatNumber("%.0f", ms->core_to_core_ns) +
                         " ns apart")
                            .c_str()
                      : ("failed: " + row.failed).c_str());
    }
    return true;
  };
  std::vector<size_t> all(check.rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (int pass = 0; pass < o.passes; ++pass) {
    if (!run_pass(all, "pass " + std::to_string(pass + 1))) return 130;
  }
  // A model none of whose passes ran with the cores placed as while calibrated runs again, up
  // to kPlacementPasses more times: its error would hold the placement's cost (a VM's host moves
  // its virtual CPUs between a near and a far placement; a 27 us MLP took 42 us far apart).
  auto placed_alike = [&](const PredictionCheckRow::Pass& p) {
    return SameCorePlacement(p.core_to_core_ns, check.core_to_core_ns);
  };
  for (int extra = 1; extra <= kPlacementPasses; ++extra) {
    std::vector<size_t> apart;
    for (size_t i = 0; i < check.rows.size(); ++i) {
      const PredictionCheckRow& row = check.rows[i];
      if (row.failed.empty() && !row.passes.empty() &&
          std::none_of(row.passes.begin(), row.passes.end(), placed_alike)) {
        apart.push_back(i);
      }
    }
    if (apart.empty()) break;
    std::fprintf(stderr,
                 "ntpbench predict: %zu models ran only with the cores placed farther apart than "
                 "while calibrated (%.0f ns); running them again\n",
                 apart.size(), check.core_to_core_ns);
    total += apart.size();
    if (!run_pass(apart, "again " + std::to_string(extra))) return 130;
  }
  const std::map<std::string, double> after = RunSpeedReferences(c, o.point_timeout);
  if (Interrupted()) return 130;
  for (const auto& [probe, ms] : after) {
    const auto first = before.find(probe);
    if (first == before.end()) continue;
    check.machine_change[probe] =
        std::sqrt(first->second * ms) / c.speed_references.at(probe).ms - 1;
  }
  for (PredictionCheckRow& row : check.rows) {
    if (row.passes.empty() || !row.failed.empty()) continue;
    std::vector<double> counted;
    for (const PredictionCheckRow::Pass& p : row.passes) {
      if (placed_alike(p)) counted.push_back(p.ms);
    }
    row.placed_apart = counted.empty();
    if (row.placed_apart) {
      for (const PredictionCheckRow::Pass& p : row.passes) counted.push_back(p.ms);
    }
    const auto [lo, hi] = std::minmax_element(counted.begin(), counted.end());
    row.measured_ms = check.fastest_pass ? *lo : Median(counted);
    row.measured_spread = *hi / *lo - 1;
  }
  std::fputs(CheckReport(check, o.wide).c_str(), stdout);
  if (!o.check_output.empty()) {
    WriteFileAtomically(o.check_output, JsonText(PredictionCheckJson(check), 1) + "\n");
    std::fprintf(stderr,
                 "ntpbench predict: wrote %s; `ntpbench report %s -o check.html` plots it\n",
                 o.check_output.c_str(), o.check_output.c_str());
  }
  for (const PredictionCheckRow& r : check.rows) {
    if (r.measured_ms) return 0;
  }
  return 1;
}

int Predict(const PredictOptions& o) {
  if (o.calibrations.empty()) {
    throw Error("", "", "--calibration",
                "needed: a file `ntpbench calibrate` wrote (one per machine to compare)");
  }
  std::vector<LatencyCalibration> calibrations;
  for (const std::string& file : o.calibrations) {
    calibrations.push_back(ReadLatencyCalibration(file));
  }
  for (const LatencyCalibration& c : calibrations) {
    if (const std::string drift = DriftNote(c); !drift.empty()) {
      std::fprintf(stderr,
                   "ntpbench predict: warning: %s: %s, and its samples carry that error "
                   "(calibrate again on a quiet machine)\n",
                   c.file.c_str(), drift.c_str());
    }
    if (c.cache_bytes.empty()) {
      std::fprintf(stderr,
                   "ntpbench predict: note: %s records no cache sizes (made before calibrate "
                   "recorded them, or where the machine shows none): steps are priced without "
                   "knowing which networks fit the caches; a calibration made again prices by "
                   "them\n",
                   c.file.c_str());
    }
  }
  if (o.check) return Check(o, calibrations);
  if (o.topologies.size() != 1) {
    throw Error("", "", "TOPOLOGY", "predict takes one topology (--check takes several)");
  }
  const Topology topology = ReadTopologyShapes(o.topologies.front());
  nlohmann::json all = nlohmann::json::array();
  const std::vector<int64_t> batches = o.batches.empty() ? std::vector<int64_t>{1} : o.batches;
  for (int64_t batch : batches) {
    const ResolvedTopology resolved = ResolveAt(topology, o.sets, batch);
    std::vector<LatencyPrediction> predictions;
    for (const LatencyCalibration& c : calibrations) {
      predictions.push_back(PredictOne(resolved, c));
    }
    if (o.json) {
      for (size_t i = 0; i < predictions.size(); ++i) {
        all.push_back(PredictionJson(predictions[i], calibrations[i]));
      }
      continue;
    }
    const LatencyCalibration& c = calibrations.front();
    std::printf("%s (%s), batch %lld, predicted%s\n", predictions.front().topology.c_str(),
                o.topologies.front().c_str(), static_cast<long long>(batch),
                calibrations.size() == 1 ? (" for " + c.backend + " " + c.precision + ", " +
                                            Threads(c.threads) + " on " + Hardware(c.machine))
                                               .c_str()
                                         : " on each calibrated machine");
    std::optional<Measured> measured;
    if (!o.measured.empty()) measured = MeasuredRun(o.measured, resolved, batch, c);
    std::fputs(
        PredictionTable(predictions, calibrations, measured ? &*measured : nullptr, o.wide).c_str(),
        stdout);
  }
  if (o.json) std::printf("%s\n", JsonText(all, 2).c_str());
  return 0;
}

}  // namespace

Command AddPredictCommand(CLI::App* app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* c = app->add_subcommand(
      "predict",
      "a topology's latency per step and end to end on each calibrated machine, without "
      "running it (calibrations from `ntpbench calibrate`, here or on any machine); --check "
      "runs held-out models here and prints how far the predictions were");
  c->add_option("TOPOLOGY", o->topologies,
                "the topology (.json, .xml, .onnx); with --check, the held-out models (default: "
                "calibration/heldout/heldout.json's)")
      ->type_name("FILE");
  c->add_option("-c,--calibration", o->calibrations,
                "a latency calibration (repeatable: a column per machine)")
      ->type_name("FILE");
  c->add_option("--batch", o->batches, "batch sizes (default 1; --check: 1,8)")
      ->delimiter(',')
      ->check(IntegerAtLeast(1))
      ->type_name("N[,N..]");
  c->add_option_function<std::vector<std::string>>(
       "--set",
       [o](const std::vector<std::string>& items) {
         for (const std::string& item : items) bench::ParseAssignments(item, "--set", &o->sets);
       },
       "params (repeatable)")
      ->type_name("NAME=VALUE[,..]");
  c->add_flag("--json", o->json, "print the predictions as JSON");
  c->add_flag("--wide", o->wide,
              "also the samples each step's prediction rests on (--check: each model's dominant "
              "step)");
  c->add_option("--measured", o->measured,
                "a run file of the topology (`ntpbench run --json`): its step times beside the "
                "prediction of the first calibration's backend and precision")
      ->type_name("RUN.json");
  c->add_flag("--check", o->check,
              "run each held-out model here at each batch and compare with its prediction");
  c->add_option("--heldout", o->heldout,
                "--check: the held-out list (default calibration/heldout/heldout.json)")
      ->type_name("FILE");
  c->add_option("-o,--output", o->check_output, "--check: also write the results as JSON here")
      ->type_name("FILE");
  c->add_option("--passes", o->passes,
                "--check: how many times each model is measured, in passes over the list; the "
                "fastest counts against a calibration of several passes (calibrate --passes), "
                "else the median; the spread shows how much the machine drifts (default 3)")
      ->check(IntegerAtLeast(1, 100))
      ->type_name("N");
  c->add_option("--point-timeout", o->point_timeout,
                "--check: seconds after which a model's run is stopped (default 600)")
      ->check(NumberBetween(1, 1e6, "seconds"))
      ->type_name("S");
  return {c, {}, [o](const std::vector<std::string>& passed) {
            if (!passed.empty()) {
              throw Error("", "", passed.front(), "predict takes no Google Benchmark flags");
            }
            return Predict(*o);
          }};
}

}  // namespace ntpb::cli
