// `ntpbench compare BASELINE.json RUN.json`: two files, no suite run.
#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"
#include "ntpbench/error.h"
#include "src/cli/commands.h"
#include "src/cli/gate_options.h"

namespace ntpb::cli {

int CompareCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files, rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      files.push_back(a);
      continue;
    }
    rest.push_back(a);
    const bool flag = a == "--update" || a == "--force" || a == "--rerun-inconclusive" ||
                      a == "--raw" || a == "--signature-only";
    if (!flag && a.find('=') == std::string::npos && i + 1 < args.size()) rest.push_back(args[++i]);
  }
  if (files.size() != 2)
    throw Error("", "", "compare", "usage: ntpbench compare BASELINE.json RUN.json [options]");
  GateOptions o = ParseGateOptions(rest);
  const Baseline baseline = ReadBaseline(files[0]);
  const RunResults run = ReadRunResults(files[1]);
  return Report(o, Compare(&baseline, run, o.compare));
}

}  // namespace ntpb::cli
