#include "src/topology/numeric_outputs.h"

#include <algorithm>

#include "src/topology/op_catalog.h"

namespace ntpb {

std::string NumericStandIn(const ResolvedTopology& topology, const std::string& tensor) {
  std::string current = tensor;
  // Layers are in execution order, so walking them backwards follows a chain of decoders.
  for (auto l = topology.layers.rbegin(); l != topology.layers.rend(); ++l) {
    if (l->inputs.empty() ||
        std::find(l->outputs.begin(), l->outputs.end(), current) == l->outputs.end()) {
      continue;
    }
    const OpDef* def = FindOp(l->op);
    if (!def || !def->discrete_output) break;
    current = l->inputs[0];
  }
  return current;
}

std::vector<std::string> NumericOutputs(const ResolvedTopology& topology) {
  std::vector<std::string> tensors;
  for (const std::string& out : topology.outputs) {
    std::string t = NumericStandIn(topology, out);
    if (std::find(tensors.begin(), tensors.end(), t) == tensors.end()) tensors.push_back(t);
  }
  return tensors;
}

}  // namespace ntpb
