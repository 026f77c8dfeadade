// `ntpbench ops`: the ops a topology can use; `--onnx`: the ONNX reader's coverage.
#include <cstdio>
#include <memory>

#include "ntpbench/onnx_format.h"
#include "src/cli/commands.h"
#include "src/topology/op_catalog.h"

namespace ntpb::cli {

Command AddOpsCommand(CLI::App* app) {
  CLI::App* c = app->add_subcommand("ops", "the ops a topology can use, and the inlays");
  auto onnx = std::make_shared<bool>(false);
  c->add_flag("--onnx", *onnx,
              "the ONNX ops the reader maps, folds or refuses, as a Markdown table");
  return {c, {}, [onnx](const std::vector<std::string>&) {
            if (*onnx) {
              std::fputs(OnnxCoverageMarkdown().c_str(), stdout);
              return 0;
            }
            for (const OpDef& op : AllOps()) {
              std::printf("%-16s %s%s\n", op.name.c_str(),
                          op.kind == OpKind::kInlay ? "(inlay) " : "", op.summary.c_str());
            }
            return 0;
          }};
}

}  // namespace ntpb::cli
