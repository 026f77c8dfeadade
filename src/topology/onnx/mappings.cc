// Every family's table, gathered once.
#include "src/topology/onnx/mappings.h"

#include <map>

namespace ntpb::onnx_import {

const std::vector<OnnxOpMapping>& AllOnnxMappings() {
  static const std::vector<OnnxOpMapping> table = [] {
    std::vector<OnnxOpMapping> t;
    AddDenseConvMappings(&t);
    AddArithmeticMappings(&t);
    AddActivationsMappings(&t);
    AddPoolingNormMappings(&t);
    AddShapeMappings(&t);
    AddRecurrentMappings(&t);
    return t;
  }();
  return table;
}

const OnnxOpMapping* FindOnnxMapping(const std::string& op_type) {
  static const std::map<std::string, OnnxOpMapping> by_op = [] {
    std::map<std::string, OnnxOpMapping> m;
    for (const OnnxOpMapping& entry : AllOnnxMappings()) m.emplace(entry.op_type, entry);
    return m;
  }();
  auto it = by_op.find(op_type);
  return it == by_op.end() ? nullptr : &it->second;
}

}  // namespace ntpb::onnx_import
