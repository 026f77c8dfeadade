// `ntpbench compare A.json B.json [C.json...]` (or one file of several configurations): runs side
// by side (run_comparison.h), layer by layer; or, when A is a baseline, the gate's judgement of
// one run against it.
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"
#include "ntpbench/error.h"
#include "ntpbench/run_comparison.h"
#include "src/cli/commands.h"
#include "src/cli/gate_options.h"
#include "src/cli/option_checks.h"
#include "src/common/file_io.h"

namespace ntpb::cli {

namespace {

struct CompareCommandOptions {
  std::vector<std::string> files;
  std::string format = "text";
  std::string output;
  int top = 0;
};

constexpr std::size_t kMaxFileBytes = std::size_t{256} << 20;

// A baseline says its schema; Google Benchmark's run files have none. A damaged schema is still
// read as a baseline, whose reader says what is wrong with it.
bool IsBaselineText(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  return doc.is_object() && doc.contains("schema");
}

// One file of several configurations (`run --backend onednn,torch,xnnpack --json F`): each
// configuration (a benchmark name less its topology) becomes a run of its own, in the order the
// file has them, the first the reference.
std::vector<RunResults> SplitByConfiguration(const RunResults& file) {
  std::vector<RunResults> runs;
  std::map<std::string, size_t> index;
  for (const std::string& name : file.order) {
    if (!file.benchmarks.at(name).skipped.empty()) continue;
    const std::string config = name.substr(name.find('/') + 1);
    auto [it, fresh] = index.emplace(config, runs.size());
    if (fresh) {
      RunResults& one = runs.emplace_back(file);
      one.file = file.file + " [" + config + "]";
      one.benchmarks.clear();
      one.order.clear();
    }
    RunResults& one = runs[it->second];
    one.benchmarks[name] = file.benchmarks.at(name);
    one.order.push_back(name);
  }
  if (runs.size() < 2) {
    throw Error(file.file, "", "",
                "one configuration ran in it: compare needs a second file (ntpbench compare "
                "A.json B.json) or a file of several (ntpbench run TOPOLOGY --backend "
                "onednn,torch --json FILE)");
  }
  return runs;
}

// `first`: the first file's text, already read.
int CompareRunFiles(const CompareCommandOptions& o, const GateOptions& judging,
                    const std::string& first) {
  std::vector<RunResults> runs = {ParseRunResults(first, o.files[0])};
  for (size_t i = 1; i < o.files.size(); ++i) runs.push_back(ReadRunResults(o.files[i]));
  if (runs.size() == 1) runs = SplitByConfiguration(runs[0]);
  RunCompareOptions options;
  options.alpha = judging.compare.alpha;
  options.threshold = judging.compare.threshold;
  options.top = o.top;
  const CompareFormat format = o.format == "markdown" ? CompareFormat::kMarkdown
                               : o.format == "csv"    ? CompareFormat::kCsv
                                                      : CompareFormat::kText;
  const std::string text = FormatRunComparisons(CompareRuns(runs, options), format, options);
  if (o.output.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    WriteFileAtomically(o.output, text);
  }
  return 0;
}

}  // namespace

Command AddCompareCommand(CLI::App* app) {
  auto judging = std::make_shared<GateOptions>();
  auto o = std::make_shared<CompareCommandOptions>();
  CLI::App* c = app->add_subcommand(
      "compare",
      "compare runs side by side: the network, each marker and each layer (aligned by name, "
      "else by op and shape), the time change, its significance over the repetitions and a "
      "verdict; FLOPs, bytes, params, shapes and kernels that differ. Any run files: "
      "`ntpbench run --json`, a suite's --benchmark_out; any backend, precision, batch or "
      "machine; the first is the reference (a single file: each of its configurations). With a "
      "baseline first: the gate's judgement of a "
      "run against it");
  c->add_option("FILES", o->files,
                "run files (Google Benchmark JSON; one file of several backends or precisions "
                "compares them), or a baseline (ntpbench gate --update) and a run file")
      ->required()
      ->expected(-1)
      ->type_name("A.json [B.json...]");
  c->add_option("--format", o->format, "text (default, 120 columns), markdown or csv")
      ->check(OneOf({"text", "markdown", "csv"}, "format"))
      ->type_name("FORMAT");
  c->add_option("--top", o->top, "only the N layers whose time changed most")
      ->check(NumberBetween(1, 1e6, "a number of layers"))
      ->type_name("N");
  c->add_option("-o,--output", o->output, "write the comparison here (atomically), not stdout")
      ->type_name("FILE");
  AddJudgingOptions(c, judging.get());
  return {c, {}, [o, judging](const std::vector<std::string>&) {
            for (const std::string& out : {o->output, judging->report}) {
              if (!out.empty()) RefuseOutputOverInput(out, o->files, "--output/--report");
            }
            const std::string first = ReadTextFile(o->files[0], kMaxFileBytes);
            if (!IsBaselineText(first)) return CompareRunFiles(*o, *judging, first);
            if (o->files.size() != 2) {
              throw Error(o->files[0], "", "",
                          "a baseline is compared with one run file: ntpbench compare "
                          "BASELINE.json RUN.json");
            }
            const Baseline baseline = ParseBaseline(first, o->files[0]);
            const RunResults run = ReadRunResults(o->files[1]);
            return Report(*judging, Compare(&baseline, run, judging->compare));
          }};
}

}  // namespace ntpb::cli
