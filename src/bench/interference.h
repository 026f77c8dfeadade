// The interference probe's reading (instrument) as the results model records it.
#pragma once

#include "ntpbench/results.h"
#include "src/instrument/interference_probe.h"

namespace ntpb::bench {

// The MdAPE is left at 0: the caller sets it where the iterations' latencies mean something.
inline InterferenceMeasure InterferenceOf(const instrument::MachineActivity& a) {
  InterferenceMeasure m;
  m.seconds = a.seconds;
  m.involuntary_switches = a.involuntary_switches;
  m.involuntary_switches_per_core_second = a.involuntary_switches_per_core_second;
  m.steal_share = a.steal_share;
  m.others_share = a.others_share;
  m.core_to_core_ns = a.core_to_core_ns;
  return m;
}

}  // namespace ntpb::bench
