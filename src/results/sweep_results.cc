#include "ntpbench/sweep_results.h"

#include <sys/stat.h>

#include <string>
#include <vector>

#include "ntpbench/error.h"
#include "src/common/file_io.h"
#include "src/common/json_field.h"
#include "src/common/json_text.h"

namespace ntpb {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "ntpbench-sweep-results";
constexpr std::size_t kMaxBytes = std::size_t{1} << 30;

json PointJson(const SweepPointResult& p) {
  json j = {{"id", p.id}, {"settings", p.settings}, {"varied", p.varied}, {"base", p.base},
            {"ok", p.ok}, {"seconds", p.seconds}};
  if (!p.reason.empty()) j["reason"] = p.reason;
  if (!p.run.is_null()) j["run"] = p.run;
  return j;
}

SweepPointResult PointOf(const json& j, const std::string& file, size_t index) {
  const std::string where = "points[" + std::to_string(index) + "]";
  try {
    SweepPointResult p;
    p.id = j.at("id").get<std::string>();
    p.settings = j.at("settings").get<std::map<std::string, std::string>>();
    p.varied = j.value("varied", "");
    p.base = j.value("base", false);
    p.ok = j.at("ok").get<bool>();
    p.reason = j.value("reason", "");
    p.seconds = j.value("seconds", 0.0);
    if (j.contains("run")) p.run = j["run"];
    if (p.ok && !p.run.is_object()) throw Error(file, "", where + ".run", "missing");
    return p;
  } catch (const json::exception& e) {
    throw Error(file, "", where, std::string("not a sweep point: ") + e.what());
  }
}

json ToJson(const SweepResults& r) {
  json j = {{"format", kFormat}, {"version", 1}, {"sweep", r.sweep}, {"machine", r.machine}};
  j["points"] = json::array();
  for (const SweepPointResult& p : r.points) j["points"].push_back(PointJson(p));
  return j;
}

}  // namespace

RunResults SweepPointResult::Run(const std::string& file) const {
  if (run.is_null()) throw Error(file, "", id, "the point did not run: " + reason);
  return ParseRunResults(run.dump(), file + " (point " + id + ")");
}

const SweepPointResult* SweepResults::Find(const std::string& id) const {
  for (const SweepPointResult& p : points) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

bool IsSweepResults(const nlohmann::json& doc) {
  return doc.is_object() && doc.value("format", json()) == kFormat;
}

SweepResults ParseSweepResults(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // also a number past double's range (406)
    throw Error(file, "", "", std::string("malformed JSON: ") + e.what());
  }
  if (!IsSweepResults(doc)) {
    throw Error(file, "", "format",
                std::string("not a sweep results file (expected \"") + kFormat + "\")");
  }
  SweepResults r;
  r.file = file;
  r.sweep = doc.value("sweep", json::object());
  if (doc.contains("machine") && !doc["machine"].is_string()) {
    throw Error(file, "", "machine", "expected the machine's description, a string");
  }
  r.machine = JsonStringOrEmpty(doc, "machine");
  if (!doc.contains("points") || !doc["points"].is_array()) {
    throw Error(file, "", "points", "expected a list");
  }
  // What readers look a point up by: its backend and precision, and the sweep's factors.
  std::vector<std::string> required = {"backend", "precision"};
  if (r.sweep.contains("factors") && r.sweep["factors"].is_array()) {
    for (const json& f : r.sweep["factors"]) {
      if (f.is_object() && f.contains("name") && f["name"].is_string()) {
        required.push_back(f["name"].get<std::string>());
      }
    }
  }
  for (size_t i = 0; i < doc["points"].size(); ++i) {
    SweepPointResult p = PointOf(doc["points"][i], file, i);
    for (const std::string& name : required) {
      if (!p.settings.count(name)) {
        throw Error(file, "", "points[" + std::to_string(i) + "].settings." + name, "missing");
      }
    }
    r.points.push_back(std::move(p));
  }
  return r;
}

SweepResults ReadSweepResults(const std::string& path) {
  return ParseSweepResults(ReadTextFile(path, kMaxBytes), path);
}

void RecordSweepPoint(const std::string& path, const nlohmann::json& sweep,
                      const std::string& machine, const SweepPointResult& point) {
  FileLock lock(path);
  SweepResults r;
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists) {
    r.file = path;
    r.sweep = sweep;
    r.machine = machine;
  } else {
    r = ReadSweepResults(path);
    if (r.sweep != sweep) {
      throw Error(path, "", "sweep",
                  "holds the results of another sweep (or of this one before it changed); "
                  "write to another file (-o)");
    }
  }
  bool replaced = false;
  for (SweepPointResult& p : r.points) {
    if (p.id == point.id) {
      p = point;
      replaced = true;
    }
  }
  if (!replaced) r.points.push_back(point);
  WriteFileAtomically(path, JsonText(ToJson(r), 1) + "\n");
}

}  // namespace ntpb
