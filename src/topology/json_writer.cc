// Writes the canonical JSON form; defaults the reader fills in are left out.
#include "ntpbench/json_format.h"
#include "src/common/file_io.h"
#include "src/common/json_text.h"

namespace ntpb {
namespace {

using nlohmann::ordered_json;

ordered_json Size(const std::string& dim) {
  // Plain decimal integers are written as numbers, expressions as strings.
  bool digits = !dim.empty() && dim.size() < 19;
  for (char c : dim) digits = digits && c >= '0' && c <= '9';
  if (digits) return ordered_json(std::stoll(dim));
  return ordered_json(dim);
}

}  // namespace

std::string WriteTopologyJson(const Topology& t) {
  ordered_json doc;
  doc["format"] = "ntpbench-topology";
  doc["version"] = 1;
  doc["name"] = t.name;
  if (!t.description.empty()) doc["description"] = t.description;
  if (!t.params.empty()) {
    ordered_json params = ordered_json::object();
    for (const auto& [k, v] : t.params) params[k] = v;
    doc["params"] = params;
  }
  ordered_json inputs = ordered_json::array();
  for (const TensorDecl& in : t.inputs) {
    ordered_json shape = ordered_json::array();
    for (const std::string& d : in.shape) shape.push_back(Size(d));
    ordered_json decl = {{"name", in.name}, {"shape", shape}};
    if (in.integers) decl["integers"] = {Size(in.integers->low), Size(in.integers->high)};
    inputs.push_back(decl);
  }
  doc["inputs"] = inputs;
  ordered_json layers = ordered_json::array();
  std::string previous = t.inputs.empty() ? "" : t.inputs.front().name;
  for (const Layer& l : t.layers) {
    ordered_json layer;
    layer["name"] = l.name;
    layer["op"] = l.op;
    if (l.inputs != std::vector<std::string>{previous}) layer["inputs"] = l.inputs;
    if (l.outputs != std::vector<std::string>{l.name}) layer["outputs"] = l.outputs;
    if (!l.when.empty()) layer["when"] = l.when;
    for (auto it = l.attrs.begin(); it != l.attrs.end(); ++it) layer[it.key()] = it.value();
    layers.push_back(layer);
    if (!l.outputs.empty()) previous = l.outputs.front();
  }
  doc["layers"] = layers;
  if (t.layers.empty() || t.outputs != std::vector<std::string>{previous})
    doc["outputs"] = t.outputs;
  if (!t.markers.empty()) {
    ordered_json markers = ordered_json::array();
    for (const Marker& m : t.markers) {
      markers.push_back({{"name", m.name}, {"start", m.start}, {"end", m.end}});
    }
    doc["markers"] = markers;
  }
  return JsonText(doc, 2) + "\n";
}

void WriteTopologyJsonFile(const Topology& topology, const std::string& path) {
  WriteFileAtomically(path, WriteTopologyJson(topology));
}

}  // namespace ntpb
