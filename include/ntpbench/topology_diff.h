// `ntpbench diff A B`: a structural diff of two topologies or models (JSON, XML, ONNX): layers
// aligned as a person would (by name where names agree, else by op and output shape in
// execution order), each row saying whether the layer is the same, resized (another output
// shape or parameter count), re-parameterised (other attributes), another op, added or removed,
// with parameters, FLOPs and bytes per side and in total.
#pragma once

#include <string>

#include "ntpbench/analysis.h"
#include "ntpbench/resolve.h"

namespace ntpb {

struct DiffSide {
  const ResolvedTopology& topology;
  const TopologyAnalysis& analysis;
  std::string label;  // the file
};

struct TopologyDiffOptions {
  bool all = false;       // every layer; else only those that differ
  bool markdown = false;  // a Markdown table instead of text at 120 columns
};

// The table and the totals; `*differences` (if given) counts the rows that are not "same".
std::string FormatTopologyDiff(const DiffSide& a, const DiffSide& b,
                               const TopologyDiffOptions& options, int* differences = nullptr);

}  // namespace ntpb
