// Calibration benchmarks: a fixed compute kernel and a fixed memory sweep that do not depend on
// ntpbench's own code. The perf gate runs them alongside a suite so the comparator can tell a
// machine that is slower today (shared VMs drift by 10%) from a benchmark that got slower.
#include "src/bench/calibration.h"

#include <benchmark/benchmark.h>

#include <Eigen/Core>

namespace ntpb::bench {

void RegisterCalibrationBenchmarks() {
  benchmark::RegisterBenchmark(
      (std::string(kCalibrationPrefix) + "compute").c_str(),
      [](benchmark::State& state) {
        const Eigen::MatrixXf a = Eigen::MatrixXf::Constant(384, 384, 0.5f);
        const Eigen::MatrixXf b = Eigen::MatrixXf::Constant(384, 384, 0.25f);
        Eigen::MatrixXf c(384, 384);
        for (auto _ : state) {
          c.noalias() = a * b;
          benchmark::DoNotOptimize(c.data());
        }
      })
      ->UseRealTime();
  benchmark::RegisterBenchmark((std::string(kCalibrationPrefix) + "memory").c_str(),
                               [](benchmark::State& state) {
                                 const Eigen::VectorXf v =
                                     Eigen::VectorXf::Constant(16 << 20, 1.0f);  // 64 MiB
                                 for (auto _ : state) benchmark::DoNotOptimize(v.sum());
                               })
      ->UseRealTime();
}

}  // namespace ntpb::bench
