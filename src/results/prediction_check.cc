// The prediction check's file: one JSON object, read strictly.
#include "ntpbench/prediction_check.h"

#include "ntpbench/error.h"
#include "src/common/file_io.h"

namespace ntpb {
namespace {

constexpr const char* kFormat = "ntpbench-prediction-check";

template <typename T>
T Field(const nlohmann::json& j, const char* key, const std::string& at, const std::string& file) {
  if (!j.is_object() || !j.contains(key)) throw Error(file, "", at + key, "missing");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(file, "", at + key, "has the wrong type (" + j.at(key).dump() + ")");
  }
}

}  // namespace

std::optional<double> PredictionCheckRow::RelativeError() const {
  if (!measured_ms || !(*measured_ms > 0)) return std::nullopt;
  return predicted_ms / *measured_ms - 1;
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
    } else {
      row["failed"] = r.failed;
    }
    rows.push_back(row);
  }
  return {{"format", kFormat},    {"version", 1},         {"calibration", c.calibration},
          {"machine", c.machine}, {"backend", c.backend}, {"precision", c.precision},
          {"threads", c.threads}, {"results", rows}};
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
  if (Field<int>(j, "version", "", file) != 1) {
    throw Error(file, "", "version", "not version 1: written by another ntpbench");
  }
  PredictionCheck c;
  c.file = file;
  c.calibration = Field<std::string>(j, "calibration", "", file);
  c.machine = Field<std::string>(j, "machine", "", file);
  c.backend = Field<std::string>(j, "backend", "", file);
  c.precision = Field<std::string>(j, "precision", "", file);
  c.threads = Field<int>(j, "threads", "", file);
  if (!j.contains("results") || !j["results"].is_array()) {
    throw Error(file, "", "results", "missing or not a list");
  }
  for (size_t i = 0; i < j["results"].size(); ++i) {
    const nlohmann::json& row = j["results"][i];
    const std::string at = "results[" + std::to_string(i) + "].";
    PredictionCheckRow r;
    r.model = Field<std::string>(row, "model", at, file);
    r.topology = Field<std::string>(row, "topology", at, file);
    r.batch = Field<int64_t>(row, "batch", at, file);
    r.predicted_ms = Field<double>(row, "predicted_ms", at, file);
    r.low_ms = Field<double>(row, "low_ms", at, file);
    r.high_ms = Field<double>(row, "high_ms", at, file);
    r.uncalibrated = Field<int>(row, "uncalibrated", at, file);
    r.dominant = Field<std::string>(row, "dominant", at, file);
    if (row.contains("measured_ms")) {
      r.measured_ms = Field<double>(row, "measured_ms", at, file);
      r.measured_spread = Field<double>(row, "measured_spread", at, file);
    } else {
      r.failed = Field<std::string>(row, "failed", at, file);
    }
    c.rows.push_back(r);
  }
  return c;
}

PredictionCheck ReadPredictionCheck(const std::string& path) {
  return ParsePredictionCheck(ReadTextFile(path, std::size_t{64} << 20), path);
}

}  // namespace ntpb
