// ONNX op mappings, pooling and normalization: MaxPool, AveragePool, GlobalAveragePool,
// BatchNormalization, LayerNormalization.
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {
namespace {

using Weight = OnnxImporter::Weight;

void MapPool(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  const std::string out = Out(n);
  if (im.Int(n, "ceil_mode", 0) != 0) return im.Refuse(n, "ceil_mode");
  for (int64_t d : im.Ints(n, "dilations")) {
    if (d != 1) return im.Refuse(n, "dilations");
  }
  if (n.output_size() > 1 && im.IsConsumed(n.output(1))) return im.Refuse(n, "indices");
  const auto kernel = im.Ints(n, "kernel_shape");
  if (kernel.size() != 2) return im.Refuse(n, "only 2-D pooling");
  Layer& l = im.Add(n, op == "MaxPool" ? "max_pool" : "avg_pool", "", {In(n, 0)}, out);
  l.attrs["kernel"] = kernel;
  const auto strides = im.Ints(n, "strides");
  l.attrs["stride"] = strides.empty() ? std::vector<int64_t>{1, 1} : strides;
  if (op == "AveragePool") l.attrs["count_include_pad"] = im.Int(n, "count_include_pad", 0) != 0;
  im.SetPadding(n, l);
}

void MapGlobalAveragePool(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  const Dims& d = im.DimsOf(In(n, 0), n);
  if (d.size() != 4) return im.Refuse(n, "only NCHW input");
  im.Add(n, "global_avg_pool", "", {In(n, 0)}, out + ".nc");
  im.Add(n, "reshape", ".nc11", {out + ".nc"}, out).attrs["shape"] = {-1, im.ToJson(d[1]), 1, 1};
}

void MapBatchNormalization(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  if (im.Int(n, "training_mode", 0) != 0) return im.Refuse(n, "training mode");
  Layer& l = im.Add(n, "batchnorm", "", {In(n, 0)}, out);
  l.attrs["epsilon"] = im.Float(n, "epsilon", 1e-5f);
  const char* names[] = {"gamma", "beta", "mean", "variance"};
  for (int i = 0; i < 4; ++i) {
    Weight w = im.WeightInput(n, i + 1);
    im.SetWeight(l, names[i], w.dims, w.values);
  }
}

void MapLayerNormalization(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  const Dims& d = im.DimsOf(In(n, 0), n);
  if (im.Axis(im.Int(n, "axis", -1), d.size()) != static_cast<int64_t>(d.size()) - 1) {
    return im.Refuse(n, "normalization over more than the last axis");
  }
  Layer& l = im.Add(n, "layernorm", "", {In(n, 0)}, out);
  l.attrs["epsilon"] = im.Float(n, "epsilon", 1e-5f);
  Weight g = im.WeightInput(n, 1);
  im.SetWeight(l, "gamma", g.dims, g.values);
  if (!In(n, 2).empty()) {
    Weight b = im.WeightInput(n, 2);
    im.SetWeight(l, "beta", b.dims, b.values);
  } else {
    im.SetWeight(l, "beta", g.dims,
                 std::make_shared<std::vector<float>>(g.values ? g.values->size() : 0, 0.0f));
  }
}

}  // namespace

void AddPoolingNormMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(table->end(), {
                                  {"MaxPool", MapPool, ""},
                                  {"AveragePool", MapPool, ""},
                                  {"GlobalAveragePool", MapGlobalAveragePool, ""},
                                  {"BatchNormalization", MapBatchNormalization, ""},
                                  {"LayerNormalization", MapLayerNormalization, ""},
                                  {"ReduceMean", nullptr,
                                   "only inside the LayerNorm pattern (mean and variance over the "
                                   "last axis, opset < 17)"},
                              });
}

}  // namespace ntpb::onnx_import
