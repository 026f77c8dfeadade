// ONNX op mappings, activations: ReLU and its clipped and leaky forms, sigmoid, tanh, softmax. (Erf
// is read only inside the GELU pattern the importer finds before mapping.)
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
  table->insert(table->end(), {
                                  {"Relu", MapUnaryActivation, ""},
                                  {"Sigmoid", MapUnaryActivation, ""},
                                  {"Tanh", MapUnaryActivation, ""},
                                  {"Clip", MapClip, ""},
                                  {"Softmax", MapSoftmax, ""},
                                  {"LeakyRelu", MapLeakyRelu, ""},
                                  {"Erf", nullptr,
                                   "only inside the GELU pattern x * 0.5 * (1 + erf(x / sqrt 2))"},
                              });
}

}  // namespace ntpb::onnx_import
