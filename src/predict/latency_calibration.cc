// The calibration file's codec: one JSON object, read strictly (a truncated file, another format
// or version, a mistyped field each get one line naming the file and the field).
#include "ntpbench/latency_calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "ntpbench/error.h"
#include "src/common/file_io.h"
#include "src/common/format_number.h"
#include "src/common/json_field.h"
#include "src/common/json_text.h"

namespace ntpb {
namespace {

constexpr const char* kFormat = "ntpbench-latency-calibration";

nlohmann::json SampleJson(const CalibrationSample& s) {
  const StepFeatures& f = s.features;
  nlohmann::json j = {{"family", f.family},
                      {"detail", f.detail},
                      {"fused", f.fused},
                      {"flops", f.flops},
                      {"lane_fill", f.lane_fill},
                      {"bytes", f.bytes},
                      {"batch", f.batch},
                      {"context_bytes", f.context_bytes},
                      {"context_flops", f.context_flops},
                      {"input_bytes", f.input_bytes},
                      {"output_bytes", f.output_bytes},
                      {"ms", s.ms},
                      {"source", s.source}};
  if (s.core_to_core_ns > 0) j["core_to_core_ns"] = s.core_to_core_ns;
  return j;
}

}  // namespace

std::string DriftNote(const LatencyCalibration& c) {
  const auto most = std::max_element(
      c.probe_drift.begin(), c.probe_drift.end(),
      [](const auto& a, const auto& b) { return std::abs(a.second) < std::abs(b.second); });
  if (most == c.probe_drift.end() || !(std::abs(most->second) > LatencyCalibration::kDriftLimit)) {
    return "";
  }
  return "the machine's speed moved by " + FormatNumber("%.0f", 100 * std::abs(most->second)) +
         "% while " + most->first + " ran";
}

nlohmann::json LatencyCalibrationJson(const LatencyCalibration& c) {
  nlohmann::json samples = nlohmann::json::array();
  for (const CalibrationSample& s : c.samples) samples.push_back(SampleJson(s));
  nlohmann::json references = nlohmann::json::object();
  for (const auto& [probe, r] : c.speed_references) {
    references[probe] = {{"sweep", r.sweep}, {"base", r.base}, {"point", r.point}, {"ms", r.ms}};
  }
  nlohmann::json j = {{"format", kFormat},
                      {"version", LatencyCalibration::kVersion},
                      {"machine_class", c.machine.ToJson()},
                      {"machine", c.machine.human()},
                      {"backend", c.backend},
                      {"precision", c.precision},
                      {"threads", c.threads},
                      {"vector_lanes", c.vector_lanes},
                      {"cache_bytes", c.cache_bytes},
                      {"f32_ridge_flops_per_byte", c.f32_ridge_flops_per_byte},
                      {"backend_choices", c.backend_choices},
                      {"created", c.created},
                      {"probes", c.probes},
                      {"points", c.points},
                      {"passes", c.passes},
                      {"failed_points", c.failed_points},
                      {"unreliable_points", c.unreliable_points},
                      {"probe_drift", c.probe_drift},
                      {"speed_references", references},
                      {"problems", c.problems},
                      {"samples", samples}};
  if (c.core_to_core_ns > 0) j["core_to_core_ns"] = c.core_to_core_ns;
  return j;
}

LatencyCalibration ParseLatencyCalibration(const std::string& text, const std::string& file) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    throw Error(file, "", "", "not a latency calibration: not JSON (truncated?)");
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat) {
    throw Error(file, "", "format",
                std::string("not a latency calibration (expected \"") + kFormat +
                    "\"; `ntpbench calibrate` writes one)");
  }
  const int version = JsonField<int>(j, "version", "", file);
  const std::string precision = JsonField<std::string>(j, "precision", "", file);
  if (version == 2 && precision == "bf16") {
    throw Error(file, "", "version",
                "version 2 bf16 calibration: its dense samples mix ntpbench's bf16 panels with "
                "oneDNN's matmul, this ntpbench keeps them apart (calibrate again with it)");
  }
  if (version != LatencyCalibration::kVersion && version != 2) {
    throw Error(file, "", "version",
                "version " + std::to_string(version) + ", this ntpbench reads version " +
                    std::to_string(LatencyCalibration::kVersion) +
                    " (calibrate again with this ntpbench)");
  }
  LatencyCalibration c;
  c.file = file;
  if (!j.contains("machine_class")) throw Error(file, "", "machine_class", "missing");
  c.machine = MachineClass::FromJson(j["machine_class"], file);
  c.backend = JsonField<std::string>(j, "backend", "", file);
  c.precision = precision;
  c.threads = JsonField<int>(j, "threads", "", file);
  // Absent in calibrations from before the backend was asked: the CPU's.
  c.vector_lanes = j.contains("vector_lanes") ? JsonField<int>(j, "vector_lanes", "", file)
                                              : VectorLanes(c.machine);
  if (c.vector_lanes < 1 || c.vector_lanes > 64) {
    throw Error(file, "", "vector_lanes",
                "must be 1 to 64 (f32 lanes per vector), got " + std::to_string(c.vector_lanes));
  }
  if (j.contains("cache_bytes")) {  // absent in calibrations from before it was recorded
    if (!j["cache_bytes"].is_array()) throw Error(file, "", "cache_bytes", "not a list");
    for (size_t i = 0; i < j["cache_bytes"].size(); ++i) {
      const std::optional<int64_t> bytes = JsonInteger<int64_t>(j["cache_bytes"][i]);
      if (!bytes || *bytes <= 0) {
        throw Error(file, "", "cache_bytes[" + std::to_string(i) + "]",
                    "must be a positive whole number of bytes");
      }
      c.cache_bytes.push_back(*bytes);
    }
  }
  if (j.contains("f32_ridge_flops_per_byte")) {  // absent in calibrations from before it was
    c.f32_ridge_flops_per_byte = JsonField<double>(j, "f32_ridge_flops_per_byte", "", file);
    if (!(c.f32_ridge_flops_per_byte >= 0) || !std::isfinite(c.f32_ridge_flops_per_byte)) {
      throw Error(file, "", "f32_ridge_flops_per_byte",
                  "must be a finite number of FLOPs per byte, 0 or more");
    }
  }
  if (j.contains("backend_choices")) {  // absent in calibrations from before they were recorded
    c.backend_choices =
        JsonField<std::map<std::string, std::string>>(j, "backend_choices", "", file);
  }
  c.created = JsonField<std::string>(j, "created", "", file);
  c.probes = JsonField<std::vector<std::string>>(j, "probes", "", file);
  c.points = JsonField<int>(j, "points", "", file);
  if (j.contains("passes")) {  // absent in calibrations from before: one pass
    c.passes = JsonField<int>(j, "passes", "", file);
    if (c.passes < 1) throw Error(file, "", "passes", "must be 1 or more");
  }
  if (j.contains("core_to_core_ns")) {  // absent in calibrations from before it was measured
    c.core_to_core_ns = JsonField<double>(j, "core_to_core_ns", "", file);
    if (!(c.core_to_core_ns >= 0)) throw Error(file, "", "core_to_core_ns", "must not be negative");
  }
  c.failed_points = JsonField<int>(j, "failed_points", "", file);
  c.unreliable_points = JsonField<int>(j, "unreliable_points", "", file);
  // Absent in calibrations from before it was measured.
  if (j.contains("probe_drift")) {
    c.probe_drift = JsonField<std::map<std::string, double>>(j, "probe_drift", "", file);
  }
  if (j.contains("speed_references")) {  // absent in calibrations from before they were kept
    if (!j["speed_references"].is_object()) {
      throw Error(file, "", "speed_references", "not an object");
    }
    for (const auto& [probe, r] : j["speed_references"].items()) {
      const std::string at = "speed_references." + probe + ".";
      LatencyCalibration::SpeedReference ref;
      ref.sweep = JsonField<std::string>(r, "sweep", at, file);
      ref.base = JsonField<std::vector<std::string>>(r, "base", at, file);
      ref.point = JsonField<std::string>(r, "point", at, file);
      ref.ms = JsonField<double>(r, "ms", at, file);
      if (!(ref.ms > 0)) throw Error(file, "", at + "ms", "must be positive");
      c.speed_references[probe] = ref;
    }
  }
  c.problems = JsonField<std::vector<std::string>>(j, "problems", "", file);
  if (!j.contains("samples") || !j["samples"].is_array()) {
    throw Error(file, "", "samples", "missing or not a list");
  }
  for (size_t i = 0; i < j["samples"].size(); ++i) {
    const nlohmann::json& s = j["samples"][i];
    const std::string at = "samples[" + std::to_string(i) + "].";
    CalibrationSample sample;
    sample.features.family = JsonField<std::string>(s, "family", at, file);
    sample.features.detail = JsonField<std::string>(s, "detail", at, file);
    sample.features.fused = JsonField<std::string>(s, "fused", at, file);
    sample.features.flops = JsonField<double>(s, "flops", at, file);
    if (s.contains("lane_fill")) {  // absent in calibrations from before it was counted
      sample.features.lane_fill = JsonField<double>(s, "lane_fill", at, file);
    }
    sample.features.bytes = JsonField<double>(s, "bytes", at, file);
    sample.features.batch = JsonField<int64_t>(s, "batch", at, file);
    sample.features.context_bytes = JsonField<double>(s, "context_bytes", at, file);
    if (s.contains("context_flops")) {  // absent in calibrations from before it was recorded
      sample.features.context_flops = JsonField<double>(s, "context_flops", at, file);
    }
    sample.features.input_bytes = JsonField<double>(s, "input_bytes", at, file);
    sample.features.output_bytes = JsonField<double>(s, "output_bytes", at, file);
    sample.ms = JsonField<double>(s, "ms", at, file);
    sample.source = JsonField<std::string>(s, "source", at, file);
    if (s.contains("core_to_core_ns")) {  // absent where not measured
      sample.core_to_core_ns = JsonField<double>(s, "core_to_core_ns", at, file);
      if (!(sample.core_to_core_ns >= 0)) {
        throw Error(file, "", at + "core_to_core_ns", "must not be negative");
      }
    }
    if (!(sample.features.lane_fill > 0 && sample.features.lane_fill <= 1)) {
      throw Error(file, "", at + "lane_fill", "must be above 0 and at most 1");
    }
    if (!(sample.ms > 0) || sample.features.flops < 0 || sample.features.bytes < 0) {
      throw Error(file, "", at + "ms",
                  "a sample's time must be positive, its FLOPs and bytes not "
                  "negative");
    }
    c.samples.push_back(sample);
  }
  if (c.samples.empty())
    throw Error(file, "", "samples", "holds no sample: nothing to predict from");
  return c;
}

LatencyCalibration ReadLatencyCalibration(const std::string& path) {
  return ParseLatencyCalibration(ReadTextFile(path, std::size_t{256} << 20), path);
}

void WriteLatencyCalibration(const LatencyCalibration& calibration, const std::string& path) {
  WriteFileAtomically(path, JsonText(LatencyCalibrationJson(calibration), 1) + "\n");
}

}  // namespace ntpb
