// Sweep files: JSON, and NTP-style XML read into the same JSON and checked by one parser.
#include <cmath>
#include <pugixml.hpp>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/sweep.h"
#include "src/common/file_io.h"
#include "src/common/printable.h"
#include "src/topology/xml_text.h"

namespace ntpb {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxSweepFileBytes = 4 << 20;

std::string Folder(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// A value as text: numbers as integers where they are whole ("2" not "2.0").
std::string ValueText(const json& v, const std::string& file, const std::string& field) {
  if (v.is_string()) {
    if (v.get<std::string>().empty()) throw Error(file, "", field, "empty value");
    return v.get<std::string>();
  }
  if (v.is_number_integer()) return v.dump();
  // Whole numbers as exact integers (2^53 and beyond are not; casting them could be undefined).
  if (v.is_number_float() && std::abs(v.get<double>()) < 9007199254740992.0 &&
      v.get<double>() == std::floor(v.get<double>())) {
    return std::to_string(static_cast<int64_t>(v.get<double>()));
  }
  throw Error(file, "", field, "expected an integer or a string, got " + v.dump());
}

class SweepParser {
 public:
  explicit SweepParser(std::string file) : file_(std::move(file)) {}

  Sweep Parse(const json& doc) {
    if (!doc.is_object()) Fail("", "a sweep is a JSON object");
    if (doc.contains("layers") && !doc.contains("factors")) {
      Fail("",
           "this is a topology, not a sweep (a sweep names its topology and its factors: "
           "see sweeps/*.json); `ntpbench run` runs a topology");
    }
    static const std::set<std::string> kFields = {
        "format",  "version", "name",   "description", "topology",   "base",
        "factors", "mode",    "points", "min_time",    "repetitions"};
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (!kFields.count(it.key())) {
        Fail(it.key(),
             "unknown field (expected format, version, name, description, topology, base, "
             "factors, mode, points, min_time, repetitions)");
      }
    }
    if (doc.contains("format") && doc["format"] != "ntpbench-sweep") {
      Fail("format", "expected \"ntpbench-sweep\", got " + doc["format"].dump());
    }
    if (doc.contains("version") && doc["version"] != 1) {
      Fail("version", "this ntpbench reads version 1, got " + doc["version"].dump());
    }
    Sweep s;
    s.file = file_;
    s.name = String(doc, "name", true);
    // The name heads every table and is the results file's default name.
    if (s.name.empty() || s.name.size() > 200 || s.name.find('/') != std::string::npos ||
        Printable(s.name) != s.name) {
      Fail("name", "1 to 200 characters without '/' or control characters, got '" + s.name + "'");
    }
    s.description = String(doc, "description", false);
    s.topology = String(doc, "topology", true);
    if (s.topology.empty()) Fail("topology", "empty path");
    s.topology_path = s.topology.front() == '/' ? s.topology : Folder(file_) + s.topology;
    if (doc.contains("base")) {
      if (!doc["base"].is_object()) Fail("base", "expected an object of settings");
      for (auto it = doc["base"].begin(); it != doc["base"].end(); ++it) {
        s.base[it.key()] = ValueText(it.value(), file_, "base." + it.key());
      }
    }
    if (!doc.contains("factors") || !doc["factors"].is_array() || doc["factors"].empty()) {
      Fail("factors", "expected a non-empty list of {\"name\", \"values\"}");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < doc["factors"].size(); ++i) {
      s.factors.push_back(Factor(doc["factors"][i], "factors[" + std::to_string(i) + "]"));
      if (!names.insert(s.factors.back().name).second) {
        Fail("factors[" + std::to_string(i) + "].name",
             "factor '" + s.factors.back().name + "' is given twice");
      }
    }
    const std::string mode = doc.contains("mode") ? String(doc, "mode", true) : "one-at-a-time";
    if (mode == "one-at-a-time") {
      s.mode = SweepMode::kOneAtATime;
    } else if (mode == "grid") {
      s.mode = SweepMode::kGrid;
    } else if (mode == "points") {
      s.mode = SweepMode::kPoints;
    } else {
      Fail("mode", "expected one-at-a-time, grid or points, got '" + mode + "'");
    }
    if (doc.contains("points")) {
      if (s.mode != SweepMode::kPoints) Fail("points", "points are read with \"mode\": \"points\"");
      if (!doc["points"].is_array()) Fail("points", "expected a list of {factor: value}");
      for (size_t i = 0; i < doc["points"].size(); ++i) {
        const std::string where = "points[" + std::to_string(i) + "]";
        const json& p = doc["points"][i];
        if (!p.is_object() || p.empty()) Fail(where, "expected an object {factor: value, ...}");
        std::map<std::string, std::string> point;
        for (auto it = p.begin(); it != p.end(); ++it) {
          if (!names.count(it.key())) {
            Fail(where + "." + it.key(), "not one of the factors");
          }
          point[it.key()] = ValueText(it.value(), file_, where + "." + it.key());
        }
        s.points.push_back(point);
      }
    }
    if (s.mode == SweepMode::kPoints && s.points.empty()) {
      Fail("points", "\"mode\": \"points\" needs a non-empty list of points");
    }
    if (doc.contains("min_time")) {
      if (!doc["min_time"].is_number() || doc["min_time"].get<double>() <= 0 ||
          doc["min_time"].get<double>() > 600) {
        Fail("min_time", "expected seconds in (0, 600], got " + doc["min_time"].dump());
      }
      s.min_time = doc["min_time"].get<double>();
    }
    if (doc.contains("repetitions")) {
      if (!doc["repetitions"].is_number_integer() || doc["repetitions"].get<int64_t>() < 1 ||
          doc["repetitions"].get<int64_t>() > 100) {
        Fail("repetitions", "expected an integer 1 to 100, got " + doc["repetitions"].dump());
      }
      s.repetitions = doc["repetitions"].get<int>();
    }
    return s;
  }

 private:
  [[noreturn]] void Fail(const std::string& field, const std::string& message) const {
    throw Error(file_, "", field, message);
  }

  std::string String(const json& obj, const std::string& key, bool required) const {
    if (!obj.contains(key)) {
      if (required) Fail(key, "missing required field");
      return "";
    }
    if (!obj[key].is_string()) Fail(key, "expected a string, got " + obj[key].dump());
    return obj[key].get<std::string>();
  }

  SweepFactor Factor(const json& v, const std::string& where) const {
    if (!v.is_object()) Fail(where, "expected {\"name\", \"values\"[, \"labels\"]}");
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key() != "name" && it.key() != "values" && it.key() != "labels") {
        Fail(where + "." + it.key(), "unknown factor field (expected name, values, labels)");
      }
    }
    SweepFactor f;
    if (!v.contains("name") || !v["name"].is_string() || v["name"].get<std::string>().empty()) {
      Fail(where + ".name", "expected the name of a setting or a topology param");
    }
    f.name = v["name"].get<std::string>();
    if (!v.contains("values") || !v["values"].is_array() || v["values"].empty()) {
      Fail(where + ".values", "factor '" + f.name + "' needs a non-empty list of values");
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < v["values"].size(); ++i) {
      const std::string field = where + ".values[" + std::to_string(i) + "]";
      f.values.push_back(ValueText(v["values"][i], file_, field));
      if (!seen.insert(f.values.back()).second) {
        Fail(field, "value " + f.values.back() + " of factor '" + f.name + "' is given twice");
      }
    }
    if (v.contains("labels")) {
      if (!v["labels"].is_array() || v["labels"].size() != f.values.size()) {
        Fail(where + ".labels",
             "expected one label per value (" + std::to_string(f.values.size()) + ")");
      }
      for (const json& l : v["labels"]) {
        if (!l.is_string()) Fail(where + ".labels", "expected strings, got " + l.dump());
        f.labels.push_back(l.get<std::string>());
      }
    }
    return f;
  }

  std::string file_;
};

