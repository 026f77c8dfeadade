// Runs queries on concurrent streams as a scenario sends them (scenario.h): every stream on its
// own thread, so what runs concurrently is what is measured. The caller says how a stream
// serves one query; tests give a fake with known service times.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ntpb::bench {

// Serves one query on stream `stream` (0-based) and returns when it is done.
using ServeQuery = std::function<void(int stream)>;

struct LoadResult {
  std::vector<double> latencies_s;  // per query: completion - arrival (queueing included)
  double wall_s = 0;                // first arrival to last completion
  int64_t queries = 0;
  double AchievedQps() const { return wall_s > 0 ? static_cast<double>(queries) / wall_s : 0; }
};

// Arrival times (seconds from 0) of `n` queries of a Poisson process at `rate` per second:
// exponential gaps from a generator seeded with `seed`, so a run repeats exactly.
std::vector<double> PoissonArrivals(double rate, int64_t n, uint64_t seed);

// Each runner starts no query after `max_seconds` (0: no limit), so a slow topology's run ends
// in time with fewer queries than asked (LoadResult::queries says how many).
// A query that throws stops every stream; the first exception is rethrown on the calling
// thread once all have joined.

// Offline: every stream serves `queries_per_stream` queries back to back, all streams at once.
LoadResult RunOffline(int streams, int64_t queries_per_stream, const ServeQuery& serve,
                      double max_seconds = 0);

// Server: queries arrive at `arrivals` (seconds from the start); the first idle stream takes
// the oldest waiting one. A query's latency runs from its arrival to its completion.
LoadResult RunServer(int streams, const std::vector<double>& arrivals, const ServeQuery& serve,
                     double max_seconds = 0);

// Multi-stream: `queries` queries one after another, each served by every stream at once (its
// samples split between them); a query's latency is its slowest stream's.
LoadResult RunMultiStream(int streams, int64_t queries, const ServeQuery& serve,
                          double max_seconds = 0);

// The highest arrival rate in [low, high] whose p99 latency (queueing included) meets
// `p99_bound_s`, by bisection: `run_at(rate)` measures one rate. `steps` halvings after the
// bracket is checked.
struct MaxQpsSearch {
  double max_qps = 0;  // 0 when even `low` misses the bound
  double p99_s = 0;    // at max_qps
  // The measurement at max_qps; at `low` when even that missed the bound.
  LoadResult result;
  struct Step {
    double rate, p99_s, achieved_qps;
    bool meets;
  };
  std::vector<Step> steps;  // every rate tried, in order
};
MaxQpsSearch FindMaxQps(const std::function<LoadResult(double rate)>& run_at, double p99_bound_s,
                        double low, double high, int steps);

}  // namespace ntpb::bench
