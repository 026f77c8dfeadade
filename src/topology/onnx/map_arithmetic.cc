// ONNX op mappings, elementwise arithmetic: Add, Sub, Mul, Div (a MatMul followed by Add(bias)
// folds into one dense layer).
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {
namespace {

using Weight = OnnxImporter::Weight;

void MapArithmetic(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  const std::string out = Out(n);
  if (op == "Add" && im.IsWeight(In(n, 1)) && im.FoldBias(n, In(n, 0), In(n, 1), out)) return;
  if (op == "Add" && im.IsWeight(In(n, 0)) && im.FoldBias(n, In(n, 1), In(n, 0), out)) return;
  im.Add(n, Lower(op), "", {im.ConstantLayer(n, In(n, 0)), im.ConstantLayer(n, In(n, 1))}, out);
}

}  // namespace

void AddArithmeticMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(table->end(), {
                                  {"Add", MapArithmetic, ""},
                                  {"Sub", MapArithmetic, ""},
                                  {"Mul", MapArithmetic, ""},
                                  {"Div", MapArithmetic, ""},
                              });
}

}  // namespace ntpb::onnx_import
