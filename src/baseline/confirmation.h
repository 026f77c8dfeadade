// The gate's second look: a latency verdict that fails or cannot decide is measured again and
// only then final, so a noisy moment of a shared machine fails nothing.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"

namespace ntpb {

// The benchmarks of `first` whose latency regressed or was inconclusive; `measure_again`
// measures those (it may say so on stderr) and compares them; their rows take that second
// verdict, noting the first. Without doubtful benchmarks, `first` itself.
Comparison Confirm(const Comparison& first,
                   const std::function<Comparison(const std::set<std::string>&)>& measure_again);

// Adds another run's repetitions to `into` (signatures and counters stay the first run's).
void Append(RunResults* into, const RunResults& more);

}  // namespace ntpb
