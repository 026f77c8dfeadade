// `ntpbench ops`: the ops a topology can use.
#include <cstdio>

#include "src/cli/commands.h"
#include "src/topology/op_catalog.h"

namespace ntpb::cli {

Command AddOpsCommand(CLI::App* app) {
  CLI::App* c = app->add_subcommand("ops", "the ops a topology can use, and the inlays");
  return {c, {}, [](const std::vector<std::string>&) {
            for (const OpDef& op : AllOps()) {
              std::printf("%-16s %s%s\n", op.name.c_str(),
                          op.kind == OpKind::kInlay ? "(inlay) " : "", op.summary.c_str());
            }
            return 0;
          }};
}

}  // namespace ntpb::cli
