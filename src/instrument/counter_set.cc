// Builds the sources a counter request names, says once what is unavailable and why.
#include <cstdio>
#include <mutex>
#include <set>

#include "ntpbench/counters.h"
#include "ntpbench/error.h"
#include "src/common/nearest_name.h"
#include "src/instrument/sources.h"

namespace ntpb {

bool WarnOnce(const std::string& what, const std::string& reason) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mutex);
  if (!seen.insert(what).second) return false;
  std::fprintf(stderr, "ntpbench: %s: %s\n", what.c_str(), reason.c_str());
  std::fflush(stderr);
  return true;
}

std::vector<std::string> ParseCounterList(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    if (comma > pos) out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

namespace {

bool IsPapiEvent(const std::string& item) {
  return item.rfind("PAPI_", 0) == 0 || item.find("::") != std::string::npos;
}

const instrument::NamedSource* FindSource(const std::string& name) {
  for (const instrument::NamedSource& s : instrument::NamedSources()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

}  // namespace

std::string UnknownCounterProblem(const std::string& item) {
  if (IsPapiEvent(item) || FindSource(item)) return "";
  std::vector<std::string> names;
  for (const instrument::NamedSource& s : instrument::NamedSources()) names.push_back(s.name);
  return "unknown counter source '" + item + "' (sources: " + instrument::SourceNameList() +
         "; or PAPI event names such as PAPI_TOT_CYC or perf::TASK-CLOCK)" +
         DidYouMean(item, names);
}

std::unique_ptr<CounterSet> CounterSet::Create(const std::vector<std::string>& request) {
  auto set = std::make_unique<CounterSet>();
  std::vector<std::string> papi_events;
  std::set<std::string> seen;
  std::vector<const instrument::NamedSource*> sources;
  for (const std::string& item : request) {
    if (!seen.insert(item).second) continue;
    if (IsPapiEvent(item)) {
      papi_events.push_back(item);
    } else if (const instrument::NamedSource* named = FindSource(item)) {
      sources.push_back(named);
    } else {
      throw Error("", "", "counters", UnknownCounterProblem(item));
    }
  }
  for (const instrument::NamedSource* s : sources) {
    std::string reason;
    std::unique_ptr<CounterSource> source = s->make(&reason);
    if (!source) {
      set->notes_.push_back({s->name, reason});
      continue;
    }
    set->sources_.push_back(std::move(source));
  }
  if (!papi_events.empty()) {
    std::vector<CounterNote> notes;
    auto papi = instrument::MakePapiSource(papi_events, &notes);
    for (CounterNote& n : notes) {
      n.reason += seen.count("perf") ? "; perf software events (task_clock_ms, page_faults, "
                                       "context_switches) still measure every region"
                                     : "; continuing without it (the counter source 'perf' "
                                       "gives task-clock, page faults and context switches)";
      set->notes_.push_back(n);
    }
    if (papi) set->sources_.push_back(std::move(papi));
  }
  for (const CounterNote& n : set->notes_) WarnOnce(n.what, "unavailable: " + n.reason);
  for (const auto& source : set->sources_) {
    for (const std::string& m : source->metrics()) set->metrics_.push_back(m);
    if (source->wants_steps()) {
      set->step_sources_.push_back(source.get());
      set->wants_steps_ = true;
    }
  }
  return set;
}

void CounterSet::Start() {
  for (auto& s : sources_) s->Start();
}

void CounterSet::Stop() {
  for (auto& s : sources_) s->Stop();
}

void CounterSet::Read(double* values) {
  for (auto& s : sources_) {
    s->Read(values);
    values += s->metrics().size();
  }
}

}  // namespace ntpb
