// `ntpbench baseline update --run RUN.json ...`: a baseline from runs made elsewhere.
#include "ntpbench/baseline.h"
#include "ntpbench/error.h"
#include "src/cli/baseline_update.h"
#include "src/cli/commands.h"

namespace ntpb::cli {

namespace {

int UpdateBaseline(const GateOptions& o) {
  if (o.baseline_dir.empty() && o.baseline_file.empty()) {
    throw Error("", "", "--baseline-dir", "needed (or --baseline FILE)");
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

}  // namespace

Command AddBaselineCommand(CLI::App* app) {
  auto o = std::make_shared<GateOptions>();
  CLI::App* c = app->add_subcommand("baseline", "baselines from runs made elsewhere");
  c->require_subcommand(1);
  CLI::App* update = c->add_subcommand(
      "update",
      "write the baseline of the runs' machine class (and the signature beside it); what "
      "changed is printed");
  AddBaselineUpdateOptions(update, o.get());
  return {c, {}, [o](const std::vector<std::string>&) { return UpdateBaseline(*o); }};
}

}  // namespace ntpb::cli
