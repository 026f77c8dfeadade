#include "ntpbench/scenario.h"

#include <cmath>
#include <cstdio>

#include "ntpbench/error.h"

namespace ntpb {
namespace {

constexpr ScenarioKind kKinds[] = {ScenarioKind::kSingleStream, ScenarioKind::kOffline,
                                   ScenarioKind::kServer, ScenarioKind::kMultiStream,
                                   ScenarioKind::kGenerate};

// A number as short as it reads: 200, 12.5.
std::string Short(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

const char* ScenarioName(ScenarioKind kind) {
  switch (kind) {
    case ScenarioKind::kSingleStream:
      return "single-stream";
    case ScenarioKind::kOffline:
      return "offline";
    case ScenarioKind::kServer:
      return "server";
    case ScenarioKind::kMultiStream:
      return "multi-stream";
    case ScenarioKind::kGenerate:
      return "generate";
  }
  return "?";
}

std::string ScenarioNames() {
  std::string names;
  for (const ScenarioKind k : kKinds) {
    names += std::string(names.empty() ? "" : ", ") + ScenarioName(k);
  }
  return names;
}

ScenarioKind ParseScenarioKind(const std::string& text, const std::string& field) {
  for (const ScenarioKind k : kKinds) {
    if (text == ScenarioName(k)) return k;
  }
  throw Error("", "", field, "unknown scenario '" + text + "' (one of: " + ScenarioNames() + ")");
}

std::string ScenarioTag(const Scenario& s) {
  std::string tag;
  switch (s.kind) {
    case ScenarioKind::kSingleStream:
      return "";
    case ScenarioKind::kOffline:
      tag = "offline";
      break;
    case ScenarioKind::kServer:
      tag = s.p99_bound_ms > 0 ? "server/p99_ms:" + Short(s.p99_bound_ms)
                               : "server/qps:" + Short(s.target_qps);
      break;
    case ScenarioKind::kMultiStream:
      tag = "multistream";
      if (s.samples_per_query > 0) tag += "/samples:" + std::to_string(s.samples_per_query);
      break;
    case ScenarioKind::kGenerate:
      tag = "generate";
      if (s.target_qps > 0) tag += "/qps:" + Short(s.target_qps);
      break;
  }
  if (s.queries > 0) tag += "/queries:" + std::to_string(s.queries);
  return tag;
}

int64_t QueriesForPercentile(double percentile) {
  // 10 queries above the percentile: n (1 - p) >= 10.
  // Rounded first: 10 / (1 - 0.999) is 10000.000000000002 in doubles.
  return static_cast<int64_t>(std::ceil(10.0 / (1.0 - percentile / 100.0) - 1e-6));
}

}  // namespace ntpb
