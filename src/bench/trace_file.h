// `--trace FILE` (run) and `--ntpb_trace=FILE` (suites): the measured iterations of every
// benchmark as a Chrome trace-event file (chrome_trace.h), written atomically once all ran.
#pragma once

#include <string>

#include "ntpbench/results.h"

namespace ntpb::bench {

// Iterations traced per benchmark run: the first of each run Google Benchmark reports.
inline constexpr int kTracedIterations = 100;

void SetTraceFile(const std::string& path);
bool Tracing();
// A benchmark's measurement with its trace, under its name; a later run of the same name (the
// run Google Benchmark reports after its trials, a later repetition) replaces it.
void RecordTrace(const std::string& name, RunMeasurement measurement);
// Writes the file when tracing; throws ntpb::Error naming it when it cannot.
void WriteTraceFile();

}  // namespace ntpb::bench
