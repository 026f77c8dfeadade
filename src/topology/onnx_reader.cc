// Reads ONNX files: the bytes are parsed here, the graph mapped by the importer
// (src/topology/onnx/importer.h).
#include "ntpbench/error.h"
#include "ntpbench/onnx_format.h"
#include "src/common/file_io.h"
#include "src/topology/onnx/importer.h"

namespace ntpb {

using onnx_import::OnnxImporter;

Topology ParseOnnx(const std::string& bytes, const std::string& file, const OnnxLimits& limits) {
  if (bytes.size() > limits.max_file_bytes) {
    throw Error(file, "", "",
                "larger than the limit of " + std::to_string(limits.max_file_bytes) +
                    " bytes (OnnxLimits::max_file_bytes)");
  }
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(file, "", "",
                "not an ONNX model: the protobuf does not parse (truncated, or another format)");
  }
  if (!model.has_graph() || model.graph().node_size() == 0) {
    throw Error(file, "", "graph", "the ONNX model has no graph nodes");
  }
  return OnnxImporter(model, file, limits).Import();
}

Topology ReadOnnxFile(const std::string& path, const OnnxLimits& limits) {
  return ParseOnnx(ReadTextFile(path, limits.max_file_bytes), path, limits);
}

}  // namespace ntpb
