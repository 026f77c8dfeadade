// `ntpbench report RUN.json... -o report.html`: the HTML report over any number of run files.
#include <cstdio>

#include "ntpbench/html_report.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"
#include "src/common/file_io.h"

namespace ntpb::cli {

Command AddReportCommand(CLI::App* app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto options = std::make_shared<HtmlReportOptions>();
  CLI::App* c = app->add_subcommand(
      "report",
      "one self-contained HTML page (inline SVG) over run files: runs, comparisons by "
      "topology/backend/precision/batch/machine, precision speed-ups with their accuracy, "
      "layer-aligned tables, and per run its hot spots, markers and roofline. Run files from "
      "several machines (each CI runner's) merge into a fleet comparison");
  c->add_option("RUNS", *files, "run files: `ntpbench run --json`, a suite's --benchmark_out")
      ->required()
      ->type_name("RUN.json...");
  c->add_option("-o,--output", *output, "the page (written atomically; default: stdout)")
      ->type_name("report.html");
  c->add_option("--title", options->title, "the page's title")->type_name("TEXT");
  c->add_option("--top", options->top, "steps per hot-spot chart and layer table (default 20)")
      ->check(NumberBetween(1, 1e6, "a number of steps"))
      ->type_name("N");
  return {c, {}, [files, output, options](const std::vector<std::string>&) {
            if (!output->empty()) RefuseOutputOverInput(*output, *files, "--output");
            std::vector<RunResults> runs;
            for (const std::string& f : *files) runs.push_back(ReadRunResults(f));
            const std::string html = RenderHtmlReport(runs, *options);
            if (output->empty()) {
              std::fputs(html.c_str(), stdout);
            } else {
              WriteFileAtomically(*output, html);
              std::fprintf(stderr, "ntpbench: wrote %s (%zu run files)\n", output->c_str(),
                           files->size());
            }
            return 0;
          }};
}

}  // namespace ntpb::cli
