// A sweep's results for people: the per-factor table (`ntpbench sweep` prints it at the end) and
// the BackboneAnalysis page (`ntpbench report RESULTS.json...`): throughput (samples/s and
// GFLOP/s) and latency against each factor, throughput against operation density under the
// machine's roofline with the points that contradict its ordering flagged, and for those the
// layers that explain it. Several results files (one per backend, or per machine) share the
// charts as series.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/sweep_results.h"

namespace ntpb {

// Per factor, one row per value on the line through the base point; then failed points and
// contradictions. Fits 120 columns.
std::string RenderSweepTable(const SweepResults& results);

// One self-contained HTML page (inline SVG).
std::string RenderSweepHtml(const std::vector<SweepResults>& results, const std::string& title);

}  // namespace ntpb
