// How much the machine moved between a baseline and a run, estimated from the run itself.
//
// Shared VMs drift: the whole machine runs 10-30% slower for minutes at a time (host load,
// clocks), which no stored baseline can know. Benchmarks measured in one randomly interleaved
// run share that drift, so each benchmark is judged against the median movement of the *other*
// benchmarks of the same run: a machine that runs everything 20% slower passes, a benchmark that
// got 15% slower than the rest of the suite does not.
#pragma once

#include <map>
#include <string>

#include "ntpbench/baseline.h"

namespace ntpb {

struct DriftReference {
  double ratio = 1;      // median latency now / in the baseline, of this benchmark
  double reference = 1;  // median ratio of the other benchmarks (1 when too few)
  int references = 0;    // how many other benchmarks the reference comes from
};

inline bool IsCalibrationBenchmark(const std::string& name) {
  return name.rfind("ntpbench_calibration/", 0) == 0;
}

// For every benchmark with latencies in both, its ratio and its leave-one-out reference. Fewer
// than `min_references` others leave the reference at 1 (judged raw).
std::map<std::string, DriftReference> EstimateDrift(
    const std::map<std::string, BenchmarkResult>& baseline,
    const std::map<std::string, BenchmarkResult>& run, int min_references = 3);

// Median ratio of the suite's own benchmarks (calibration kernels excluded), and of the
// calibration kernels alone; 1 when there are none.
double SuiteDrift(const std::map<std::string, DriftReference>& drift);
double CalibrationDrift(const std::map<std::string, DriftReference>& drift);

}  // namespace ntpb
