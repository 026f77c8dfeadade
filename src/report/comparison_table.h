// A comparison (baseline or control against a run) as people read it: one row per benchmark and
// metric, what was and was not judged, and the verdict.
#pragma once

#include <string>

#include "ntpbench/comparator.h"

namespace ntpb::report {

std::string ComparisonTable(const Comparison& comparison);

}  // namespace ntpb::report
