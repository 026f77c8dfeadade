// The counter sources a request may name: one line per source.
#include "src/instrument/sources.h"

namespace ntpb::instrument {

const std::vector<NamedSource>& NamedSources() {
  static const std::vector<NamedSource> sources = {
      {"sde", "analytic FLOPs and bytes per step as PAPI software events", MakeSdeSource},
      {"perf", "perf software events: task clock, page faults, context switches", MakePerfSource},
      {"rusage", "getrusage: faults, context switches, CPU time", MakeRusageSource},
      {"memory", "heap allocations: count and bytes", MakeMemorySource},
  };
  return sources;
}

std::string SourceNameList() {
  std::string list;
  for (const NamedSource& s : NamedSources())
    list += (list.empty() ? "" : ", ") + std::string(s.name);
  return list;
}

}  // namespace ntpb::instrument
