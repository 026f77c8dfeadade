// Cost of one region start + stop (two boundary samples) per counter configuration.
// Targets (issue): <= 0.2 us with time only, <= 2 us with every source available here.
#include <benchmark/benchmark.h>

#include <vector>

#include "ntpbench/counters.h"
#include "src/bench/step_timer.h"

namespace {

void TimeOnly(benchmark::State& state) {
  for (auto _ : state) {
    const int64_t start = ntpb::bench::NowNanoseconds();
    const int64_t stop = ntpb::bench::NowNanoseconds();
    benchmark::DoNotOptimize(stop - start);
  }
}
BENCHMARK(TimeOnly);

void WithCounters(benchmark::State& state, std::vector<std::string> request) {
  auto set = ntpb::CounterSet::Create(request);
  if (set->empty()) {
    state.SkipWithError("no counter of this configuration is available here");
    return;
  }
  std::vector<double> start(set->metrics().size()), stop(set->metrics().size());
  set->Start();
  for (auto _ : state) {
    const int64_t t0 = ntpb::bench::NowNanoseconds();
    set->Read(start.data());
    set->Read(stop.data());
    const int64_t t1 = ntpb::bench::NowNanoseconds();
    benchmark::DoNotOptimize(t1 - t0);
    benchmark::DoNotOptimize(stop.data());
  }
  set->Stop();
  state.counters["metrics"] = static_cast<double>(set->metrics().size());
}
BENCHMARK_CAPTURE(WithCounters, sde, std::vector<std::string>{"sde"});
BENCHMARK_CAPTURE(WithCounters, perf, std::vector<std::string>{"perf"});
BENCHMARK_CAPTURE(WithCounters, rusage, std::vector<std::string>{"rusage"});
BENCHMARK_CAPTURE(WithCounters, memory, std::vector<std::string>{"memory"});
BENCHMARK_CAPTURE(WithCounters, all, std::vector<std::string>{"sde", "perf", "rusage", "memory"});

}  // namespace

BENCHMARK_MAIN();
