// Reads the JSON topology format and checks its structure against the op catalogue.
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "src/common/file_io.h"
#include "src/common/nearest_name.h"
#include "src/topology/op_catalog.h"

namespace ntpb {
namespace {

using nlohmann::json;

const char* TypeName(const json& v) { return v.is_null() ? "null" : v.type_name(); }

// For error messages: never throws, also on strings that are not UTF-8 (the XML reader's).
std::string Dump(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Topology Read(const json& doc) {
    if (!doc.is_object()) Fail("", "", std::string("expected a JSON object, got ") + TypeName(doc));
    static const std::set<std::string> kKeys = {"format",      "version", "name",
                                                "description", "params",  "inputs",
                                                "layers",      "outputs", "markers"};
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (!kKeys.count(it.key())) {
        Fail("", it.key(),
             "unknown top-level field (expected one of: name, description, params, "
             "inputs, layers, outputs, markers)");
      }
    }
    if (doc.contains("version") && doc["version"] != 1) {
      Fail("", "version", "unsupported format version " + Dump(doc["version"]) + " (expected 1)");
    }
    Topology t;
    t.file = file_;
    t.name = String(doc, "", "name", true);
    t.description = String(doc, "", "description", false);
    if (doc.contains("params")) {
      const json& params = doc["params"];
      if (!params.is_object()) Fail("", "params", std::string("expected an object of integers"));
      for (auto it = params.begin(); it != params.end(); ++it) {
        if (!it.value().is_number_integer()) {
          Fail("", "params." + it.key(),
               std::string("expected an integer, got ") + TypeName(it.value()));
        }
        CheckIdentifier(it.key(), "", "params." + it.key());
        t.params[it.key()] = it.value().get<int64_t>();
      }
    }
    const json& inputs = Array(doc, "", "inputs", true);
    if (inputs.empty()) Fail("", "inputs", "a topology needs at least one input");
    for (size_t i = 0; i < inputs.size(); ++i) t.inputs.push_back(ReadInput(inputs[i], i));
    const json& layers = Array(doc, "", "layers", true);
    if (layers.empty()) Fail("", "layers", "a topology needs at least one layer");
    std::set<std::string> names;
    std::string previous = t.inputs.front().name;
    for (size_t i = 0; i < layers.size(); ++i) {
      Layer layer = ReadLayer(layers[i], i, previous);
      if (!names.insert(layer.name).second) Fail(layer.name, "name", "duplicate layer name");
      previous = layer.outputs.front();
      t.layers.push_back(std::move(layer));
    }
    if (doc.contains("outputs")) {
      t.outputs = Strings(doc["outputs"], "", "outputs");
      if (t.outputs.empty()) Fail("", "outputs", "a topology needs at least one output");
    } else {
      t.outputs = {t.layers.back().outputs.front()};
    }
    if (doc.contains("markers")) {
      const json& markers = Array(doc, "", "markers", false);
      for (size_t i = 0; i < markers.size(); ++i) t.markers.push_back(ReadMarker(markers[i], i));
    }
    return t;
  }

 private:
  [[noreturn]] void Fail(const std::string& layer, const std::string& field,
                         const std::string& message) const {
    throw Error(file_, layer, field, message);
  }

  std::string String(const json& obj, const std::string& layer, const std::string& key,
                     bool required) const {
    if (!obj.contains(key)) {
      if (required) Fail(layer, key, "missing required field");
      return "";
    }
    if (!obj[key].is_string()) {
      Fail(layer, key, std::string("expected a string, got ") + TypeName(obj[key]));
    }
    return obj[key].get<std::string>();
  }

  const json& Array(const json& obj, const std::string& layer, const std::string& key,
                    bool required) const {
    static const json kEmpty = json::array();
    if (!obj.contains(key)) {
      if (required) Fail(layer, key, "missing required field");
      return kEmpty;
    }
    if (!obj[key].is_array()) {
      Fail(layer, key, std::string("expected an array, got ") + TypeName(obj[key]));
    }
    return obj[key];
  }

  std::vector<std::string> Strings(const json& v, const std::string& layer,
                                   const std::string& field) const {
    if (!v.is_array()) Fail(layer, field, std::string("expected an array of tensor names"));
    std::vector<std::string> out;
    for (const json& s : v) {
      if (!s.is_string() || s.get<std::string>().empty()) {
        Fail(layer, field, "expected non-empty tensor names, got " + Dump(s));
      }
      out.push_back(s.get<std::string>());
    }
    return out;
  }

