// A scenario family's run (scenario.h): one executable per stream, compiled with its share of
// the threads and warmed up, then the scenario's queries through the load generator, reported
// as throughput and per-query latency.
#pragma once

#include <benchmark/benchmark.h>

#include "ntpbench/ntpbench.h"

namespace ntpb::bench {

// state.range(0) streams, state.range(1) the batch each stream runs. Skips with the reason on a
// backend that cannot run it.
void RunScenario(benchmark::State& state, const TopologyBenchmark& tb, const Topology& topology,
                 const TopologyBenchmark::Family& family);

}  // namespace ntpb::bench
