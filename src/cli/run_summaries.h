// What follows the per-run tables of `ntpbench run`, and of `ntpbench report --table` over a run
// file: the precisions' speed against their accuracy, the generations' time to first token and
// per output token, and the scenarios' throughput against p99 latency.
#pragma once

#include <algorithm>
#include <cstdio>
#include <vector>

#include "ntpbench/precision_report.h"
#include "ntpbench/scenario_report.h"

namespace ntpb::cli {

// `runs`: every run shown, single-stream ones included (the scenario table sets them against
// the scenarios); `precisions`: the single-stream iterations, which measured their accuracy.
inline void PrintRunSummaries(std::vector<ScenarioRun> runs,
                              const std::vector<PrecisionRun>& precisions) {
  std::fputs(RenderPrecisionTable(precisions).c_str(), stdout);
  // Generations have their own table; the others the batching decision's.
  std::vector<ScenarioRun> generations, others;
  for (ScenarioRun& r : runs) {
    const bool generate =
        r.measured.scenario && r.measured.scenario->kind == ScenarioKind::kGenerate;
    (generate ? generations : others).push_back(std::move(r));
  }
  if (!generations.empty()) {
    std::printf("\nGeneration: time to first token, time per output token, tokens per second\n%s",
                RenderGenerationTable(generations).c_str());
  }
  const bool scenarios = std::any_of(others.begin(), others.end(), [](const ScenarioRun& r) {
    return r.measured.scenario.has_value();
  });
  if (scenarios) {
    std::printf("\nScenarios: throughput against p99 latency per streams x batch\n%s",
                RenderScenarioTable(others).c_str());
  }
}

}  // namespace ntpb::cli
