#include "src/topology/onnx/shape_input_guard.h"

#include <onnx/defs/shape_inference.h>

#include <utility>

namespace ntpb::onnx_import {
namespace {

// The input whose values are an output shape, per op (ONNX domain only).
int ShapeInputIndex(const std::string& op) {
  if (op == "Reshape" || op == "Expand") return 1;
  if (op == "ConstantOfShape") return 0;
  return -1;
}

// The length libonnx would read for the shape input: its data, the data propagated to it, or the
// single dimension of its known shape. -1 when none is known.
int64_t ShapeInputLength(onnx::InferenceContext& ctx, int index) {
  if (static_cast<std::size_t>(index) >= ctx.getNumInputs()) return -1;
  if (const onnx::TensorProto* data = ctx.getInputData(index)) {
    int64_t n = 1;
    for (int64_t d : data->dims()) n *= d;
    return n;
  }
  if (const onnx::TensorShapeProto* symbolic = ctx.getSymbolicInput(index)) {
    return symbolic->dim_size();
  }
  const onnx::TypeProto* type = ctx.getInputType(index);
  if (type == nullptr || !type->has_tensor_type() || !type->tensor_type().has_shape()) return -1;
  const onnx::TensorShapeProto& shape = type->tensor_type().shape();
  if (shape.dim_size() != 1 || !shape.dim(0).has_dim_value()) return -1;
  return shape.dim(0).dim_value();
}

}  // namespace

ShapeInputTooLong::ShapeInputTooLong(std::string op_type, int input_index, int64_t length_,
                                     int max_rank)
    : std::runtime_error("the shape input has " + std::to_string(length_) +
                         " values: an output of more than " + std::to_string(max_rank) +
                         " dimensions (ntpbench reads at most " + std::to_string(max_rank) + ")"),
      op(std::move(op_type)),
      index(input_index),
      length(length_) {}

const onnx::OpSchema* ShapeInputGuardRegistry::GetSchema(const std::string& key,
                                                         int max_inclusive_version,
                                                         const std::string& domain) const {
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Instance()->GetSchema(key, max_inclusive_version, domain);
  const int index = ShapeInputIndex(key);
  if (schema == nullptr || index < 0 || !(domain.empty() || domain == onnx::ONNX_DOMAIN)) {
    return schema;
  }
  auto found = guarded_.find(schema);
  if (found != guarded_.end()) return &found->second;
  onnx::OpSchema copy = *schema;
  onnx::InferenceFunction infer = schema->GetTypeAndShapeInferenceFunction();
  const int max_rank = max_rank_;
  copy.TypeAndShapeInferenceFunction([infer, key, index, max_rank](onnx::InferenceContext& ctx) {
    const int64_t length = ShapeInputLength(ctx, index);
    if (length > max_rank) throw ShapeInputTooLong(key, index, length, max_rank);
    infer(ctx);
  });
  return &guarded_.emplace(schema, std::move(copy)).first->second;
}

}  // namespace ntpb::onnx_import
