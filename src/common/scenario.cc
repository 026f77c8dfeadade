#include "ntpbench/scenario.h"

#include <cmath>
#include <cstdio>

#include "ntpbench/error.h"

namespace ntpb {
namespace {

// A number as short as it reads: 200, 12.5.
std::string Short(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

const std::vector<ScenarioInfo>& Scenarios() {
  static const std::vector<ScenarioInfo> scenarios = {
      {ScenarioKind::kSingleStream, "single-stream", "",
       "one query at a time, one stream: the latency distribution", 0},
      {ScenarioKind::kOffline, "offline", "offline",
       "every stream busy with its own queries at once: samples per second",
       kScenarioServesQueries | kScenarioStreams},
      {ScenarioKind::kServer, "server", "server",
       "Poisson arrivals at a rate (or the highest rate whose p99 meets a bound), served by the "
       "streams: queries per second and latency",
       kScenarioServesQueries | kScenarioStreams | kScenarioRate | kScenarioNeedsRate |
           kScenarioP99Search | kScenarioQueueing},
      {ScenarioKind::kMultiStream, "multi-stream", "multistream",
       "one query at a time, its samples split over the streams",
       kScenarioServesQueries | kScenarioStreams | kScenarioSamplesPerQuery |
           kScenarioQuerySpansStreams},
      {ScenarioKind::kGenerate, "generate", "generate",
       "a decoder's requests: the prompt's prefill, then one decode step per token (TTFT, TPOT)",
       kScenarioServesQueries | kScenarioRate},
  };
  return scenarios;
}

const ScenarioInfo& InfoOf(ScenarioKind kind) {
  for (const ScenarioInfo& s : Scenarios()) {
    if (s.kind == kind) return s;
  }
  throw Error("", "", "scenario",
              "scenario " + std::to_string(static_cast<int>(kind)) + " has no entry in the table");
}

bool IsScenarioKind(int value) {
  for (const ScenarioInfo& s : Scenarios()) {
    if (static_cast<int>(s.kind) == value) return true;
  }
  return false;
}

const char* ScenarioName(ScenarioKind kind) { return InfoOf(kind).name; }

std::string ScenarioNames() {
  std::string names;
  for (const ScenarioInfo& s : Scenarios())
    names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names;
}

std::string ScenarioNamesWith(ScenarioTrait trait) {
  std::vector<std::string> names;
  for (const ScenarioInfo& s : Scenarios()) {
    if (s.Has(trait)) names.push_back(s.name);
  }
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

ScenarioKind ParseScenarioKind(const std::string& text, const std::string& field) {
  for (const ScenarioInfo& s : Scenarios()) {
    if (text == s.name) return s.kind;
  }
  throw Error("", "", field, "unknown scenario '" + text + "' (one of: " + ScenarioNames() + ")");
}

std::string ScenarioProblem(const Scenario& s) {
  const ScenarioInfo& info = InfoOf(s.kind);
  if (info.Has(kScenarioNeedsRate) && s.target_qps <= 0 && s.p99_bound_ms <= 0) {
    return std::string(info.name) + " needs a rate (--target-qps QPS; a suite's Server(qps))" +
           (info.Has(kScenarioP99Search)
                ? " or a search (--find-max-qps --p99 T; a suite's MaxQps(bound))"
                : "");
  }
  return "";
}

std::string ScenarioTag(const Scenario& s) {
  const ScenarioInfo& info = InfoOf(s.kind);
  std::string tag = info.tag;
  if (tag.empty()) return "";
  if (s.p99_bound_ms > 0) {
    tag += "/p99_ms:" + Short(s.p99_bound_ms);
  } else if (s.target_qps > 0) {
    tag += "/qps:" + Short(s.target_qps);
  }
  if (s.samples_per_query > 0) tag += "/samples:" + std::to_string(s.samples_per_query);
  if (s.queries > 0) tag += "/queries:" + std::to_string(s.queries);
  return tag;
}

int64_t QueriesForPercentile(double percentile) {
  // 10 queries above the percentile: n (1 - p) >= 10.
  // Rounded first: 10 / (1 - 0.999) is 10000.000000000002 in doubles.
  return static_cast<int64_t>(std::ceil(10.0 / (1.0 - percentile / 100.0) - 1e-6));
}

}  // namespace ntpb
