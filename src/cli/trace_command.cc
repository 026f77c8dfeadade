// `ntpbench trace RUN.json... -o trace.json`: the iterations a suite traced (--ntpb_trace) as a
// Chrome trace-event file; `run --trace FILE` writes the same directly.
#include <cstdio>

#include "ntpbench/chrome_trace.h"
#include "ntpbench/error.h"
#include "ntpbench/run_file.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"
#include "src/cli/trace_file.h"
#include "src/common/file_io.h"
#include "src/common/json_text.h"

namespace ntpb::cli {

void WriteTraceFile(const std::vector<std::pair<std::string, RunMeasurement>>& runs,
                    const std::string& path, const std::string& hint) {
  std::vector<std::pair<std::string, const RunMeasurement*>> traced;
  for (const auto& [name, m] : runs) {
    if (!m.trace.iterations.empty()) traced.emplace_back(name, &m);
  }
  if (traced.empty()) throw Error(path, "", "", "no traced iterations to write: " + hint);
  WriteFileAtomically(path, JsonText(EncodeChromeTrace(traced)) + "\n");
  std::fprintf(stderr,
               "ntpbench: trace of %zu benchmark%s in %s (ui.perfetto.dev, "
               "chrome://tracing)\n",
               traced.size(), traced.size() == 1 ? "" : "s", path.c_str());
}

Command AddTraceCommand(CLI::App* app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  CLI::App* c = app->add_subcommand(
      "trace",
      "a Chrome trace-event file (ui.perfetto.dev, chrome://tracing) of the iterations a suite "
      "traced: run it with --ntpb_trace --benchmark_out=RUN.json (`ntpbench run --trace FILE` "
      "writes one directly)");
  c->add_option("RUNS", *files, "run files with traced iterations")
      ->required()
      ->type_name("RUN.json...");
  c->add_option("-o,--output", *output, "the trace file (written atomically)")
      ->required()
      ->type_name("trace.json");
  return {c, {}, [files, output](const std::vector<std::string>&) {
            RefuseOutputOverInput(*output, *files, "--output");
            std::vector<std::pair<std::string, RunMeasurement>> runs;
            for (const std::string& f : *files) {
              const RunResults run = ReadRunResults(f);
              for (const std::string& name : run.order) {
                runs.emplace_back(name, run.benchmarks.at(name).Measurement());
              }
            }
            WriteTraceFile(runs, *output,
                           "run the suite with --ntpb_trace (or `ntpbench run --trace FILE`)");
            return 0;
          }};
}

}  // namespace ntpb::cli
