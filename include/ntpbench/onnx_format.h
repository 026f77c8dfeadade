// ONNX models (opset 7-17; 7-10 converted to 13) as topologies: the checker, shape inference and
// constant folding run first, then each node maps to IR layers named after it; initializers
// become the layers' real weights, weights the model leaves out are random. See docs/onnx.md
// for the op coverage.
#pragma once

#include <cstdint>
#include <string>

#include "ntpbench/topology.h"

namespace ntpb {

// Enforced before anything is allocated for the model's content.
struct OnnxLimits {
  std::size_t max_file_bytes = std::size_t{1} << 31;  // protobuf's own ceiling is 2 GiB
  int max_nodes = 100000;
  int64_t max_weight_bytes = int64_t{8} << 30;
  int max_rank = 8;
  // false: large weights (64 Ki elements and more) are not converted and large external data is
  // not read; their shapes are. Enough for `inspect` and `diff` (params, FLOPs, bytes), not for a
  // run: such a topology's large weights are random.
  bool read_weights = true;
};

// Throws ntpb::Error naming the file, the node (as the layer) and the field on any problem;
// unsupported ops are listed together, each with its count and first node.
// ReadOnnxFile reads external data from beside the model; ParseOnnx (bytes with no folder: standard
// input) refuses a model that has some.
Topology ReadOnnxFile(const std::string& path, const OnnxLimits& limits = {});
Topology ParseOnnx(const std::string& bytes, const std::string& file,
                   const OnnxLimits& limits = {});

// The op coverage as a Markdown table (ONNX op, IR layers, what is read and what refused),
// generated from the importer's own tables: docs/onnx.md shows it, `ntpbench ops --onnx`
// prints it. Without ONNX support, one line saying so.
std::string OnnxCoverageMarkdown();

}  // namespace ntpb
