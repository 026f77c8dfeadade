// Helpers shared by the tests: building topologies in code, paths to shipped files.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/resolve.h"
#include "ntpbench/topology.h"

namespace ntpb::testing {

// A topology with one layer `op` named "layer", graph inputs x0, x1, ... of the given shapes
// and output "y".
Topology SingleLayer(const std::string& op, const std::vector<Shape>& inputs,
                     const nlohmann::json& attrs);

// Path of a file in the source tree (NTPBENCH_SOURCE_DIR/relative).
std::string SourcePath(const std::string& relative);

// Largest |a - b| / max(1, |b|) over the elements; sizes must match.
double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace ntpb::testing
