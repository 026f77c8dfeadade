// Reading a run file into the results model.
#include "ntpbench/run_file.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "ntpbench/error.h"
#include "src/common/benchmark_json.h"
#include "src/common/file_io.h"
#include "src/common/run_key.h"
#include "src/common/statistics.h"

namespace ntpb {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxResultFileBytes = 256u << 20;
constexpr double kMaxIterationMs = 365.0 * 24 * 3600 * 1000;

bool IsAnalyticCounter(const std::string& name) {
  const std::optional<Metric> metric = MetricOfCounter(name);
  return metric && IsAnalytic(*metric);
}

// Google Benchmark's time units; nullopt for anything else.
std::optional<double> MillisecondsPer(const std::string& unit) {
  if (unit == "ns") return 1e-6;
  if (unit == "us") return 1e-3;
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1e3;
  return std::nullopt;
}

// A context entry that holds JSON as a string (Google Benchmark's context is strings only).
json ContextJson(const json& context, const std::string& key, const std::string& file) {
  if (!context.contains(key)) return nullptr;
  if (!context[key].is_string()) {
    throw Error(file, "", "context." + key, "expected a string of JSON");
  }
  return ParseBenchmarkJson(context[key].get<std::string>(), file + ": context." + key);
}

}  // namespace

RunMeasurement BenchmarkResult::Measurement() const {
  std::map<std::string, double> all = counters;
  all.insert(analytic.begin(), analytic.end());
  RunMeasurement m = DecodeCounters(all);
  if (!description.is_null()) DecodeDescription(description, &m);
  return m;
}

RunMeasurement BenchmarkResult::RepetitionMeasurement(std::size_t repetition) const {
  std::map<std::string, double> all = repetitions.at(repetition);
  all.insert(analytic.begin(), analytic.end());
  return DecodeCounters(all);
}

double BenchmarkResult::CoreToCoreNs() const {
  double ns = 0;
  for (std::size_t i = 0; i < repetitions.size(); ++i) {
    if (const auto& in = RepetitionMeasurement(i).interference) {
      ns = std::max(ns, in->core_to_core_ns);
    }
  }
  if (repetitions.empty()) {
    if (const auto& in = Measurement().interference) ns = in->core_to_core_ns;
  }
  return ns;
}

