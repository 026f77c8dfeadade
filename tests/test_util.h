// Helpers shared by the tests: building topologies in code, paths to shipped files.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/backend.h"
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

// Whether `backend` runs `precision` on this machine (oneDNN 2.6 has no bf16 kernels below
// AVX-512), asked of the backend itself on a shipped topology it has every op of: tests of a
// precision the machine lacks skip with this reason, the one a benchmark reports.
Support BackendSupportFor(const std::string& backend, Precision precision);

}  // namespace ntpb::testing
