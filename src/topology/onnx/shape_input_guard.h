// A schema registry for libonnx's shape inference that refuses a shape input longer than the
// importer's rank limit before the op's own inference reads it. libonnx infers a Reshape's or an
// Expand's output rank from the length of its shape input and allocates one dimension per element
// of that length: a shape tensor of a billion elements (a ConstantOfShape of a huge constant, as a
// damaged or hostile model has) would allocate tens of gigabytes before anything else is checked.
#pragma once

#include <onnx/defs/schema.h>

#include <map>
#include <stdexcept>
#include <string>

namespace ntpb::onnx_import {

// Thrown out of shape inference (libonnx passes exceptions other than its own InferenceError on)
// when a node's shape input is too long; the importer turns it into its one-line error.
struct ShapeInputTooLong : std::runtime_error {
  ShapeInputTooLong(std::string op_type, int input_index, int64_t length, int max_rank);
  // libonnx's inference context does not name its node: the importer finds it by these.
  std::string op;
  int index;
  int64_t length;
};

// Forwards to libonnx's registry; the schemas of ops with a shape input (Reshape, Expand,
// ConstantOfShape) come back as copies whose inference checks that input's length first.
class ShapeInputGuardRegistry : public onnx::ISchemaRegistry {
 public:
  explicit ShapeInputGuardRegistry(int max_rank) : max_rank_(max_rank) {}
  const onnx::OpSchema* GetSchema(const std::string& key, int max_inclusive_version,
                                  const std::string& domain) const override;

 private:
  int max_rank_;
  mutable std::map<const onnx::OpSchema*, onnx::OpSchema> guarded_;
};

}  // namespace ntpb::onnx_import
