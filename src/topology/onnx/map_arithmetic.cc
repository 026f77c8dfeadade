// ONNX op mappings, elementwise arithmetic: Add, Sub, Mul, Div (a MatMul followed by Add(bias)
// folds into one dense layer), Pow by a constant, the comparisons Equal, Less, Greater, and
// Where.
#include <cmath>

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

// Where(condition, a, b): constant operands (-inf and 0 of an attention mask) become constant
// layers.
void MapWhere(OnnxImporter& im, const onnx::NodeProto& n) {
  im.Add(
      n, "where", "",
      {im.ConstantLayer(n, In(n, 0)), im.ConstantLayer(n, In(n, 1)), im.ConstantLayer(n, In(n, 2))},
      Out(n));
}

// Not(x) on a 0/1 tensor computed at run time (`ids != 0` is exported as Not(Equal)): x == 0.
void MapNot(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string zero = im.LayerName(n) + ".zero";
  Layer& c = im.Add(n, "constant", ".zero", {}, zero);
  c.attrs["shape"] = {1};
  c.attrs["parameter"] = false;
  im.SetWeight(c, "value", {1}, std::make_shared<std::vector<float>>(1, 0.0f));
  im.Add(n, "equal", "", {In(n, 0), zero}, Out(n));
}

void MapPow(OnnxImporter& im, const onnx::NodeProto& n) {
  const float exponent = im.ScalarConst(In(n, 1));
  if (!std::isfinite(exponent)) return im.Refuse(n, "an exponent that is not a constant scalar");
  im.Add(n, "pow", "", {In(n, 0)}, Out(n)).attrs["exponent"] = exponent;
}

}  // namespace

void AddArithmeticMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(table->end(),
                {
                    {"Add", MapArithmetic, "", "`add`",
                     "NumPy broadcasting; a constant operand becomes a `constant` "
                     "layer named after it (created once)"},
                    {"Sub", MapArithmetic, "", "`sub`",
                     "NumPy broadcasting; a constant operand becomes a `constant` "
                     "layer named after it (created once)"},
                    {"Mul", MapArithmetic, "", "`mul`",
                     "NumPy broadcasting; a constant operand becomes a `constant` "
                     "layer named after it (created once)"},
                    {"Div", MapArithmetic, "", "`div`",
                     "NumPy broadcasting; a constant operand becomes a `constant` "
                     "layer named after it (created once)"},
                    {"Pow", MapPow, "", "`pow`", "a constant scalar exponent"},
                    {"Equal", MapArithmetic, "", "`equal`",
                     "1 or 0 as a float; NumPy broadcasting; integer constants "
                     "exact up to 2^24"},
                    {"Less", MapArithmetic, "", "`less`", "as Equal"},
                    {"Greater", MapArithmetic, "", "`greater`", "as Equal"},
                    {"Where", MapWhere, "", "`where`", "NumPy broadcasting over the three inputs"},
                    {"Not", MapNot, "", "`equal` to a constant 0",
                     "on a 0/1 tensor computed at run time (`ids != 0` as exported); over "
                     "constants: folded"},
                });
}

}  // namespace ntpb::onnx_import