// <sweep name= topology= mode= min_time= repetitions=> with <description>, <base name= value=/>,
// <factor name= values="1, 3, 5" labels="a, b, c"/> and <point><set name= value=/></point>;
// checked as text first like topology XML (xml_text.h), then by the one JSON parser.
json XmlToJson(const std::string& text, const std::string& file) {
  if (const std::string problem = XmlTextProblem(text); !problem.empty()) {
    throw Error(file, "", "", problem);
  }
  pugi::xml_document doc;
  const pugi::xml_parse_result ok = doc.load_buffer(text.data(), text.size());
  if (!ok) throw Error(file, "", "", std::string("malformed XML: ") + ok.description());
  const pugi::xml_node root = doc.document_element();
  if (std::string(root.name()) != "sweep") {
    throw Error(file, "", root.name(), "expected a <sweep> root element");
  }
  // An element's attribute by name: required ones must be there, and no others may be.
  auto attributes = [&](const pugi::xml_node& n, std::initializer_list<const char*> required,
                        std::initializer_list<const char*> optional) {
    for (const pugi::xml_attribute& a : n.attributes()) {
      bool known = false;
      for (const char* k : required) known = known || std::string(k) == a.name();
      for (const char* k : optional) known = known || std::string(k) == a.name();
      if (!known) {
        throw Error(file, "", a.name(), "unknown attribute of <" + std::string(n.name()) + ">");
      }
    }
    for (const char* k : required) {
      if (!n.attribute(k)) {
        throw Error(file, "", k, "missing required attribute of <" + std::string(n.name()) + ">");
      }
    }
  };
  json out = json::object();
  for (const pugi::xml_attribute& a : root.attributes()) {
    const std::string name = a.name();
    // Numbers where the JSON form has numbers; anything else the parser names as unknown.
    if (name == "min_time") {
      out[name] = a.as_double();
    } else if (name == "repetitions" || name == "version") {
      out[name] = IntegerOrText(Trim(a.value()));
    } else {
      out[name] = a.value();
    }
  }
  for (const pugi::xml_node& n : root.children()) {
    if (n.type() != pugi::node_element) continue;
    const std::string tag = n.name();
    if (tag == "description") {
      out["description"] = Trim(n.text().as_string());
    } else if (tag == "base") {
      attributes(n, {"name", "value"}, {});
      out["base"][n.attribute("name").value()] = IntegerOrText(Trim(n.attribute("value").value()));
    } else if (tag == "factor") {
      attributes(n, {"name", "values"}, {"labels"});
      json f = {{"name", n.attribute("name").value()}, {"values", json::array()}};
      for (const std::string& v : SplitList(n.attribute("values").value())) {
        f["values"].push_back(IntegerOrText(v));
      }
      if (n.attribute("labels")) f["labels"] = SplitList(n.attribute("labels").value());
      out["factors"].push_back(f);
    } else if (tag == "point") {
      json p = json::object();
      for (const pugi::xml_node& set : n.children("set")) {
        attributes(set, {"name", "value"}, {});
        p[set.attribute("name").value()] = IntegerOrText(Trim(set.attribute("value").value()));
      }
      out["points"].push_back(p);
    } else {
      throw Error(file, "", tag,
                  "unknown element <" + tag + "> (expected description, base, factor, point)");
    }
  }
  return out;
}

}  // namespace

