// ntpbench: benchmark and inspect topologies from the command line. The commands declare
// themselves on one CLI11 app (src/cli/*_command.cc); this file parses and turns every error into
// one line and a non-zero exit.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "src/bench/benchmark_flags.h"
#include "src/bench/openmp_wait_policy.h"
#include "src/cli/commands.h"
#include "src/cli/help_formatter.h"
#include "src/cli/option_checks.h"
#include "src/common/printable.h"

namespace {

// The options each backend declares, with the environment variable that sets them when a run
// does not; then ntpbench's own environment variables.
std::string BackendOptionsHelp() {
  std::string out = "Backend options (run --backend-option, suites --ntpb_backend_option=):\n";
  for (const std::string& name : ntpb::BackendNames()) {
    for (const ntpb::BackendOption& o : ntpb::FindBackend(name)->Options()) {
      std::string values;
      for (const std::string& v : o.values) values += (values.empty() ? "" : "|") + v;
      out += "  " + name + "." + o.name + "=" + values + "  (default " + o.values.front() + "; $" +
             o.env + ")\n      " + o.help + "\n";
    }
  }
  out +=
      "\nEnvironment: NTPB_COUNTERS (default --counters), NTPB_CACHE_DIR (machine ceilings; "
      "default ~/.cache/ntpbench), NTPB_TOPOLOGY_DIR (where suites look for topologies), "
      "NTPB_OPENCL_DEVICE (default --device), NTPB_OPENCL_CACHE=off (no compiled-kernel cache), "
      "NTPB_OPENMP_WAIT=keep (libgomp's own spin count, not 10000), NTPB_BACKEND_MODULE_PATH "
      "(more folders of backend modules), NTPB_ALLOW_NO_BASELINE=1 (gate: no baseline is a "
      "skip).\n"
      "\n`ntpbench COMMAND --help` lists a command's options. Long runs print progress on "
      "stderr; results go to stdout.";
  return out;
}

// "ntpbench 0.1.0" and what this build was made with. A backend that starts a driver or loads a
// module (OpenCL, torch) is not started for this: a run's JSON context records its version.
std::string VersionText() {
  std::string out = std::string("ntpbench ") + NTPBENCH_VERSION + "\nbackends:";
  for (const std::string& name : ntpb::BackendNames()) {
    const ntpb::Backend* b = ntpb::FindBackend(name);
    out += " " + name + " (" + (b->StartsADriver() ? "started when a run uses it" : b->version()) +
           ")";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything runs OpenMP: it may run this program again, with the policy set.
  ntpb::bench::ApplyOpenMpWaitPolicy(argv);
  CLI::App app(
      "ntpbench: how a neural-network topology runs on this machine (latency, throughput, which "
      "layers dominate, compute- or memory-bound), before it is written in a framework.",
      "ntpbench");
  app.formatter(std::make_shared<ntpb::cli::HelpFormatter>());
  app.require_subcommand(1);
  // An option given twice takes the last value, as Google Benchmark's flags do: scripts and
  // ntpbench_add_suite(ARGS ...) append to a command line to override it.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Computed when asked for: the backends' versions start their drivers (PoCL: ~60 MB and ~50 ms),
  // which no other command should pay for.
  app.set_version_flag("--version", [] { return VersionText(); });
  const std::vector<ntpb::cli::Command> commands = {
      ntpb::cli::AddRunCommand(&app, argv[0]), ntpb::cli::AddInspectCommand(&app),
      ntpb::cli::AddOpsCommand(&app),          ntpb::cli::AddConvertCommand(&app),
      ntpb::cli::AddMachineCommand(&app),      ntpb::cli::AddGateCommand(&app),
      ntpb::cli::AddCompareCommand(&app),      ntpb::cli::AddBaselineCommand(&app),
      ntpb::cli::AddReportCommand(&app),       ntpb::cli::AddDiffCommand(&app),
      ntpb::cli::AddTraceCommand(&app),        ntpb::cli::AddSweepCommand(&app),
      ntpb::cli::AddDevicesCommand(&app),      ntpb::cli::AddCalibrateCommand(&app),
      ntpb::cli::AddPredictCommand(&app),
  };
  // Set after the commands are made, which would take it over: the backends' options and the
  // environment go under the overview and under the commands that take backend options.
  const std::string backend_options = BackendOptionsHelp();
  app.footer(backend_options);
  for (const ntpb::cli::Command& c : commands) {
    const std::string& name = c.app->get_name();
    if (name != "run" && name != "sweep") continue;
    const std::string own = c.app->get_footer();
    c.app->footer(own.empty() ? backend_options : own + "\n\n" + backend_options);
  }
  // What a command does not know is left for PassThrough: one line with "did you mean".
  for (const ntpb::cli::Command& c : commands) {
    c.app->allow_extras();
    for (CLI::App* sub : c.app->get_subcommands([](CLI::App*) { return true; })) {
      sub->allow_extras();
    }
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {  // a usage error: the help on stderr
    std::fputs(app.help().c_str(), stderr);
    return 2;
  }
  if (args[0] == "help") {  // `ntpbench help [COMMAND]`, as git and cargo take it
    CLI::App* about = &app;
    if (args.size() > 1) {
      for (const ntpb::cli::Command& c : commands) {
        if (c.app->get_name() == args[1]) about = c.app;
      }
    }
    std::fputs(about->help().c_str(), stdout);
    return 0;
  }
  // The command line: a mistake in it exits 2 with one line, before anything runs.
  const ntpb::cli::Command* command = nullptr;
  std::vector<std::string> passed;
  try {
    if (args[0][0] != '-') ntpb::cli::CheckCommandName(app, args[0]);
    ntpb::cli::RejectEmptyAssignments(args);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: stdout, exit 0
      // The command path as typed ("baseline update"), for its --help.
      std::string path = "ntpbench";
      const CLI::App* at = &app;
      for (const std::string& a : args) {
        const CLI::App* next = nullptr;
        for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; })) {
          if (sub->get_name() == a) next = sub;
        }
        if (!next) break;
        at = next;
        path += " " + a;
      }
      std::fprintf(stderr, "ntpbench: error: %s; options: %s --help\n",
                   ntpb::Printable(ntpb::cli::DescribeParseError(e)).c_str(), path.c_str());
      return 2;
    }
    for (const ntpb::cli::Command& c : commands) {
      if (c.app->parsed()) command = &c;
    }
    if (!command) return 2;
    const CLI::App* leaf = command->app;
    while (!leaf->get_subcommands().empty()) leaf = leaf->get_subcommands().front();
    passed = ntpb::cli::PassThrough(*leaf, command->pass_through);
    ntpb::bench::CheckBenchmarkFlags(passed);  // values Google Benchmark would abort on
  } catch (const ntpb::Error& e) {
    std::fprintf(stderr, "ntpbench: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ntpbench: internal error: %s\n", ntpb::Printable(e.what()).c_str());
    return 3;
  }
  try {
    return command->run(passed);
  } catch (const ntpb::Error& e) {
    std::fprintf(stderr, "ntpbench: error: %s\n", e.what());
    // An error naming an option alone (no file, no layer) is a mistake in the command line,
    // found once the command looked at what the option names (an output that is an input).
    const bool option_error = e.file().empty() && e.layer().empty() && !e.field().empty();
    return option_error ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ntpbench: internal error: %s\n", ntpb::Printable(e.what()).c_str());
    return 3;
  }
}
