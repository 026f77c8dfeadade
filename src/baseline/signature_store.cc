// The machine-independent signature of a suite: made from a run, read, written, diffed.
#include <sys/stat.h>

#include <cmath>

#include "ntpbench/error.h"
#include "src/baseline/signature.h"
#include "src/baseline/suite_drift.h"
#include "src/common/file_io.h"
#include "src/common/json_field.h"
#include "src/common/json_text.h"
#include "src/common/utc_time.h"

namespace ntpb {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxSignatureBytes = 64u << 20;

// The backend's plan, where it is the same everywhere (the run's config says so).
constexpr Metric kPortableMemory[] = {Metric::kWorkspaceBytes, Metric::kActivationBytes,
                                      Metric::kAllocs};

// The configuration minus what follows the machine: threads default to its cores.
json PortableConfig(const json& config) {
  if (config.is_null()) return config;
  json out = config;
  if (!out.value("threads_set", false)) out.erase("threads");
  out.erase("threads_set");
  out.erase("topology");  // a path: where the suite was built, not what it measured
  return out;
}

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

Signature SignatureOf(const RunResults& run, const std::string& suite) {
  Signature s;
  s.suite = suite;
  s.created = UtcTimestamp();
  for (const auto& [name, result] : run.benchmarks) {
    if (!result.skipped.empty() || IsCalibrationBenchmark(name)) continue;
    SignatureEntry e;
    e.config = PortableConfig(result.config);
    e.metrics = result.analytic;
    if (result.config.is_object() && result.config.value("portable_memory_plan", false)) {
      const RunMeasurement measurement = result.Measurement();
      for (Metric m : kPortableMemory) {
        if (const std::optional<double> v = MetricValue(measurement, m)) {
          e.metrics[MetricName(m)] = *v;
        }
      }
    }
    s.benchmarks[name] = e;
  }
  return s;
}

std::string SignaturePath(const std::string& baseline_dir, const std::string& suite) {
  return baseline_dir + "/any-machine/" + suite + ".json";
}

Signature ParseSignature(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // also out_of_range: a number too large
    throw Error(file, "", "", std::string("corrupt or truncated signature file: ") + e.what());
  }
  if (!doc.is_object() || JsonStringOrEmpty(doc, "schema") != "ntpbench-signature") {
    throw Error(file, "", "schema",
                "not an ntpbench signature file (expected \"schema\": \"ntpbench-signature\")");
  }
  if (!doc.contains("version") || doc["version"] != kSignatureSchemaVersion) {
    throw Error(file, "", "version",
                "unsupported version (this ntpbench reads version " +
                    std::to_string(kSignatureSchemaVersion) + ")");
  }
  Signature s;
  s.file = file;
  try {
    s.suite = doc.at("suite").get<std::string>();
    s.created = doc.value("created", std::string());
    for (const auto& [name, entry] : doc.at("benchmarks").items()) {
      SignatureEntry e;
      e.config = entry.value("config", json());
      e.metrics = entry.at("metrics").get<std::map<std::string, double>>();
      s.benchmarks[name] = e;
    }
  } catch (const json::exception& e) {
    throw Error(file, "", "benchmarks", std::string("malformed signature file: ") + e.what());
  }
  return s;
}

Signature ReadSignature(const std::string& path) {
  return ParseSignature(ReadTextFile(path, kMaxSignatureBytes), path);
}

std::string SerializeSignature(const Signature& s) {
  nlohmann::ordered_json doc;
  doc["schema"] = "ntpbench-signature";
  doc["version"] = kSignatureSchemaVersion;
  doc["suite"] = s.suite;
  doc["created"] = s.created;
  doc["note"] =
      "Exact on every machine: checked whether or not a latency baseline exists for the "
      "machine class (baselines/<class>/<suite>.json).";
  json benchmarks = json::object();
  for (const auto& [name, e] : s.benchmarks) {
    benchmarks[name] = {{"config", e.config}, {"metrics", e.metrics}};
  }
  doc["benchmarks"] = benchmarks;
  return JsonText(doc, 1) + "\n";
}

void WriteSignature(const Signature& signature, const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos) mkdir(path.substr(0, slash).c_str(), 0755);
  WriteFileAtomically(path, SerializeSignature(signature));
}

std::vector<std::string> SignatureDiff(const Signature& before, const Signature& after) {
  std::vector<std::string> lines;
  for (const auto& [name, e] : after.benchmarks) {
    auto old = before.benchmarks.find(name);
    if (old == before.benchmarks.end()) {
      lines.push_back("+ " + name + " (new)");
      continue;
    }
    if (old->second.config != e.config) {
      lines.push_back("  " + name + ": config " + old->second.config.dump() + " -> " +
                      e.config.dump());
    }
    for (const auto& [metric, value] : e.metrics) {
      auto was = old->second.metrics.find(metric);
      if (was == old->second.metrics.end()) {
        lines.push_back("  " + name + ": " + metric + " " + Number(value) + " (new metric)");
      } else if (was->second != value) {
        lines.push_back("  " + name + ": " + metric + " " + Number(was->second) + " -> " +
                        Number(value));
      }
    }
    for (const auto& [metric, value] : old->second.metrics) {
      if (!e.metrics.count(metric)) {
        lines.push_back("  " + name + ": " + metric + " " + Number(value) + " (removed metric)");
      }
    }
  }
  for (const auto& [name, e] : before.benchmarks) {
    if (!after.benchmarks.count(name)) lines.push_back("- " + name + " (removed)");
  }
  return lines;
}

}  // namespace ntpb
