// Whether a measurement can be trusted. A shared machine disturbs a run in ways its own time
// cannot show: another process on the same cores preempts a thread and an OpenMP barrier waits
// for it (an mlp's p99 went from 0.6 to 32 ms beside a busy neighbour on a 2-core VM), or the
// hypervisor runs another guest (steal). ntpbench records what the machine did during each
// measurement (results.h's InterferenceMeasure) and judges it here, with the spread of the
// repetitions (nanobench's MdAPE rule); the run table, the JSON and the gate say "unreliable"
// with what was seen.
#pragma once

#include <string>

#include "ntpbench/results.h"
#include "ntpbench/run_file.h"

namespace ntpb {

// Beyond any of these a measurement is unreliable. The defaults, and why, are in the README
// ("A busy machine").
struct ReliabilityLimits {
  double others_share = 0.10;  // other processes took over 10% of the cores' time
  double steal_share = 0.05;   // the hypervisor gave over 5% of it to other guests
  // Preemptions of this process's threads, per second per core: a quiet machine shows a few
  // (kernel threads), a neighbour on the same cores one per scheduler slice.
  double involuntary_switches_per_core_second = 50;
  double mdape = 0.05;      // iterations or repetitions spread by more (nanobench warns above 5%)
  int min_repetitions = 3;  // fewer repetitions have no spread to judge
};

struct Reliability {
  bool reliable = true;
  bool busy = false;  // the machine was busy (not only a spread)
  std::string seen;   // what was seen, when unreliable

  // "" when reliable; else "unreliable: the machine was busy (others took 48% of the cores'
  // time, ...)" or "unreliable: its iterations spread 7.1% (MdAPE over 5%)".
  std::string Verdict() const;
};

// One measurement.
Reliability JudgeInterference(const InterferenceMeasure& measure,
                              const ReliabilityLimits& limits = {});
// One benchmark of a run: each repetition's measurement, and the spread of the repetitions'
// times. Runs recorded before interference was measured are judged on their spread alone.
Reliability JudgeBenchmark(const BenchmarkResult& result, const ReliabilityLimits& limits = {});

}  // namespace ntpb
