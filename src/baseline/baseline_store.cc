// Reading baselines, writing them atomically.
#include <sys/stat.h>

#include <cmath>
#include <ctime>
#include <optional>

#include "ntpbench/baseline.h"
#include "ntpbench/error.h"
#include "src/common/file_io.h"
#include "src/common/json_field.h"
#include "src/common/json_text.h"

namespace ntpb {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxResultFileBytes = 256u << 20;

json ResultToJson(const BenchmarkResult& r) {
  json j;
  j["real_time_ms"] = r.real_time_ms;
  if (!r.p99_ms.empty()) j["p99_ms"] = r.p99_ms;
  j["analytic"] = r.analytic;
  j["counters"] = r.counters;
  if (!r.skipped.empty()) j["skipped"] = r.skipped;
  return j;
}

BenchmarkResult ResultFromJson(const json& j, const std::string& file, const std::string& name) {
  BenchmarkResult r;
  try {
    r.real_time_ms = j.at("real_time_ms").get<std::vector<double>>();
    if (j.contains("p99_ms")) r.p99_ms = j["p99_ms"].get<std::vector<double>>();
    r.analytic = j.at("analytic").get<std::map<std::string, double>>();
    r.counters = j.at("counters").get<std::map<std::string, double>>();
    if (j.contains("skipped")) r.skipped = j["skipped"].get<std::string>();
  } catch (const json::exception& e) {
    throw Error(file, "", "benchmarks." + name, std::string("malformed entry: ") + e.what());
  }
  for (const std::vector<double>* times : {&r.real_time_ms, &r.p99_ms}) {
    for (double t : *times) {
      if (!(t > 0)) throw Error(file, "", "benchmarks." + name, "latencies must be positive");
    }
  }
  return r;
}

}  // namespace

Baseline ParseBaseline(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // also out_of_range: a number too large
    throw Error(file, "", "", std::string("corrupt or truncated baseline: ") + e.what());
  }
  if (!doc.is_object() || JsonStringOrEmpty(doc, "schema") != "ntpbench-baseline") {
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
  return JsonText(doc, 1) + "\n";
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
