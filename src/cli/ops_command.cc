// `ntpbench ops`: the ops a topology can use; `--onnx`: the ONNX reader's coverage.
#include <cstdio>
#include <memory>

#include "ntpbench/onnx_format.h"
#include "src/cli/commands.h"
#include "src/cli/help_formatter.h"
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
            // 120 columns: the summary wrapped beside the names, continued under itself.
            const std::string indent(17, ' ');
            for (const OpDef& op : AllOps()) {
              const std::string text = (op.kind == OpKind::kInlay ? "(inlay) " : "") + op.summary;
              std::string wrapped = WrapText(text, 120 - indent.size());
              for (size_t at = wrapped.find('\n'); at != std::string::npos;
                   at = wrapped.find('\n', at + 1 + indent.size())) {
                wrapped.insert(at + 1, indent);
              }
              std::printf("%-16s %s\n", op.name.c_str(), wrapped.c_str());
            }
            return 0;
          }};
}

}  // namespace ntpb::cli
