// Reading runs and baselines, writing baselines atomically.
#include <sys/stat.h>

#include <cmath>
#include <ctime>
#include <optional>

#include "ntpbench/baseline.h"
#include "ntpbench/error.h"
#include "src/baseline/statistics.h"
#include "src/common/file_io.h"
#include "src/results/benchmark_json.h"

namespace ntpb {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxResultFileBytes = 256u << 20;

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

json ResultToJson(const BenchmarkResult& r) {
  json j;
  j["real_time_ms"] = r.real_time_ms;
  j["analytic"] = r.analytic;
  j["counters"] = r.counters;
  if (!r.skipped.empty()) j["skipped"] = r.skipped;
  return j;
}

BenchmarkResult ResultFromJson(const json& j, const std::string& file, const std::string& name) {
  BenchmarkResult r;
  try {
    r.real_time_ms = j.at("real_time_ms").get<std::vector<double>>();
    r.analytic = j.at("analytic").get<std::map<std::string, double>>();
    r.counters = j.at("counters").get<std::map<std::string, double>>();
    if (j.contains("skipped")) r.skipped = j["skipped"].get<std::string>();
  } catch (const json::exception& e) {
    throw Error(file, "", "benchmarks." + name, std::string("malformed entry: ") + e.what());
  }
  for (double t : r.real_time_ms) {
    if (!(t > 0)) throw Error(file, "", "benchmarks." + name, "latencies must be positive");
  }
  return r;
}

}  // namespace

RunMeasurement BenchmarkResult::Measurement() const {
  std::map<std::string, double> all = counters;
  all.insert(analytic.begin(), analytic.end());
  return DecodeCounters(all);
}

