// The subcommands of `ntpbench`. Each declares itself and its options on the CLI11 app and
// returns how to run it once the command line is parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace ntpb::cli {

struct Command {
  CLI::App* app = nullptr;  // the subcommand: parsed when it was given
  // Flags handed on untouched (run: Google Benchmark's --benchmark_*; gate: a suite's --ntpb_*
  // too); anything else the command does not know is an error.
  std::vector<std::string> pass_through;
  // Runs it with the flags passed through; returns the exit code. Errors: ntpb::Error.
  std::function<int(const std::vector<std::string>& passed)> run;
};

Command AddRunCommand(CLI::App* app, const std::string& program);
Command AddInspectCommand(CLI::App* app);
Command AddOpsCommand(CLI::App* app);
Command AddConvertCommand(CLI::App* app);
Command AddMachineCommand(CLI::App* app);
Command AddGateCommand(CLI::App* app);
Command AddCompareCommand(CLI::App* app);
Command AddBaselineCommand(CLI::App* app);
Command AddReportCommand(CLI::App* app);
Command AddDiffCommand(CLI::App* app);
Command AddTraceCommand(CLI::App* app);
Command AddSweepCommand(CLI::App* app);
Command AddDevicesCommand(CLI::App* app);
Command AddCalibrateCommand(CLI::App* app);
Command AddPredictCommand(CLI::App* app);

}  // namespace ntpb::cli
