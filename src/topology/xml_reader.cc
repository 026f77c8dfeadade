// Reads NTP-style XML into the JSON document form, typing each <param> by the op catalogue,
// then hands it to the JSON reader's checks.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <pugixml.hpp>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/xml_format.h"
#include "src/common/file_io.h"
#include "src/topology/op_catalog.h"
#include "src/topology/xml_text.h"

namespace ntpb {
namespace {

using nlohmann::json;

class XmlReader {
 public:
  explicit XmlReader(std::string file) : file_(std::move(file)) {}

  json Read(const std::string& text) {
    if (const std::string problem = XmlTextProblem(text); !problem.empty()) Fail("", "", problem);
    pugi::xml_document doc;
    const pugi::xml_parse_result ok = doc.load_buffer(text.data(), text.size());
    if (!ok) {
      const long line =
          1 +
          std::count(text.begin(), text.begin() + std::min<size_t>(ok.offset, text.size()), '\n');
      Fail("", "",
           std::string("malformed XML: ") + ok.description() + " at line " + std::to_string(line));
    }
    const pugi::xml_node root = doc.document_element();
    if (std::string(root.name()) != "topology") {
      Fail("", root.name(),
           "expected a <topology> root element, got <" + std::string(root.name()) + ">");
    }
    CheckAttributes(root, "", {"name", "description", "version", "format"});
    json out = json::object();
    out["name"] = root.attribute("name").as_string();
    if (!root.attribute("name")) Fail("", "name", "missing required attribute of <topology>");
    if (root.attribute("description")) out["description"] = root.attribute("description").value();
    if (root.attribute("version"))
      out["version"] = IntegerOrText(root.attribute("version").value());
    out["inputs"] = json::array();
    out["layers"] = json::array();
    for (const pugi::xml_node& node : root.children()) {
      if (node.type() != pugi::node_element) continue;
      const std::string tag = node.name();
      if (tag == "description") {
        out["description"] = Trim(node.text().as_string());
      } else if (tag == "param") {
        CheckAttributes(node, "", {"name", "value"});
        const std::string name = Required(node, "", "name");
        int64_t v = 0;
        if (!IsInteger(Trim(Required(node, "", "value")), &v)) {
          Fail("", "params." + name,
               "expected an integer, got '" + std::string(node.attribute("value").value()) + "'");
        }
        out["params"][name] = v;
      } else if (tag == "input") {
        CheckAttributes(node, "", {"name", "shape", "integers"});
        json shape = json::array();
        for (const std::string& d : SplitList(Required(node, "", "shape")))
          shape.push_back(IntegerOrText(d));
        json input = {{"name", Required(node, "", "name")}, {"shape", shape}};
        if (node.attribute("integers")) {
          input["integers"] = json::array();
          for (const std::string& v : SplitList(node.attribute("integers").value())) {
            if (Trim(v).empty()) {
              Fail("", "inputs.integers",
                   "expected 'low, high' (integers or expressions), got '" + v + "'");
            }
            input["integers"].push_back(IntegerOrText(Trim(v)));
          }
        }
        out["inputs"].push_back(input);
      } else if (tag == "layer") {
        out["layers"].push_back(ReadLayer(node, out["layers"].size()));
      } else if (tag == "output") {
        CheckAttributes(node, "", {"name"});
        out["outputs"].push_back(Required(node, "", "name"));
      } else if (tag == "marker") {
        CheckAttributes(node, "", {"name", "start", "end"});
        out["markers"].push_back({{"name", Required(node, "", "name")},
                                  {"start", Required(node, "", "start")},
                                  {"end", Required(node, "", "end")}});
      } else {
        Fail("", tag,
             "unknown element <" + tag +
                 "> (expected description, param, input, layer, output, marker)");
      }
    }
    return out;
  }

 private:
  [[noreturn]] void Fail(const std::string& layer, const std::string& field,
                         const std::string& message) const {
    throw Error(file_, layer, field, message);
  }