RunResults ParseRunResults(const std::string& text, const std::string& file) {
  const json doc = ParseBenchmarkJson(text, file);
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw Error(file, "", "benchmarks", "not Google Benchmark JSON (no \"benchmarks\" array)");
  }
  RunResults run;
  run.file = file;
  if (doc.contains("context") && doc["context"].is_object()) run.context = doc["context"];
  if (const json machine = ContextJson(run.context, "ntpbench_machine_json", file);
      !machine.is_null()) {
    run.machine = MachineClass::FromJson(machine, file);
    run.has_machine = true;
  }
  if (const json peaks = ContextJson(run.context, "ntpbench_machine_peaks", file);
      !peaks.is_null()) {
    run.peaks = MachinePeaks::FromJson(peaks, file + ": context.ntpbench_machine_peaks");
  }
  if (run.context.contains("ntpbench_threads") && run.context["ntpbench_threads"].is_string()) {
    const std::string threads = run.context["ntpbench_threads"].get<std::string>();
    if (threads.size() < 6 && !threads.empty() &&
        threads.find_first_not_of("0123456789") == std::string::npos) {
      run.threads = std::stoi(threads);
    }
  }
  std::map<std::string, std::map<std::string, std::vector<double>>> counter_samples;
  size_t index = 0;
  for (const json& b : doc["benchmarks"]) {
    // Each field is checked for its type and range, and a bad one named: a mistyped run file is
    // one error line, not an internal error or a silently wrong latency.
    const std::string at = "benchmarks[" + std::to_string(index++) + "]";
    if (!b.is_object() || !b.contains("run_name") || !b.contains("run_type")) {
      throw Error(file, "", at, "entry without run_name/run_type");
    }
    if (!b["run_name"].is_string() || b["run_name"].get<std::string>().empty() ||
        !b["run_type"].is_string()) {
      throw Error(file, "", at, "run_name and run_type must be non-empty strings");
    }
    if (b["run_type"] != "iteration") continue;  // aggregates are recomputed from repetitions
    const std::string name = b["run_name"].get<std::string>();
    const std::string field = "benchmarks." + name;
    if (!run.benchmarks.count(name)) run.order.push_back(name);
    BenchmarkResult& r = run.benchmarks[name];
    if (b.contains("error_occurred") && !b["error_occurred"].is_boolean()) {
      throw Error(file, "", field + ".error_occurred", "expected true or false");
    }
    if (b.value("error_occurred", false)) {
      const json message = b.value("error_message", json("error"));
      r.skipped = message.is_string() ? message.get<std::string>() : message.dump();
      continue;
    }
    if (!b.contains("real_time") || !b["real_time"].is_number() ||
        !(b["real_time"].get<double>() > 0) || !std::isfinite(b["real_time"].get<double>())) {
      throw Error(file, "", field + ".real_time",
                  "expected a positive number, got " +
                      (b.contains("real_time") ? b["real_time"].dump() : std::string("nothing")));
    }
    const json unit = b.value("time_unit", json("ns"));
    const std::optional<double> ms_per_unit =
        unit.is_string() ? MillisecondsPer(unit.get<std::string>()) : std::nullopt;
    if (!ms_per_unit) {
      throw Error(file, "", field + ".time_unit", "expected ns, us, ms or s, got " + unit.dump());
    }
    const double real_time_ms = b["real_time"].get<double>() * *ms_per_unit;
    // A year per iteration is no measurement; a denormal is a forged or corrupted number.
    if (!(real_time_ms < kMaxIterationMs) ||
        std::fpclassify(b["real_time"].get<double>()) == FP_SUBNORMAL) {
      throw Error(file, "", field + ".real_time",
                  "expected a time per iteration between 0 and a year, got " +
                      b["real_time"].dump() + " " + unit.get<std::string>());
    }
    for (const char* count : {"iterations", "repetitions"}) {
      if (b.contains(count) &&
          (!b[count].is_number_integer() || b[count].get<double>() < 0 ||
           (std::string(count) == "iterations" && b[count].get<double>() < 1))) {
        throw Error(file, "", field + "." + count,
                    "expected a whole number above 0, got " + b[count].dump());
      }
    }
    if (b.contains("cpu_time") && (!b["cpu_time"].is_number() || b["cpu_time"].get<double>() < 0 ||
                                   !std::isfinite(b["cpu_time"].get<double>()))) {
      throw Error(file, "", field + ".cpu_time",
                  "expected a number >= 0, got " + b["cpu_time"].dump());
    }
    r.real_time_ms.push_back(real_time_ms);
    if (b.contains("ntpbench") && r.description.is_null()) {
      // Checked now, so that a bad field is named with its file here, not when it is read.
      RunMeasurement check;
      try {
        DecodeDescription(b["ntpbench"], &check);
      } catch (const Error& e) {
        throw Error(file, "", field + "." + e.field(), e.message());
      }
      r.description = b["ntpbench"];
    }
    std::map<std::string, double>& repetition = r.repetitions.emplace_back();
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (it.key().find('.') == std::string::npos) continue;
      // ParseBenchmarkJson's NaN or infinity: ntpbench writes no NaN and no infinity but an
      // infinite error (outputs that were not finite), read back as such.
      const double infinity = std::numeric_limits<double>::infinity();
      if (it.value().is_null() && CounterValueProblem(it.key(), infinity)) {
        throw Error(file, "", field + "." + it.key(), "expected a finite number, got NaN or inf");
      }
      if (!it.value().is_null() && !it.value().is_number()) {  // counters are numbers
        throw Error(file, "", field + "." + it.key(),
                    "expected a number, got " + it.value().dump());
      }
      const double v = it.value().is_null() ? infinity : it.value().get<double>();
      if (const std::optional<std::string> problem = CounterValueProblem(it.key(), v)) {
        throw Error(file, "", field + "." + it.key(), *problem + ", got " + it.value().dump());
      }
      repetition[it.key()] = v;
      if (IsAnalyticCounter(it.key())) {
        r.analytic[it.key()] = v;
      } else {
        counter_samples[name][it.key()].push_back(v);
      }
      if (MetricOfCounter(it.key()) == Metric::kPeakRssBytes) {
        run.peak_rss_bytes = std::max(run.peak_rss_bytes, v);
      }
    }
    // A scenario's p99 per repetition, judged like its time (the counters keep only medians).
    const auto p99 = repetition.find("net.p99_ms");
    if (repetition.count("scenario.kind") && p99 != repetition.end()) {
      r.p99_ms.push_back(p99->second);
    }
  }
  for (auto& [name, counters] : counter_samples) {
    for (auto& [key, values] : counters) run.benchmarks[name].counters[key] = Median(values);
  }
  // Each family's configuration, recorded in the context under its name: the run name up to
  // its arguments (run_key.h).
  for (auto& [name, result] : run.benchmarks) {
    const std::optional<RunKey> key = RunKey::Parse(name);
    if (!key) continue;
    const std::string& family = key->family;
    auto it = run.context.find("ntpbench_config." + family);
    if (it == run.context.end() || !it->is_string()) continue;
    result.config = json::parse(it->get<std::string>(), nullptr, false);
    if (result.config.is_discarded()) {
      throw Error(file, "", "context.ntpbench_config." + family, "not valid JSON");
    }
  }
  return run;
}

RunResults ReadRunResults(const std::string& path) {
  return ParseRunResults(ReadTextFile(path, kMaxResultFileBytes), path);
}

}  // namespace ntpb
