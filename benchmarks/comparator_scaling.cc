// How the comparator scales with the number of benchmarks (issue: 10,000 in under a second, on
// one core): a baseline and a run of N benchmarks, 6 repetitions each, every benchmark with its
// own threshold, and a tenth of them renamed (missing + new with the same analytic signature).
#include <benchmark/benchmark.h>

#include <string>

#include "ntpbench/comparator.h"

namespace {

void CompareBenchmarks(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ntpb::Baseline baseline;
  ntpb::RunResults run;
  for (int i = 0; i < n; ++i) {
    const std::string name = "topology_" + std::to_string(i) + "/eigen/f32/batch:1/real_time";
    ntpb::BenchmarkResult r;
    for (int k = 0; k < 6; ++k) r.real_time_ms.push_back(1.0 + 0.01 * ((i + k) % 7));
    r.analytic["net.flops"] = 1000.0 + i;
    baseline.benchmarks[name] = r;
    baseline.thresholds[name] = 0.1;
    run.benchmarks[i % 10 == 0 ? name + "_renamed" : name] = r;
  }
  run.has_machine = true;  // the same (default) machine class as the baseline
  ntpb::CompareOptions options;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ntpb::Compare(&baseline, run, options));
  }
  state.SetComplexityN(n);
}
BENCHMARK(CompareBenchmarks)
    ->RangeMultiplier(10)
    ->Range(100, 10000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

BENCHMARK_MAIN();
