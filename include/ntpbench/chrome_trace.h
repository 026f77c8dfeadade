// Traced runs (the results model's RunTrace: `run --trace`, a suite's --ntpb_trace) as Chrome
// trace-event JSON (the format chrome://tracing and ui.perfetto.dev load): one process per
// benchmark; its steps as complete ("X") slices on the thread that ran
// them, inside their iteration's and marker's slices; inlays and fused steps by category; each
// iteration's time and GFLOP/s as counter tracks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ntpbench/results.h"

namespace ntpb {

// (benchmark name, its measurement with RunTrace) in the order they ran.
nlohmann::json EncodeChromeTrace(
    const std::vector<std::pair<std::string, const RunMeasurement*>>& runs);

}  // namespace ntpb
