// Factories of the counter sources, one file each. Each returns a source, or nullptr with
// *reason set when it cannot work here. A new source: its file, and a line in
// source_table.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ntpbench/counters.h"

namespace ntpb::instrument {

std::unique_ptr<CounterSource> MakeRusageSource(std::string* reason);
std::unique_ptr<CounterSource> MakePerfSource(std::string* reason);
std::unique_ptr<CounterSource> MakeMemorySource(std::string* reason);
std::unique_ptr<CounterSource> MakeSdeSource(std::string* reason);
// PAPI events (presets and natives). Misspelled names throw ntpb::Error; events that exist but
// cannot be counted here are dropped and described in `notes`.
std::unique_ptr<CounterSource> MakePapiSource(const std::vector<std::string>& events,
                                              std::vector<CounterNote>* notes);

using SourceMaker = std::unique_ptr<CounterSource> (*)(std::string* reason);
struct NamedSource {
  const char* name;  // as in --counters
  const char* what;  // one phrase for --help
  SourceMaker make;
};
// Every source a counter request may name, in the order --help lists them.
const std::vector<NamedSource>& NamedSources();
// "sde, perf, rusage, memory".
std::string SourceNameList();

}  // namespace ntpb::instrument
