// The prediction check's file: one JSON object, read strictly.
#include "ntpbench/prediction_check.h"

#include <algorithm>
#include <cmath>

#include "ntpbench/error.h"
#include "src/common/file_io.h"
#include "src/common/json_field.h"
#include "src/common/statistics.h"

namespace ntpb {
namespace {

constexpr const char* kFormat = "ntpbench-prediction-check";

}  // namespace

std::optional<double> PredictionCheckRow::RelativeError() const {
  if (!measured_ms || !(*measured_ms > 0)) return std::nullopt;
  return predicted_ms / *measured_ms - 1;
}

std::optional<double> PredictionCheck::MedianMachineChange() const {
  if (machine_change.empty()) return std::nullopt;
  std::vector<double> changes;
  for (const auto& [probe, change] : machine_change) changes.push_back(change);
  return Median(changes);
}

std::vector<double> PredictionCheck::ErrorMagnitudes(double scale) const {
  std::vector<double> magnitudes;
  for (const PredictionCheckRow& r : rows) {
    if (r.RelativeError())
      magnitudes.push_back(std::fabs(r.predicted_ms * scale / *r.measured_ms - 1));
  }
  return magnitudes;
}

int PredictionCheck::CountWithin(double bound, double scale) const {
  const std::vector<double> magnitudes = ErrorMagnitudes(scale);
  return static_cast<int>(std::count_if(magnitudes.begin(), magnitudes.end(),
                                        [&](double e) { return e <= bound + 1e-12; }));
}

nlohmann::json PredictionCheckJson(const PredictionCheck& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const PredictionCheckRow& r : c.rows) {
    nlohmann::json row = {{"model", r.model},
                          {"topology", r.topology},
                          {"batch", r.batch},
                          {"predicted_ms", r.predicted_ms},
                          {"low_ms", r.low_ms},
                          {"high_ms", r.high_ms},
                          {"uncalibrated", r.uncalibrated},
                          {"dominant", r.dominant}};
    if (r.measured_ms) {
      row["measured_ms"] = *r.measured_ms;
      row["measured_spread"] = r.measured_spread;
      row["error"] = *r.RelativeError();
      if (r.placed_apart) row["placed_apart"] = true;
    } else {
      row["failed"] = r.failed;
    }
    if (!r.passes.empty()) {
      nlohmann::json passes = nlohmann::json::array();
      for (const PredictionCheckRow::Pass& p : r.passes) {
        passes.push_back({{"ms", p.ms}, {"core_to_core_ns", p.core_to_core_ns}});
      }
      row["passes"] = passes;
    }
    rows.push_back(row);
  }
  nlohmann::json j = {{"format", kFormat},
                      {"version", 1},
                      {"calibration", c.calibration},
                      {"machine", c.machine},
                      {"backend", c.backend},
                      {"precision", c.precision},
                      {"threads", c.threads},
                      {"measured", c.fastest_pass ? "fastest pass" : "median pass"},
                      {"results", rows},
                      {"machine_change", c.machine_change}};
  if (c.core_to_core_ns > 0) j["core_to_core_ns"] = c.core_to_core_ns;
  return j;
}

bool IsPredictionCheck(const nlohmann::json& doc) {
  return doc.is_object() && doc.value("format", nlohmann::json()) == kFormat;
}

PredictionCheck ParsePredictionCheck(const std::string& text, const std::string& file) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw Error(file, "", "", "not JSON (truncated?)");
  if (!IsPredictionCheck(j)) {
    throw Error(file, "", "format",
                std::string("not a prediction check (expected \"") + kFormat + "\")");
  }
  if (JsonField<int>(j, "version", "", file) != 1) {
    throw Error(file, "", "version", "not version 1: written by another ntpbench");
  }
  PredictionCheck c;
  c.file = file;
  c.calibration = JsonField<std::string>(j, "calibration", "", file);
  c.machine = JsonField<std::string>(j, "machine", "", file);
  c.backend = JsonField<std::string>(j, "backend", "", file);
  c.precision = JsonField<std::string>(j, "precision", "", file);
  c.threads = JsonField<int>(j, "threads", "", file);
  if (j.contains("measured")) {  // absent in checks from before: the median pass
    const std::string measured = JsonField<std::string>(j, "measured", "", file);
    if (measured != "fastest pass" && measured != "median pass") {
      throw Error(file, "", "measured",
                  "expected \"fastest pass\" or \"median pass\", got \"" + measured + "\"");
    }
    c.fastest_pass = measured == "fastest pass";
  }
  if (j.contains("machine_change")) {  // absent in checks from before it was measured
    c.machine_change = JsonField<std::map<std::string, double>>(j, "machine_change", "", file);
  }
  if (j.contains("core_to_core_ns")) {  // absent in checks from before it was measured
    c.core_to_core_ns = JsonField<double>(j, "core_to_core_ns", "", file);
  }
  if (!j.contains("results") || !j["results"].is_array()) {
    throw Error(file, "", "results", "missing or not a list");
  }
  for (size_t i = 0; i < j["results"].size(); ++i) {
    const nlohmann::json& row = j["results"][i];
    const std::string at = "results[" + std::to_string(i) + "].";
    PredictionCheckRow r;
    r.model = JsonField<std::string>(row, "model", at, file);
    r.topology = JsonField<std::string>(row, "topology", at, file);
    r.batch = JsonField<int64_t>(row, "batch", at, file);
    r.predicted_ms = JsonField<double>(row, "predicted_ms", at, file);
    r.low_ms = JsonField<double>(row, "low_ms", at, file);
    r.high_ms = JsonField<double>(row, "high_ms", at, file);
    r.uncalibrated = JsonField<int>(row, "uncalibrated", at, file);
    r.dominant = JsonField<std::string>(row, "dominant", at, file);
    if (row.contains("measured_ms")) {
      r.measured_ms = JsonField<double>(row, "measured_ms", at, file);
      r.measured_spread = JsonField<double>(row, "measured_spread", at, file);
      if (row.contains("placed_apart")) {
        r.placed_apart = JsonField<bool>(row, "placed_apart", at, file);
      }
    } else {
      r.failed = JsonField<std::string>(row, "failed", at, file);
    }
    if (row.contains("passes")) {  // absent in checks from before they were kept
      if (!row["passes"].is_array()) throw Error(file, "", at + "passes", "not a list");
      for (size_t k = 0; k < row["passes"].size(); ++k) {
        const std::string pass_at = at + "passes[" + std::to_string(k) + "].";
        r.passes.push_back({JsonField<double>(row["passes"][k], "ms", pass_at, file),
                            JsonField<double>(row["passes"][k], "core_to_core_ns", pass_at, file)});
      }
    }
    c.rows.push_back(r);
  }
  return c;
}

PredictionCheck ReadPredictionCheck(const std::string& path) {
  return ParsePredictionCheck(ReadTextFile(path, std::size_t{64} << 20), path);
}

}  // namespace ntpb
