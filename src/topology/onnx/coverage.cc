// The ONNX op coverage table of docs/onnx.md, generated from the mapping table, the constant
// folder's op list and the graph plumbing MapNode handles itself, so that it cannot drift from
// what the importer does (a test compares the two).
#include <algorithm>
#include <string>
#include <vector>

#include "ntpbench/onnx_format.h"
#include "src/topology/onnx/constant_folding.h"
#include "src/topology/onnx/mappings.h"

namespace ntpb {

std::string OnnxCoverageMarkdown() {
  using onnx_import::AllOnnxMappings;
  using onnx_import::OnnxOpMapping;
  std::string out = "| ONNX op | IR | notes |\n|---|---|---|\n";
  auto row = [&](const std::string& op, const std::string& ir, const std::string& notes) {
    out += "| " + op + " | " + ir + " | " + notes + " |\n";
  };
  std::vector<std::string> mapped;
  for (const OnnxOpMapping& m : AllOnnxMappings()) {
    mapped.push_back(m.op_type);
    if (m.map) {
      row(m.op_type, m.ir, m.notes);
    } else {
      row(m.op_type, "—", std::string("refused: ") + m.refusal);
    }
  }
  // OnnxImporter::MapNode: graph plumbing that becomes no layer.
  row("Identity, Dropout", "(none)",
      "on activations, aliases (inference no-ops); over constants, folded");
  std::string folded;
  for (const std::string& op : onnx_import::FoldableOps()) {
    if (std::find(mapped.begin(), mapped.end(), op) != mapped.end()) continue;
    if (op == "Identity" || op == "Dropout") continue;
    folded += (folded.empty() ? "" : ", ") + op;
  }
  row(folded, "(folded)",
      "evaluated at load time when every input is known (initializers, constants, shapes of "
      "static dimensions); on values computed at run time refused");
  std::string with_folding;
  for (const std::string& op : onnx_import::FoldableOps()) {
    if (std::find(mapped.begin(), mapped.end(), op) != mapped.end())
      with_folding += (with_folding.empty() ? "" : ", ") + op;
  }
  out += "\nAlso folded when every input is known at load time: " + with_folding + ".\n";
  return out;
}

}  // namespace ntpb