  void CheckIdentifier(const std::string& name, const std::string& layer,
                       const std::string& field) const {
    bool ok =
        !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok)
      Fail(layer, field, "'" + name + "' is not a valid param name ([A-Za-z_][A-Za-z0-9_]*)");
  }

  // An integer, or a non-empty expression string.
  bool IsSize(const json& v) const {
    return v.is_number_integer() || (v.is_string() && !v.get<std::string>().empty());
  }

  TensorDecl ReadInput(const json& v, size_t index) const {
    const std::string where = "inputs[" + std::to_string(index) + "]";
    if (!v.is_object()) Fail("", where, "expected an object {\"name\", \"shape\"}");
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key() != "name" && it.key() != "shape" && it.key() != "integers") {
        Fail("", where + "." + it.key(), "unknown field (expected name, shape, integers)");
      }
    }
    TensorDecl d;
    d.name = String(v, "", "name", true);
    if (v.contains("integers")) d.integers = ReadIntegerRange(v["integers"], where + ".integers");
    const json& shape = Array(v, "", "shape", true);
    if (shape.empty()) Fail("", where + ".shape", "expected at least one dimension");
    for (const json& dim : shape) {
      if (!IsSize(dim))
        Fail("", where + ".shape", "expected integers or expressions, got " + Dump(dim));
      d.shape.push_back(dim.is_string() ? dim.get<std::string>()
                                        : std::to_string(dim.get<int64_t>()));
    }
    return d;
  }

  // [low, high), each an integer or an expression over the params; written integers are
  // checked now (the others when resolved, by CheckIntegerRange).
  IntegerBounds ReadIntegerRange(const json& v, const std::string& where) const {
    auto bound = [](const json& b) { return b.is_number_integer() || b.is_string(); };
    if (!v.is_array() || v.size() != 2 || !bound(v[0]) || !bound(v[1])) {
      Fail("", where,
           "expected [low, high] (integers or expressions, low <= x < high), got " + Dump(v));
    }
    auto text = [](const json& b) {
      return b.is_string() ? b.get<std::string>() : std::to_string(b.get<int64_t>());
    };
    if (v[0].is_number_integer() && v[1].is_number_integer()) {
      try {
        CheckIntegerRange({v[0].get<int64_t>(), v[1].get<int64_t>()});
      } catch (const std::invalid_argument& e) {
        Fail("", where, std::string(e.what()) + ", got " + Dump(v));
      }
    }
    return {text(v[0]), text(v[1])};
  }

  void CheckAttr(const AttrDef& def, const json& v, const std::string& layer) const {
    auto bad = [&](const std::string& expected) {
      Fail(layer, def.name, "expected " + expected + ", got " + Dump(v));
    };
    auto all_sizes = [&](size_t lo, size_t hi) {
      if (!v.is_array() || v.size() < lo || v.size() > hi) return false;
      for (const json& e : v) {
        if (!IsSize(e)) return false;
      }
      return true;
    };
    switch (def.type) {
      case AttrType::kInt:
        if (!IsSize(v)) bad("an integer or an expression string");
        break;
      case AttrType::kIntPair:
        if (!IsSize(v) && !all_sizes(1, 2)) bad("an integer or a list of 2 integers");
        break;
      case AttrType::kIntList:
        if (!all_sizes(0, 16)) bad("a list of at most 16 integers");
        break;
      case AttrType::kPadding:
        if (!IsSize(v) && !all_sizes(1, 4)) {
          bad("an integer, [h, w], [top, left, bottom, right], \"same\" or \"valid\"");
        }
        if (v.is_array() && v.size() == 3) bad("1, 2 or 4 padding values");
        break;
      case AttrType::kFloat:
        if (!v.is_number()) bad("a number");
        break;
      case AttrType::kBool:
        if (!v.is_boolean()) bad("true or false");
        break;
      case AttrType::kEnum: {
        std::string list;
        for (const auto& c : def.choices) list += (list.empty() ? "" : ", ") + c;
        if (!v.is_string()) bad("one of: " + list);
        bool found = false;
        for (const auto& c : def.choices) found = found || c == v.get<std::string>();
        if (!found) bad("one of: " + list);
        break;
      }
    }
  }

  Layer ReadLayer(const json& v, size_t index, const std::string& previous) const {
    const std::string anon = "#" + std::to_string(index);
    if (!v.is_object()) Fail(anon, "", "expected a layer object");
    Layer layer;
    if (!v.contains("name")) Fail(anon, "name", "missing required field");
    layer.name = String(v, anon, "name", true);
    if (layer.name.empty()) Fail(anon, "name", "empty layer name");
    layer.op = String(v, layer.name, "op", true);
    const OpDef* def = FindOp(layer.op);
    if (!def) {
      std::vector<std::string> names;
      for (const OpDef& op : AllOps()) names.push_back(op.name);
      // A near miss names the op meant; otherwise all of them (`ntpbench ops` says what each is).
      std::string hint = DidYouMean(layer.op, names);
      if (hint.empty()) {
        for (const std::string& n : names) hint += (hint.empty() ? " (known ops: " : ", ") + n;
        hint += ")";
      }
      Fail(layer.name, "op", "unknown op '" + layer.op + "'" + hint);
    }
    layer.inputs = v.contains("inputs") ? Strings(v["inputs"], layer.name, "inputs")
                                        : std::vector<std::string>{previous};
    layer.outputs = v.contains("outputs") ? Strings(v["outputs"], layer.name, "outputs")
                                          : std::vector<std::string>{layer.name};
    if (layer.outputs.empty() || static_cast<int>(layer.outputs.size()) > def->max_outputs) {
      Fail(layer.name, "outputs",
           "op '" + layer.op + "' has " +
               (def->max_outputs == 1 ? std::string("exactly one output")
                                      : "1 to " + std::to_string(def->max_outputs) + " outputs") +
               ", got " + std::to_string(layer.outputs.size()));
    }
    const int n = static_cast<int>(layer.inputs.size());
    if (n < def->min_inputs || (def->max_inputs >= 0 && n > def->max_inputs)) {
      std::string want = def->min_inputs == def->max_inputs
                             ? std::to_string(def->min_inputs)
                             : std::to_string(def->min_inputs) + " or more";
      Fail(layer.name, "inputs",
           "op '" + layer.op + "' takes " + want + " input(s), got " + std::to_string(n));
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      if (key == "name" || key == "op" || key == "inputs" || key == "outputs") continue;
      if (key == "when") {
        layer.when = String(v, layer.name, "when", true);
        if (layer.when.empty()) Fail(layer.name, "when", "empty condition");
        continue;
      }
      const AttrDef* attr = nullptr;
      for (const AttrDef& a : def->attrs) attr = a.name == key ? &a : attr;
      if (!attr) {
        std::string allowed;
        for (const AttrDef& a : def->attrs) allowed += (allowed.empty() ? "" : ", ") + a.name;
        Fail(layer.name, key,
             "unknown attribute for op '" + layer.op +
                 "' (allowed: " + (allowed.empty() ? "none" : allowed) + ")");
      }
      CheckAttr(*attr, it.value(), layer.name);
      layer.attrs[key] = it.value();
    }
    for (const AttrDef& a : def->attrs) {
      if (a.required && !layer.attrs.contains(a.name)) {
        Fail(layer.name, a.name, "missing required attribute of op '" + layer.op + "'");
      }
    }
    return layer;
  }

  Marker ReadMarker(const json& v, size_t index) const {
    const std::string where = "markers[" + std::to_string(index) + "]";
    if (!v.is_object()) Fail("", where, "expected an object {\"name\", \"start\", \"end\"}");
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key() != "name" && it.key() != "start" && it.key() != "end") {
        Fail("", where + "." + it.key(), "unknown marker field (expected name, start, end)");
      }
    }
    Marker m;
    m.name = String(v, "", "name", true);
    m.start = String(v, "", "start", true);
    m.end = String(v, "", "end", true);
    return m;
  }

  std::string file_;
};

}  // namespace

Topology ParseTopologyJson(const std::string& text, const std::string& file) {
  json doc;
  // A key given twice in one object would silently keep the last: refused, naming the key.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    doc = json::parse(text, check);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for "2e422" (fuzzing)
    std::string what = e.what();
    const size_t tag = what.find("] ");
    if (what.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
      what = what.substr(tag + 2);
    throw Error(file, "", "", "malformed JSON: " + what);
  }
  if (!duplicate.empty()) {
    throw Error(file, "", duplicate, "given twice in one object (which one is meant?)");
  }
  return Reader(file).Read(doc);
}

Topology TopologyFromJson(const json& doc, const std::string& file) {
  return Reader(file).Read(doc);
}

Topology ReadTopologyJsonFile(const std::string& path) {
  return ParseTopologyJson(ReadTextFile(path, kMaxTopologyFileBytes), path);
}

}  // namespace ntpb
