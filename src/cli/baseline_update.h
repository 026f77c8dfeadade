// Writing baselines from runs: `ntpbench gate --update` and `ntpbench baseline update`. What
// changed is printed (a diff of latencies, thresholds and the signature).
#pragma once

#include <string>
#include <vector>

#include "ntpbench/baseline.h"
#include "src/cli/gate_options.h"

namespace ntpb::cli {

// The machine class's baseline at `path` from `sessions` (their spread sets the thresholds),
// and, with --baseline-dir, the machine-independent signature beside it. Returns 0.
int Update(const GateOptions& o, const std::vector<RunResults>& sessions, const std::string& path);
// Only the signature (every machine), from one run.
void UpdateSignature(const GateOptions& o, const RunResults& run);

}  // namespace ntpb::cli
