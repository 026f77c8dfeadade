#include "ntpbench/reliability.h"

#include <algorithm>

#include "src/common/format_number.h"
#include "src/common/statistics.h"

namespace ntpb {
namespace {

void Add(std::string* seen, const std::string& what) {
  *seen += (seen->empty() ? "" : ", ") + what;
}

// Keeps the most telling of two judgements: a busy machine over a spread alone.
void Merge(Reliability* into, const Reliability& r) {
  if (r.reliable) return;
  if (into->reliable || (r.busy && !into->busy)) *into = r;
}

}  // namespace

std::string Reliability::Verdict() const {
  if (reliable) return "";
  return busy ? "unreliable: the machine was busy (" + seen + ")" : "unreliable: " + seen;
}

bool SameCorePlacement(double ns, double reference_ns) {
  if (!(ns > 0) || !(reference_ns > 0)) return true;
  const double near = std::min(ns, reference_ns), far = std::max(ns, reference_ns);
  return far <= 2 * near || far - near <= 30;
}

Reliability JudgeInterference(const InterferenceMeasure& m, const ReliabilityLimits& limits) {
  Reliability r;
  // A span of 0 is one not recorded: judged as before spans were.
  const bool shares = m.seconds <= 0 || m.seconds >= limits.min_seconds_for_shares;
  if (shares && m.others_share > limits.others_share) {
    Add(&r.seen,
        FormatNumber("other processes took %.0f%% of the cores' time", 100 * m.others_share));
  }
  if (shares && m.steal_share > limits.steal_share) {
    Add(&r.seen, FormatNumber("the hypervisor took %.0f%% (steal)", 100 * m.steal_share));
  }
  if (m.involuntary_switches_per_core_second > limits.involuntary_switches_per_core_second &&
      m.involuntary_switches_per_core_second * m.seconds >= limits.min_switches_per_core &&
      m.others_share > limits.switches_need_others_share) {
    Add(&r.seen, FormatNumber("%.0f", m.involuntary_switches_per_core_second) +
                     " involuntary context switches per core-second (" +
                     FormatNumber("%.2g", m.involuntary_switches) + " per iteration or query)");
  }
  if (!r.seen.empty()) {
    r.reliable = false;
    r.busy = true;
  }
  return r;
}

Reliability JudgeBenchmark(const BenchmarkResult& result, const ReliabilityLimits& limits) {
  Reliability r;
  if (!result.skipped.empty()) return r;
  const std::size_t reps = std::max<std::size_t>(result.repetitions.size(), 1);
  for (std::size_t i = 0; i < reps; ++i) {
    const RunMeasurement m =
        result.repetitions.empty() ? result.Measurement() : result.RepetitionMeasurement(i);
    if (m.interference) Merge(&r, JudgeInterference(*m.interference, limits));
  }
  if (static_cast<int>(result.real_time_ms.size()) >= limits.min_repetitions) {
    const double spread = Mdape(result.real_time_ms);
    if (spread > limits.mdape) {
      Reliability s;
      s.reliable = false;
      s.seen = FormatNumber("its repetitions spread %.1f%%", 100 * spread) +
               FormatNumber(" (MdAPE over %.0f%%)", 100 * limits.mdape);
      Merge(&r, s);
    }
  }
  return r;
}

}  // namespace ntpb
