// `ntpbench compare BASELINE.json RUN.json`: two files, no suite run.
#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"
#include "src/cli/commands.h"
#include "src/cli/gate_options.h"
#include "src/common/file_io.h"

namespace ntpb::cli {

Command AddCompareCommand(CLI::App* app) {
  auto o = std::make_shared<GateOptions>();
  auto files = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* c =
      app->add_subcommand("compare", "compare a run with a baseline: two files, no suite run");
  c->add_option("BASELINE", files->first, "a baseline (ntpbench gate --update)")
      ->required()
      ->type_name("BASELINE.json");
  c->add_option("RUN", files->second, "Google Benchmark JSON of a run")
      ->required()
      ->type_name("RUN.json");
  AddJudgingOptions(c, o.get());
  return {c, {}, [o, files](const std::vector<std::string>&) {
            if (!o->report.empty()) {
              RefuseOutputOverInput(o->report, {files->first, files->second}, "--report");
            }
            const Baseline baseline = ReadBaseline(files->first);
            const RunResults run = ReadRunResults(files->second);
            return Report(*o, Compare(&baseline, run, o->compare));
          }};
}

}  // namespace ntpb::cli
