// ONNX op mappings, dense layers and convolution: Gemm, MatMul, Conv.
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {
namespace {

using Weight = OnnxImporter::Weight;

void MapGemm(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  if (im.Int(n, "transA", 0) != 0 || im.Float(n, "alpha", 1) != 1 || im.Float(n, "beta", 1) != 1) {
    return im.Refuse(n, "transA, alpha or beta");
  }
  if (!im.IsWeight(In(n, 1)) && !im.IsInitializer(In(n, 1)) && !im.IsGraphInput(In(n, 1))) {
    return im.Refuse(n, "B computed at run time");
  }
  Weight b = im.WeightInput(n, 1);
  if (b.dims.size() != 2) im.Fail(im.LayerName(n), "B", "expected a 2-D weight");
  const bool trans = im.Int(n, "transB", 0) != 0;
  const int64_t k = trans ? b.dims[1] : b.dims[0], units = trans ? b.dims[0] : b.dims[1];
  Layer& l = im.Add(n, "dense", "", {In(n, 0)}, out);
  l.attrs["units"] = units;
  l.attrs["bias"] = !In(n, 2).empty();
  if (b.values && trans) b.values = im.Transposed(*b.values, units, k);
  im.SetWeight(l, "kernel", {k, units}, b.values);
  if (!In(n, 2).empty()) {
    Weight bias = im.WeightInput(n, 2);
    if (bias.values && static_cast<int64_t>(bias.values->size()) != units) {
      return im.Refuse(n, "a bias that is not one value per output");
    }
    im.SetWeight(l, "bias", {units}, bias.values);
  }
}

void MapMatMul(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  if (im.IsWeight(In(n, 1)) || (im.IsGraphInput(In(n, 1)) && !im.IsActivationInput(In(n, 1)))) {
    Weight b = im.WeightInput(n, 1);
    if (b.dims.size() != 2) return im.Refuse(n, "a weight of rank other than 2");
    Layer& l = im.Add(n, "dense", "", {In(n, 0)}, out);
    l.attrs["units"] = b.dims[1];
    l.attrs["bias"] = false;
    im.SetWeight(l, "kernel", b.dims, b.values);
    return;
  }
  im.Add(n, "matmul", "", {In(n, 0), In(n, 1)}, out);
}

void MapConv(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  Weight w = im.WeightInput(n, 1);
  if (w.dims.size() != 4) return im.Refuse(n, "only 2-D convolution");
  Layer& l = im.Add(n, "conv2d", "", {In(n, 0)}, out);
  l.attrs["filters"] = w.dims[0];
  l.attrs["kernel"] = {w.dims[2], w.dims[3]};
  if (!im.Ints(n, "strides").empty()) l.attrs["stride"] = im.Ints(n, "strides");
  if (!im.Ints(n, "dilations").empty()) l.attrs["dilation"] = im.Ints(n, "dilations");
  l.attrs["groups"] = im.Int(n, "group", 1);
  if (!im.SetPadding(n, l)) return;
  l.attrs["bias"] = !In(n, 2).empty();
  im.SetWeight(l, "kernel", w.dims, w.values);
  if (!In(n, 2).empty()) {
    Weight b = im.WeightInput(n, 2);
    im.SetWeight(l, "bias", {w.dims[0]}, b.values);
  }
}

}  // namespace

void AddDenseConvMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(table->end(),
                {
                    {"Gemm", MapGemm, ""},
                    {"MatMul", MapMatMul, ""},
                    {"Conv", MapConv, ""},
                    {"ConvTranspose", nullptr, "transposed convolution has no IR op yet"},
                });
}

}  // namespace ntpb::onnx_import
