// Writes the NTP-style XML form; reading it back gives an equal Topology.
#include <pugixml.hpp>
#include <sstream>

#include "ntpbench/xml_format.h"
#include "src/common/file_io.h"

namespace ntpb {
namespace {

std::string Text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ", ") + Text(e);
    return "[" + out + "]";
  }
  return v.dump();
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::string WriteTopologyXml(const Topology& t) {
  pugi::xml_document doc;
  pugi::xml_node root = doc.append_child("topology");
  root.append_attribute("name") = t.name.c_str();
  root.append_attribute("version") = 1;
  if (!t.description.empty()) root.append_child("description").text() = t.description.c_str();
  for (const auto& [name, value] : t.params) {
    pugi::xml_node p = root.append_child("param");
    p.append_attribute("name") = name.c_str();
    p.append_attribute("value") = std::to_string(value).c_str();
  }
  for (const TensorDecl& in : t.inputs) {
    pugi::xml_node n = root.append_child("input");
    n.append_attribute("name") = in.name.c_str();
    n.append_attribute("shape") = Join(in.shape).c_str();
    if (in.integers) {
      n.append_attribute("integers") = (in.integers->low + ", " + in.integers->high).c_str();
    }
  }
  std::string previous = t.inputs.empty() ? "" : t.inputs.front().name;
  for (const Layer& l : t.layers) {
    pugi::xml_node n = root.append_child("layer");
    n.append_attribute("name") = l.name.c_str();
    n.append_attribute("type") = l.op.c_str();
    if (l.inputs != std::vector<std::string>{previous})
      n.append_attribute("inputs") = Join(l.inputs).c_str();
    if (l.outputs != std::vector<std::string>{l.name})
      n.append_attribute("outputs") = Join(l.outputs).c_str();
    if (!l.when.empty()) n.append_attribute("when") = l.when.c_str();
    for (auto it = l.attrs.begin(); it != l.attrs.end(); ++it) {
      pugi::xml_node p = n.append_child("param");
      p.append_attribute("name") = it.key().c_str();
      p.append_attribute("value") = Text(it.value()).c_str();
    }
    if (!l.outputs.empty()) previous = l.outputs.front();
  }
  if (t.layers.empty() || t.outputs != std::vector<std::string>{previous}) {
    for (const std::string& o : t.outputs)
      root.append_child("output").append_attribute("name") = o.c_str();
  }
  for (const Marker& m : t.markers) {
    pugi::xml_node n = root.append_child("marker");
    n.append_attribute("name") = m.name.c_str();
    n.append_attribute("start") = m.start.c_str();
    n.append_attribute("end") = m.end.c_str();
  }
  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

void WriteTopologyXmlFile(const Topology& topology, const std::string& path) {
  WriteFileAtomically(path, WriteTopologyXml(topology));
}

}  // namespace ntpb
