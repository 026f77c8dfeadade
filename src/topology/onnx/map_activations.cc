// ONNX op mappings, activations and other unary ops: ReLU and its clipped and leaky forms,
// sigmoid, tanh, hard sigmoid and hard swish, sqrt, exp, softmax. (Erf is read only inside the
// GELU pattern the importer finds before mapping; x * sigmoid(x) and x * hard_sigmoid(x) become
// swish and hard_swish there too.)
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {
namespace {

void MapUnaryActivation(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  const std::string out = Out(n);
  im.Add(n, Lower(op), "", {In(n, 0)}, out);
}

void MapClip(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  float min = -INFINITY, max = INFINITY;
  if (im.opset() < 11 || im.Attr(n, "min")) min = im.Float(n, "min", min);
  if (!In(n, 1).empty()) min = im.ScalarConst(In(n, 1));
  if (!In(n, 2).empty()) max = im.ScalarConst(In(n, 2));
  if (std::isnan(min) || std::isnan(max))
    return im.Refuse(n, "bounds that are not constant scalars");
  if (min != 0) return im.Refuse(n, "only Clip(0, max) (ReLU6, clipped ReLU)");
  if (std::isinf(max)) {
    im.Add(n, "relu", "", {In(n, 0)}, out);
  } else {
    im.Add(n, "clipped_relu", "", {In(n, 0)}, out).attrs["clip"] = max;
  }
}

void MapHardSigmoid(OnnxImporter& im, const onnx::NodeProto& n) {
  Layer& l = im.Add(n, "hard_sigmoid", "", {In(n, 0)}, Out(n));
  l.attrs["alpha"] = im.Float(n, "alpha", 0.2f);
  l.attrs["beta"] = im.Float(n, "beta", 0.5f);
}

void MapHardSwish(OnnxImporter& im, const onnx::NodeProto& n) {
  im.Add(n, "hard_swish", "", {In(n, 0)}, Out(n));
}

void MapSoftmax(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  const Dims& d = im.DimsOf(In(n, 0), n);
  const int64_t axis = im.Axis(im.Int(n, "axis", im.opset() >= 13 ? -1 : 1), d.size());
  if (im.opset() < 13 && axis != static_cast<int64_t>(d.size()) - 1) {
    return im.Refuse(n, "opset < 13 Softmax over several axes");
  }
  im.Add(n, "softmax", "", {In(n, 0)}, out).attrs["axis"] = axis;
}

void MapLeakyRelu(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  im.Add(n, "leaky_relu", "", {In(n, 0)}, out).attrs["alpha"] = im.Float(n, "alpha", 0.01f);
}

}  // namespace

void AddActivationsMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(
      table->end(),
      {
          {"Relu", MapUnaryActivation, "", "`relu`", ""},
          {"Sqrt", MapUnaryActivation, "", "`sqrt`", "outside the LayerNorm pattern"},
          {"Exp", MapUnaryActivation, "", "`exp`", ""},
          {"HardSigmoid", MapHardSigmoid, "", "`hard_sigmoid` (or `hard_swish`)",
           "`alpha`, `beta`; `x * HardSigmoid(x; 1/6, 1/2)` (HardSwish before opset 14) becomes "
           "one `hard_swish` layer"},
          {"HardSwish", MapHardSwish, "", "`hard_swish`", "opset 14"},
          {"Sigmoid", MapUnaryActivation, "", "`sigmoid` (or `swish`)",
           "`x * Sigmoid(x)` (SiLU as exported) becomes one `swish` layer"},
          {"Tanh", MapUnaryActivation, "", "`tanh`", ""},
          {"Clip", MapClip, "", "`clipped_relu` / `relu`",
           "`min` 0 and a constant `max` (ReLU6); other bounds unsupported"},
          {"Softmax", MapSoftmax, "", "`softmax`",
           "opset ≥ 13 any axis; opset < 13 only the last axis"},
          {"LeakyRelu", MapLeakyRelu, "", "`leaky_relu`", "`alpha`"},
          {"Erf", nullptr, "only inside the GELU pattern x * 0.5 * (1 + erf(x / sqrt 2))"},
      });
}

}  // namespace ntpb::onnx_import
