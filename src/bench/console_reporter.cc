#include <unistd.h>

#include <cstring>
#include <string>

#include "ntpbench/reporting.h"
#include "ntpbench/results.h"
#include "src/bench/benchmark_flags.h"

namespace ntpb {

using bench::FlagValue;

void ConsoleReporter::ReportRuns(const std::vector<Run>& runs) {
  if (show_all_counters_) return benchmark::ConsoleReporter::ReportRuns(runs);
  std::vector<Run> trimmed = runs;
  for (Run& run : trimmed) {
    for (auto it = run.counters.begin(); it != run.counters.end();) {
      it = IsHeadlineCounter(it->first) ? std::next(it) : run.counters.erase(it);
    }
  }
  benchmark::ConsoleReporter::ReportRuns(trimmed);
}

namespace {

bool IsFalse(const std::string& v) { return v == "false" || v == "0" || v == "no"; }

}  // namespace

benchmark::ConsoleReporter::OutputOptions ConsoleOptionsFromArgs(int argc, char** argv) {
  int options = benchmark::ConsoleReporter::OO_None;
  const std::string color = FlagValue(argc, argv, "benchmark_color");
  if ((color.empty() || color == "auto") ? isatty(STDOUT_FILENO) != 0 : !IsFalse(color)) {
    options |= benchmark::ConsoleReporter::OO_Color;
  }
  const std::string tabular = FlagValue(argc, argv, "benchmark_counters_tabular");
  if (!tabular.empty() && !IsFalse(tabular)) options |= benchmark::ConsoleReporter::OO_Tabular;
  return static_cast<benchmark::ConsoleReporter::OutputOptions>(options);
}

bool NonConsoleFormatRequested(int argc, char** argv) {
  const std::string format = FlagValue(argc, argv, "benchmark_format");
  return !format.empty() && format != "console";
}

}  // namespace ntpb
