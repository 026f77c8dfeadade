// ONNX op mappings, pooling and normalization: MaxPool, AveragePool, GlobalAveragePool,
// BatchNormalization, LayerNormalization, ReduceMean/Sum/Max.
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {
namespace {

using Weight = OnnxImporter::Weight;

void MapPool(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  const std::string out = Out(n);
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
  const bool include_pad = op == "AveragePool" && im.Int(n, "count_include_pad", 0) != 0;
  if (op == "AveragePool") l.attrs["count_include_pad"] = include_pad;
  if (im.Int(n, "ceil_mode", 0) != 0) {
    if (include_pad) return im.Refuse(n, "ceil_mode with count_include_pad");
    l.attrs["ceil_mode"] = true;
  }
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

// ReduceMean/Sum/Max: axes from the attribute (ReduceSum before opset 13, the others) or the
// second input (ReduceSum from opset 13); no axes reduce everything.
void MapReduce(OnnxImporter& im, const onnx::NodeProto& n) {
  const Dims& d = im.DimsOf(In(n, 0), n);
  std::vector<int64_t> axes = im.Ints(n, "axes");
  if (!In(n, 1).empty()) {
    Dims c;
    if (!im.IntConst(In(n, 1), &c)) return im.Refuse(n, "axes computed at run time");
    axes = im.IntsOf(c, n, "axes");
  }
  if (axes.empty()) {
    if (im.Int(n, "noop_with_empty_axes", 0) != 0) return im.Refuse(n, "noop_with_empty_axes");
    for (size_t i = 0; i < d.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  const std::string op = n.op_type() == "ReduceMean"  ? "reduce_mean"
                         : n.op_type() == "ReduceSum" ? "reduce_sum"
                                                      : "reduce_max";
  Layer& l = im.Add(n, op, "", {In(n, 0)}, Out(n));
  l.attrs["axes"] = axes;
  l.attrs["keepdims"] = im.Int(n, "keepdims", 1) != 0;
}

}  // namespace

void AddPoolingNormMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(
      table->end(),
      {
          {"MaxPool", MapPool, "", "`max_pool`",
           "2-D; `pads`, `strides` (ONNX default 1), `ceil_mode`; dilations and the indices output "
           "unsupported"},
          {"AveragePool", MapPool, "", "`avg_pool`",
           "as MaxPool, `count_include_pad` (not with `ceil_mode`)"},
          {"GlobalAveragePool", MapGlobalAveragePool, "", "`global_avg_pool` + `reshape`",
           "output kept `[N, C, 1, 1]` as in ONNX"},
          {"BatchNormalization", MapBatchNormalization, "", "`batchnorm`",
           "inference mode; scale, B, mean, var → gamma, beta, mean, variance"},
          {"LayerNormalization", MapLayerNormalization, "", "`layernorm`", "last axis (opset 17)"},
          {"ReduceMean", MapReduce, "", "`reduce_mean` (or `layernorm`)",
           "axes from the attribute or (ReduceSum, opset ≥ 13) the input; `keepdims`; inside the "
           "LayerNorm pattern (last axis, opset < 17) one `layernorm` layer"},
          {"ReduceSum", MapReduce, "", "`reduce_sum`", "as ReduceMean"},
          {"ReduceMax", MapReduce, "", "`reduce_max`", "as ReduceMean"},
      });
}

}  // namespace ntpb::onnx_import
