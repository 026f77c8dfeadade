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

namespace ntpb {
namespace {

using nlohmann::json;

// Deeper than any topology needs; pugixml recurses per level while parsing.
constexpr int kMaxXmlDepth = 64;

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

bool IsInteger(const std::string& s, int64_t* value) {
  if (s.empty() || s.size() > 19) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

// An integer literal as a number, anything else as an expression string.
json Size(const std::string& text) {
  int64_t v = 0;
  return IsInteger(text, &v) ? json(v) : json(text);
}

std::vector<std::string> SplitList(std::string text) {
  text = Trim(text);
  if (!text.empty() && text.front() == '[' && text.back() == ']')
    text = text.substr(1, text.size() - 2);
  std::vector<std::string> out;
  if (Trim(text).empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(Trim(text.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

class XmlReader {
 public:
  explicit XmlReader(std::string file) : file_(std::move(file)) {}

  json Read(const std::string& text) {
    CheckUtf8(text);
    CheckDepth(text);
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
    if (root.attribute("version")) out["version"] = Size(root.attribute("version").value());
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
          shape.push_back(Size(d));
        json input = {{"name", Required(node, "", "name")}, {"shape", shape}};
        if (node.attribute("integers")) {
          input["integers"] = json::array();
          for (const std::string& v : SplitList(node.attribute("integers").value())) {
            int64_t bound = 0;
            if (!IsInteger(Trim(v), &bound)) {
              Fail("", "inputs.integers", "expected 'low, high' (integers), got '" + v + "'");
            }
            input["integers"].push_back(bound);
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

  // Names and values end up in JSON and in messages: they must be text. (Found by fuzzing.)
  void CheckUtf8(const std::string& text) const {
    size_t line = 1;
    for (size_t i = 0; i < text.size();) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      int more = c < 0x80           ? 0
                 : (c >> 5) == 0x6  ? 1
                 : (c >> 4) == 0xE  ? 2
                 : (c >> 3) == 0x1E ? 3
                                    : -1;
      bool ok = more >= 0 && i + more < text.size();
      for (int k = 1; ok && k <= more; ++k)
        ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
      if (!ok) {
        Fail("", "",
             "not UTF-8 text: invalid byte 0x" + Hex(c) + " at line " + std::to_string(line));
      }
      if (c == '\n') ++line;
      i += 1 + more;
    }
  }

  static std::string Hex(unsigned char c) {
    const char* digits = "0123456789abcdef";
    return {digits[c >> 4], digits[c & 15]};
  }

  // Refuses absurd nesting before pugixml sees it.
  void CheckDepth(const std::string& text) const {
    int depth = 0, max_depth = 0;
    for (size_t i = 0; i + 1 < text.size(); ++i) {
      if (text[i] != '<') continue;
      const char next = text[i + 1];
      if (next == '/') {
        --depth;
      } else if (next != '?' && next != '!') {
        const size_t close = text.find('>', i);
        if (close != std::string::npos && text[close - 1] == '/') continue;  // <x/>
        max_depth = std::max(max_depth, ++depth);
      }
    }
    if (max_depth > kMaxXmlDepth) {
      Fail("", "", "XML nested deeper than " + std::to_string(kMaxXmlDepth) + " levels");
    }
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
        return Size(t);
      case AttrType::kIntPair:
      case AttrType::kIntList:
      case AttrType::kPadding: {
        if (def.type == AttrType::kPadding && (t == "same" || t == "valid")) return t;
        const bool list = t.find(',') != std::string::npos || (!t.empty() && t.front() == '[');
        if (!list && def.type != AttrType::kIntList) return Size(t);
        json out = json::array();
        for (const std::string& e : SplitList(t)) out.push_back(Size(e));
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
