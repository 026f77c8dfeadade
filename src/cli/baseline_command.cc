// `ntpbench baseline update --run RUN.json ...`: a baseline from runs made elsewhere.
#include "ntpbench/baseline.h"
#include "ntpbench/error.h"
#include "src/cli/baseline_update.h"
#include "src/cli/commands.h"

namespace ntpb::cli {

int BaselineCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "update") {
    throw Error("", "", "baseline",
                "usage: ntpbench baseline update --run RUN.json [--run MORE.json ...] --suite S "
                "--baseline-dir DIR [--filter REGEX] [--force] [--signature-only]");
  }
  GateOptions o = ParseGateOptions({args.begin() + 1, args.end()});
  if (o.run_files.empty() || o.suite.empty() ||
      (o.baseline_dir.empty() && o.baseline_file.empty())) {
    throw Error("", "", "baseline update",
                "needs --run, --suite and --baseline-dir (or --baseline FILE)");
  }
  std::vector<RunResults> sessions;
  for (const std::string& f : o.run_files) sessions.push_back(ReadRunResults(f));
  if (o.signature_only) {
    if (o.baseline_dir.empty()) throw Error("", "", "--signature-only", "needs --baseline-dir");
    UpdateSignature(o, sessions.front());
    return 0;
  }
  const std::string path = o.baseline_file.empty()
                               ? BaselinePath(o.baseline_dir, sessions[0].machine, o.suite)
                               : o.baseline_file;
  return Update(o, sessions, path);
}

}  // namespace ntpb::cli