  std::string Required(const pugi::xml_node& node, const std::string& layer,
                       const std::string& attribute) const {
    const pugi::xml_attribute a = node.attribute(attribute.c_str());
    if (!a) {
      Fail(layer, attribute, "missing required attribute of <" + std::string(node.name()) + ">");
    }
    return a.value();
  }

  void CheckAttributes(const pugi::xml_node& node, const std::string& layer,
                       std::initializer_list<const char*> allowed) const {
    for (const pugi::xml_attribute& a : node.attributes()) {
      bool ok = false;
      std::string list;
      for (const char* name : allowed) {
        ok = ok || a.name() == std::string(name);
        list += (list.empty() ? "" : ", ") + std::string(name);
      }
      if (!ok) {
        Fail(layer, a.name(),
             "unknown attribute of <" + std::string(node.name()) + "> (allowed: " + list + ")");
      }
    }
  }

  json ReadLayer(const pugi::xml_node& node, size_t index) const {
    const std::string anon = "#" + std::to_string(index);
    CheckAttributes(node, anon, {"name", "type", "inputs", "outputs", "when"});
    json layer = json::object();
    const std::string name = Required(node, anon, "name");
    layer["name"] = name;
    layer["op"] = Required(node, name, "type");
    for (const char* list : {"inputs", "outputs"}) {
      if (node.attribute(list)) layer[list] = SplitList(node.attribute(list).value());
    }
    if (node.attribute("when")) layer["when"] = node.attribute("when").value();
    const OpDef* def = FindOp(layer["op"].get<std::string>());  // unknown: the reader says so
    for (const pugi::xml_node& child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::string(child.name()) != "param") {
        Fail(name, child.name(),
             "unknown element <" + std::string(child.name()) +
                 "> in a layer (expected <param name=... value=...>)");
      }
      CheckAttributes(child, name, {"name", "value"});
      const std::string key = Required(child, name, "name");
      const std::string value = Required(child, name, "value");
      if (layer.contains(key)) Fail(name, key, "given twice");
      const AttrDef* attr = nullptr;
      if (def) {
        for (const AttrDef& a : def->attrs) attr = a.name == key ? &a : attr;
      }
      layer[key] = attr ? Typed(*attr, value, name) : json(value);
    }
    return layer;
  }

  // The attribute's JSON value from its text, by the type the op declares.
  json Typed(const AttrDef& def, const std::string& text, const std::string& layer) const {
    const std::string t = Trim(text);
    switch (def.type) {
      case AttrType::kInt:
        return IntegerOrText(t);
      case AttrType::kIntPair:
      case AttrType::kIntList:
      case AttrType::kPadding: {
        if (def.type == AttrType::kPadding && (t == "same" || t == "valid")) return t;
        const bool list = t.find(',') != std::string::npos || (!t.empty() && t.front() == '[');
        if (!list && def.type != AttrType::kIntList) return IntegerOrText(t);
        json out = json::array();
        for (const std::string& e : SplitList(t)) out.push_back(IntegerOrText(e));
        return out;
      }
      case AttrType::kFloat: {
        char* end = nullptr;
        const double v = std::strtod(t.c_str(), &end);
        if (t.empty() || *end != '\0') Fail(layer, def.name, "expected a number, got '" + t + "'");
        return v;
      }
      case AttrType::kBool:
        if (t == "true" || t == "1") return true;
        if (t == "false" || t == "0") return false;
        Fail(layer, def.name, "expected true or false, got '" + t + "'");
      case AttrType::kEnum:
        return t;
    }
    return t;
  }

  std::string file_;
};

}  // namespace

Topology ParseTopologyXml(const std::string& text, const std::string& file) {
  return TopologyFromJson(XmlReader(file).Read(text), file);
}

Topology ReadTopologyXmlFile(const std::string& path) {
  return ParseTopologyXml(ReadTextFile(path, kMaxTopologyFileBytes), path);
}

}  // namespace ntpb
