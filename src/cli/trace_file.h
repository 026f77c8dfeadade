// Chrome trace-event files from traced runs (`run --trace FILE`, `ntpbench trace RUN.json`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ntpbench/results.h"

namespace ntpb::cli {

// Writes the runs that carry a trace (benchmark name, measurement) to `path`, atomically, and
// says so on stderr. Throws ntpb::Error naming `path` when none carries one.
void WriteTraceFile(const std::vector<std::pair<std::string, RunMeasurement>>& runs,
                    const std::string& path, const std::string& hint);

}  // namespace ntpb::cli