RunResults ParseRunResults(const std::string& text, const std::string& file) {
  const json doc = ParseBenchmarkJson(text, file);
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw Error(file, "", "benchmarks", "not Google Benchmark JSON (no \"benchmarks\" array)");
  }
  RunResults run;
  run.file = file;
  if (doc.contains("context") && doc["context"].is_object()) run.context = doc["context"];
  if (run.context.contains("ntpbench_machine_json")) {
    if (!run.context["ntpbench_machine_json"].is_string()) {
      throw Error(file, "", "context.ntpbench_machine_json", "expected a string of JSON");
    }
    run.machine = MachineClass::FromJson(
        ParseBenchmarkJson(run.context["ntpbench_machine_json"].get<std::string>(), file), file);
    run.has_machine = true;
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
    r.real_time_ms.push_back(b["real_time"].get<double>() * *ms_per_unit);
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (it.key().find('.') == std::string::npos || it.value().is_null()) continue;
      if (!it.value().is_number()) {  // ntpbench's counters are numbers (NaN was made null)
        throw Error(file, "", field + "." + it.key(),
                    "expected a number, got " + it.value().dump());
      }
      const double v = it.value().get<double>();
      if (IsAnalyticCounter(it.key())) {
        r.analytic[it.key()] = v;
      } else {
        counter_samples[name][it.key()].push_back(v);
      }
      if (MetricOfCounter(it.key()) == Metric::kPeakRssBytes) {
        run.peak_rss_bytes = std::max(run.peak_rss_bytes, v);
      }
    }
  }
  for (auto& [name, counters] : counter_samples) {
    for (auto& [key, values] : counters) run.benchmarks[name].counters[key] = Median(values);
  }
  // Each family's configuration, recorded in the context under its name (the run name up to
  // "/batch:").
  for (auto& [name, result] : run.benchmarks) {
    const std::string family = name.substr(0, name.find("/batch:"));
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

Baseline ParseBaseline(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // also out_of_range: a number too large
    throw Error(file, "", "", std::string("corrupt or truncated baseline: ") + e.what());
  }
  if (!doc.is_object() || doc.value("schema", std::string()) != "ntpbench-baseline") {
    throw Error(file, "", "schema",
                "not an ntpbench baseline (expected \"schema\": \"ntpbench-baseline\")");
  }
  if (!doc.contains("version") || !doc["version"].is_number_integer() ||
      doc["version"].get<int>() != kBaselineSchemaVersion) {
    throw Error(file, "", "version",
                "unsupported baseline version " +
                    (doc.contains("version") ? doc["version"].dump() : "(none)") +
                    " (this ntpbench reads version " + std::to_string(kBaselineSchemaVersion) +
                    ")");
  }
  Baseline b;
  b.file = file;
  // Each field by its type and range, named when wrong (a hand-edited baseline is common).
  auto field = [&](const char* name, auto read) {
    try {
      read();
    } catch (const json::exception& e) {
      throw Error(file, "", name, std::string("malformed baseline: ") + e.what());
    }
  };
  field("suite", [&] { b.suite = doc.at("suite").get<std::string>(); });
  field("created", [&] { b.created = doc.value("created", std::string()); });
  field("context", [&] { b.context = doc.value("context", json::object()); });
  field("peak_rss_bytes", [&] { b.peak_rss_bytes = doc.value("peak_rss_bytes", 0.0); });
  if (!(b.peak_rss_bytes >= 0) || !std::isfinite(b.peak_rss_bytes)) {
    throw Error(file, "", "peak_rss_bytes", "must be a non-negative number");
  }
  field("thresholds", [&] {
    if (doc.contains("thresholds")) {
      b.thresholds = doc["thresholds"].get<std::map<std::string, double>>();
    }
  });
  for (const auto& [name, threshold] : b.thresholds) {
    // A fraction: 0.05 is 5%, 5 would be 500%. Noise thresholds are capped at 1 when written.
    if (!(threshold > 0 && threshold <= 1)) {
      throw Error(file, "", "thresholds." + name,
                  "expected a fraction above 0 and at most 1, got " + json(threshold).dump());
    }
  }
  if (!doc.contains("machine_class")) throw Error(file, "", "machine_class", "missing");
  b.machine = MachineClass::FromJson(doc["machine_class"], file);
  if (!doc.contains("benchmarks") || !doc["benchmarks"].is_object()) {
    throw Error(file, "", "benchmarks", "missing or not an object");
  }
  for (auto it = doc["benchmarks"].begin(); it != doc["benchmarks"].end(); ++it) {
    b.benchmarks[it.key()] = ResultFromJson(it.value(), file, it.key());
  }
  return b;
}

Baseline ReadBaseline(const std::string& path) {
  return ParseBaseline(ReadTextFile(path, kMaxResultFileBytes), path);
}

std::string SerializeBaseline(const Baseline& b) {
  nlohmann::ordered_json doc;
  doc["schema"] = "ntpbench-baseline";
  doc["version"] = kBaselineSchemaVersion;
  doc["suite"] = b.suite;
  doc["machine_class"] = b.machine.ToJson();
  doc["machine"] = b.machine.human();
  doc["created"] = b.created;
  if (!b.thresholds.empty()) doc["thresholds"] = b.thresholds;
  doc["peak_rss_bytes"] = b.peak_rss_bytes;
  doc["context"] = b.context;
  json benchmarks = json::object();
  for (const auto& [name, r] : b.benchmarks) benchmarks[name] = ResultToJson(r);
  doc["benchmarks"] = benchmarks;
  return doc.dump(1) + "\n";
}

void WriteBaseline(const Baseline& baseline, const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos) {
    // Create the machine-class folder (and its parent) when needed.
    const std::string dir = path.substr(0, slash);
    const size_t parent = dir.rfind('/');
    if (parent != std::string::npos) mkdir(dir.substr(0, parent).c_str(), 0755);
    mkdir(dir.c_str(), 0755);
  }
  WriteFileAtomically(path, SerializeBaseline(baseline));
}

std::string BaselinePath(const std::string& dir, const MachineClass& machine,
                         const std::string& suite) {
  return dir + "/" + machine.id() + "/" + suite + ".json";
}

}  // namespace ntpb
