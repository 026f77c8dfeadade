// The ONNX op mappings: one table per op family (map_<family>.cc, like src/ops/), each entry
// an ONNX op type and the function that turns a node of it into IR layers. A new ONNX op is
// one entry and one function in its family's file (plus its IR op in src/ops/ if it needs one).
#pragma once

#include <string>
#include <vector>

namespace onnx {
class NodeProto;
}  // namespace onnx

namespace ntpb::onnx_import {

class OnnxImporter;

struct OnnxOpMapping {
  const char* op_type;
  // Adds the node's layers (OnnxImporter::Add), or refuses it with a reason
  // (OnnxImporter::Refuse). Null: the op type is known and always refused, for `refusal`.
  void (*map)(OnnxImporter& importer, const onnx::NodeProto& node);
  const char* refusal;
  // For the coverage table of docs/onnx.md (OnnxCoverageMarkdown): the IR layers a node
  // becomes, and what of the op is read and what is refused.
  const char* ir = "";
  const char* notes = "";
};

// Every mapping, family by family.
const std::vector<OnnxOpMapping>& AllOnnxMappings();

// The families, in map_<family>.cc.
void AddActivationsMappings(std::vector<OnnxOpMapping>* table);
void AddArithmeticMappings(std::vector<OnnxOpMapping>* table);
void AddDenseConvMappings(std::vector<OnnxOpMapping>* table);
void AddPoolingNormMappings(std::vector<OnnxOpMapping>* table);
void AddShapeMappings(std::vector<OnnxOpMapping>* table);
void AddRecurrentMappings(std::vector<OnnxOpMapping>* table);

// The mapping of an ONNX op type (of the default domain), or null when none exists.
const OnnxOpMapping* FindOnnxMapping(const std::string& op_type);

}  // namespace ntpb::onnx_import
