// `ntpbench report RUN.json... -o report.html`: the HTML report over any number of run files.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include "ntpbench/error.h"
#include "ntpbench/html_report.h"
#include "ntpbench/prediction_report.h"
#include "ntpbench/reliability.h"
#include "ntpbench/report.h"
#include "ntpbench/run_file.h"
#include "ntpbench/sweep_report.h"
#include "ntpbench/sweep_results.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"
#include "src/cli/run_summaries.h"
#include "src/common/file_io.h"
#include "src/common/printable.h"

namespace ntpb::cli {
namespace {

// A sweep's results file says so near its start ("format": "ntpbench-sweep-results").
// Only a regular file is opened here (a FIFO would block); the readers refuse the rest.
// The format a file's first bytes name (sweep results and prediction checks say it first).
bool Announces(const std::string& path, const std::string& format) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find("\"" + format + "\"") != std::string::npos;
}

// Each run of the files as `ntpbench run` printed it, from the run file alone (every step carries
// its layers, ops, shapes, cost and roofline bound): no topology is read. The text format ends
// with the tables `run` ends with (precisions, generations, scenarios).
void PrintRunTables(const std::vector<RunResults>& runs, const RunReportFormat& format,
                    const TableView& view) {
  std::fputs(format.header, stdout);
  std::vector<ScenarioRun> scenario_runs;
  std::vector<PrecisionRun> precision_runs;
  for (const RunResults& run : runs) {
    const MachinePeaks* peaks = run.peaks ? &*run.peaks : nullptr;
    for (const std::string& name : run.order) {
      const BenchmarkResult& b = run.benchmarks.at(name);
      if (!b.skipped.empty()) continue;
      const RunMeasurement m = b.Measurement();
      if (format.heading) {
        std::printf("\n%s  (%s)\n", Printable(name).c_str(), Printable(run.file).c_str());
        // As `run` said it: whether the machine let this benchmark measure.
        const Reliability reliability = JudgeBenchmark(b);
        if (!reliability.reliable) std::printf("%s\n", reliability.Verdict().c_str());
        if (m.scenario && m.scenario->kind == ScenarioKind::kGenerate && !m.phases.empty()) {
          std::printf("%s  (per layer and phase)\n%s", Printable(name).c_str(),
                      RenderPhaseTable(m, peaks ? peaks->bandwidth_gbs : 0).c_str());
        }
      }
      std::fputs(format.render({name, m, peaks, view}).c_str(), stdout);
      // How the machine ran the precision, as the run recorded it (context ntpbench_path.*).
      const auto path =
          run.context.find("ntpbench_path." + m.setup.backend + "." + m.setup.precision);
      if (format.heading && path != run.context.end() && path->is_string()) {
        std::printf("%s %s here: %s\n", Printable(m.setup.backend).c_str(),
                    Printable(m.setup.precision).c_str(),
                    Printable(path->get<std::string>()).c_str());
      }
      scenario_runs.push_back({name, m, run.threads});
      if (!m.scenario) precision_runs.push_back({name, m});
    }
  }
  if (format.heading) PrintRunSummaries(std::move(scenario_runs), precision_runs);
}

}  // namespace

Command AddReportCommand(CLI::App* app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto options = std::make_shared<HtmlReportOptions>();
  CLI::App* c = app->add_subcommand(
      "report",
      "one self-contained HTML page (inline SVG) over run files: runs, comparisons by "
      "topology/backend/precision/batch/machine, precision speed-ups with their accuracy, "
      "layer-aligned tables, and per run its hot spots, markers and roofline. Run files from "
      "several machines (each CI runner's) merge into a fleet comparison. Given `ntpbench sweep` "
      "results files instead: the sweep page (each factor's throughput and latency, throughput "
      "against operation density under the roofline, the points that contradict it); given "
      "`ntpbench predict --check -o` files: predicted against measured latency per machine");
  c->add_option("RUNS", *files, "run files: `ntpbench run --json`, a suite's --benchmark_out")
      ->required()
      ->type_name("RUN.json...");
  c->add_option("-o,--output", *output, "the page (written atomically; default: stdout)")
      ->type_name("report.html");
  c->add_option("--title", options->title, "the page's title")->type_name("TEXT");
  c->add_option("--top", options->top, "steps per hot-spot chart and layer table (default 20)")
      ->check(NumberBetween(1, 1e6, "a number of steps"))
      ->type_name("N");
  auto table = std::make_shared<std::string>();
  auto view = std::make_shared<TableView>();
  std::vector<std::string> formats;
  std::string names;
  for (const RunReportFormat& f : RunReportFormats()) {
    formats.push_back(f.name);
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  }
  CLI::Option* table_option =
      c->add_option("--table", *table,
                    "instead of the page, what `ntpbench run` printed after its runs (" + names +
                        "), read from the run files alone")
          ->check(OneOf(formats, "format"))
          ->type_name("FORMAT");
  c->add_flag("--wide", view->wide, "with --table text: every column")->needs(table_option);
  return {
      c, {}, [c, files, output, options, table, view](const std::vector<std::string>&) {
        if (!output->empty()) RefuseOutputOverInput(*output, *files, "--output");
        // Sweep results files get the sweep page, prediction checks theirs; run files the
        // run report. One kind at a time.
        std::vector<SweepResults> sweeps;
        std::vector<PredictionCheck> checks;
        std::vector<RunResults> runs;
        std::string first_file, first_kind;
        for (const std::string& f : *files) {
          std::string kind = "a run file";
          if (Announces(f, "ntpbench-sweep-results")) {
            sweeps.push_back(ReadSweepResults(f));
            kind = "a sweep's results";
          } else if (Announces(f, "ntpbench-prediction-check")) {
            checks.push_back(ReadPredictionCheck(f));
            kind = "a prediction check";
          } else {
            runs.push_back(ReadRunResults(f));
          }
          if (first_file.empty()) first_file = f, first_kind = kind;
          if (kind != first_kind) {
            throw Error(f, "", "RUNS",
                        "is " + kind + ", " + first_file + " " + first_kind +
                            ": report one kind at a time");
          }
        }
        if (!table->empty()) {
          if (runs.empty())
            throw Error(first_file, "", "--table", "takes run files, not " + first_kind);
          if (!output->empty())
            throw Error("", "", "--output",
                        "the tables go to standard output, not a file (--table)");
          if (c->count("--top") > 0) view->top = options->top;
          PrintRunTables(runs, *FindRunReportFormat(*table), *view);
          return 0;
        }
        const bool default_title = options->title == "ntpbench report";
        const std::string html =
            !checks.empty()
                ? RenderPredictionCheckHtml(
                      checks, default_title ? "ntpbench prediction check" : options->title)
            : sweeps.empty()
                ? RenderHtmlReport(runs, *options)
                : RenderSweepHtml(sweeps, default_title ? "ntpbench sweep report" : options->title);
        if (output->empty()) {
          std::fputs(html.c_str(), stdout);
        } else {
          WriteFileAtomically(*output, html);
          std::fprintf(stderr, "ntpbench: wrote %s (%zu files)\n", output->c_str(), files->size());
        }
        return 0;
      }};
}

}  // namespace ntpb::cli
