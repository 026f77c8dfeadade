// Whether a benchmark of a run file can be trusted: each repetition's measurement judged as
// results.h's JudgeInterference does, and the spread of the repetitions (nanobench's MdAPE
// rule). Read-side only (run files, baselines): what measures judges one measurement through
// results.h alone.
#pragma once

#include "ntpbench/results.h"
#include "ntpbench/run_file.h"

namespace ntpb {

// One benchmark of a run: each repetition's measurement, and the spread of the repetitions'
// times. Runs recorded before interference was measured are judged on their spread alone.
Reliability JudgeBenchmark(const BenchmarkResult& result, const ReliabilityLimits& limits = {});

}  // namespace ntpb