std::string SweepFactor::LabelOf(const std::string& value) const {
  for (size_t i = 0; i < values.size() && i < labels.size(); ++i) {
    if (values[i] == value) return labels[i];
  }
  return "";
}

const char* SweepModeName(SweepMode mode) {
  switch (mode) {
    case SweepMode::kOneAtATime:
      return "one-at-a-time";
    case SweepMode::kGrid:
      return "grid";
    case SweepMode::kPoints:
      return "points";
  }
  return "?";
}

nlohmann::json Sweep::ToJson() const {
  json j = {{"format", "ntpbench-sweep"},
            {"version", 1},
            {"name", name},
            {"topology", topology},
            {"base", base},
            {"mode", SweepModeName(mode)},
            {"min_time", min_time},
            {"repetitions", repetitions}};
  if (!description.empty()) j["description"] = description;
  for (const SweepFactor& f : factors) {
    json fj = {{"name", f.name}, {"values", f.values}};
    if (!f.labels.empty()) fj["labels"] = f.labels;
    j["factors"].push_back(fj);
  }
  if (!points.empty()) j["points"] = points;
  return j;
}

Sweep ParseSweepJson(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // also a number past double's range (406)
    throw Error(file, "", "", std::string("malformed JSON: ") + e.what());
  }
  return SweepParser(file).Parse(doc);
}

Sweep ParseSweepXml(const std::string& text, const std::string& file) {
  return SweepParser(file).Parse(XmlToJson(text, file));
}

Sweep ReadSweepFile(const std::string& path) {
  const std::string text = ReadTextFile(path, kMaxSweepFileBytes);
  const bool xml = path.size() > 4 && path.compare(path.size() - 4, 4, ".xml") == 0;
  return xml ? ParseSweepXml(text, path) : ParseSweepJson(text, path);
}

}  // namespace ntpb
