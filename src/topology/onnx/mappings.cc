// Every family's table, gathered once.
#include "src/topology/onnx/mappings.h"

#include <map>

namespace ntpb::onnx_import {

const OnnxOpMapping* FindOnnxMapping(const std::string& op_type) {
  static const std::map<std::string, OnnxOpMapping> by_op = [] {
    std::vector<OnnxOpMapping> table;
    AddActivationsMappings(&table);
    AddArithmeticMappings(&table);
    AddDenseConvMappings(&table);
    AddPoolingNormMappings(&table);
    AddShapeMappings(&table);
    AddRecurrentMappings(&table);
    std::map<std::string, OnnxOpMapping> m;
    for (const OnnxOpMapping& entry : table) m.emplace(entry.op_type, entry);
    return m;
  }();
  auto it = by_op.find(op_type);
  return it == by_op.end() ? nullptr : &it->second;
}

}  // namespace ntpb::onnx_import
