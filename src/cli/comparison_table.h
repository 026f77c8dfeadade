// A comparison (baseline or control against a run) as people read it: one row per benchmark and
// metric, what was and was not judged, and the verdict. Here in the CLI, which runs the gate:
// the report module renders runs and, like the baseline module, reads only results.
#pragma once

#include <string>

#include "ntpbench/comparator.h"

namespace ntpb::cli {

std::string ComparisonTable(const Comparison& comparison);

}  // namespace ntpb::cli
