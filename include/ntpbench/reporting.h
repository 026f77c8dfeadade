// ntpbench's console reporter: Google Benchmark's, with the per-layer counters
// (`layer.<name>.*`) and the context's JSON values left out unless asked for; they stay in JSON
// output.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

namespace ntpb {

// Google Benchmark's console, one line a run: samples/s, GFLOP/s and p99 as counters
// (results.h's IsHeadlineCounter); every counter with `show_all_counters`
// (--ntpb_console_layers). The JSON always has them all.
class ConsoleReporter : public benchmark::ConsoleReporter {
 public:
  ConsoleReporter(OutputOptions options, bool show_all_counters)
      : benchmark::ConsoleReporter(options), show_all_counters_(show_all_counters) {}
  void ReportRuns(const std::vector<Run>& runs) override;
  // Google Benchmark's header, but context entries whose value is JSON (machine facts and
  // ceilings, each benchmark's configuration: what `ntpbench report` reads back) are named on one
  // line, not printed: each ran to thousands of columns.
  bool ReportContext(const Context& context) override;

 private:
  bool show_all_counters_;
};

// Console options as Google Benchmark would pick them from argv (--benchmark_color,
// --benchmark_counters_tabular) and whether stdout is a terminal.
benchmark::ConsoleReporter::OutputOptions ConsoleOptionsFromArgs(int argc, char** argv);
// True when argv asks for --benchmark_format other than console.
bool NonConsoleFormatRequested(int argc, char** argv);

}  // namespace ntpb
