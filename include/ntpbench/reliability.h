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
  // Preemptions of this process's threads, per second per core: a quiet machine shows 15-18
  // (kernel threads), a neighbour on the same cores one per scheduler slice. Judged from 50
  // per core on: a short measurement's few start-up switches make no rate.
  double involuntary_switches_per_core_second = 50;
  double min_switches_per_core = 50;
  // Repetitions whose times spread by more (nanobench's rule: MdAPE over 5%). The iterations'
  // MdAPE is recorded, not judged: single iterations of the same network moved 1-9% on a quiet
  // 2-core VM.
  double mdape = 0.05;
  int min_repetitions = 3;  // fewer repetitions have no spread to judge
};

struct Reliability {
  bool reliable = true;
  bool busy = false;  // the machine was busy (not only a spread)
  std::string seen;   // what was seen, when unreliable

  // "" when reliable; else "unreliable: the machine was busy (others took 48% of the cores'
  // time, ...)" or "unreliable: its repetitions spread 7.1% (MdAPE over 5%)".
  std::string Verdict() const;
};

// One measurement.
Reliability JudgeInterference(const InterferenceMeasure& measure,
                              const ReliabilityLimits& limits = {});
// One benchmark of a run: each repetition's measurement, and the spread of the repetitions'
// times. Runs recorded before interference was measured are judged on their spread alone.
Reliability JudgeBenchmark(const BenchmarkResult& result, const ReliabilityLimits& limits = {});

}  // namespace ntpb
