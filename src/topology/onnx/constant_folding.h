// Constant folding for ONNX graphs: every node whose inputs are all known when the model is
// read (initializers, Constant nodes, the Shape of a tensor whose dimensions are static, and
// what is computed from them) is evaluated here and replaced by an initializer, before the
// importer maps what remains to IR layers. Exporters leave a lot of this behind: deduplicated
// weights behind Identity, the zero initial state of an LSTM built from Shape -> Gather ->
// Concat -> ConstantOfShape / Expand, weights transposed or reshaped by a node, attention masks
// computed from constant position ids.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ntpb::onnx_import {

struct FoldingLimits {
  int64_t max_elements = int64_t{1} << 26;  // per folded tensor; larger results are left as nodes
  // For all folded results together, 8 bytes per element; over it, results are left as nodes.
  int64_t max_total_bytes = int64_t{1} << 32;
};

// Folds `model`'s graph in place (its value_info must hold the shapes shape inference found):
// folded nodes are removed, their outputs become initializers, initializers nobody reads any
// more are dropped. Returns the number of nodes folded. Throws ntpb::Error (naming `file` and
// the node) when a constant computation is malformed (an index out of range, shapes that do not
// broadcast). `bytes_used`, when given, is what earlier calls folded and is added to: the
// importer's rounds share one budget.
int FoldConstants(onnx::ModelProto* model, const std::string& file,
                  const FoldingLimits& limits = {}, int64_t* bytes_used = nullptr);

// A tensor's values as floats, with its dims: FLOAT, DOUBLE and the integer types the folder
// reads (converted; exact up to 2^24), from raw_data or the typed fields. Null when the type is
// another, the data is external, or its element count does not match its dims. The folder's
// reading of initializers, shared with tensor files (tensor_file.h).
struct TensorFloats {
  std::vector<int64_t> dims;
  std::vector<float> values;
};
std::optional<TensorFloats> ReadTensorFloats(const onnx::TensorProto& tensor);

// An ONNX integer element type (INT8 .. UINT64; BOOL is not one): values the IR's float tensors
// hold exactly up to 2^24, shared by the folder and the importer.
bool IsIntegerElementType(int32_t type);

// Whether FoldConstants evaluates nodes of this (default-domain) op type when their inputs are
// known. Such an op needs no mapping of its own unless it also runs on activations.
bool CanFold(const std::string& op_type);
// Every such op type, sorted.
std::vector<std::string> FoldableOps();

}  // namespace ntpb::onnx_import
