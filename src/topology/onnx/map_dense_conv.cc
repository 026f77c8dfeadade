// ONNX op mappings, dense layers and convolution: Gemm, MatMul, Conv, ConvTranspose.
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

// ConvTranspose with explicit pads; an output_shape attribute fixes the output instead, which
// here is the pads it implies (ONNX's rule: the total padding split evenly, the odd one at the
// end unless auto_pad is SAME_LOWER).
void MapConvTranspose(OnnxImporter& im, const onnx::NodeProto& n) {
  Weight w = im.WeightInput(n, 1);
  if (w.dims.size() != 4) return im.Refuse(n, "only 2-D transposed convolution");
  const std::string auto_pad = im.Str(n, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return im.Refuse(n, "auto_pad " + auto_pad);
  const int64_t groups = im.Int(n, "group", 1);
  std::vector<int64_t> stride = im.Ints(n, "strides"), dilation = im.Ints(n, "dilations"),
                       pads = im.Ints(n, "pads"), extra = im.Ints(n, "output_padding");
  if (stride.empty()) stride = {1, 1};
  if (dilation.empty()) dilation = {1, 1};
  if (pads.empty()) pads = {0, 0, 0, 0};
  if (extra.empty()) extra = {0, 0};
  if (stride.size() != 2 || dilation.size() != 2 || pads.size() != 4 || extra.size() != 2) {
    im.Fail(im.LayerName(n), "strides", "strides, dilations, pads or output_padding of wrong rank");
  }
  const std::vector<int64_t> wanted = im.Ints(n, "output_shape");
  if (!wanted.empty()) {
    const Dims& d = im.DimsOf(In(n, 0), n);
    if (wanted.size() != 2 || d.size() != 4)
      return im.Refuse(n, "an output_shape of rank other than 2");
    for (int i = 0; i < 2; ++i) {
      int64_t size = 0;
      if (!ToInt(d[2 + i], &size)) return im.Refuse(n, "output_shape with a symbolic input size");
      const int64_t total =
          stride[i] * (size - 1) + extra[i] + (w.dims[2 + i] - 1) * dilation[i] + 1 - wanted[i];
      if (total < 0)
        return im.Refuse(n, "an output_shape larger than the transposed convolution gives");
      pads[i] = total / 2;
      pads[i + 2] = total - total / 2;
    }
  }
  Layer& l = im.Add(n, "conv_transpose", "", {In(n, 0)}, Out(n));
  l.attrs["filters"] = w.dims[1] * groups;
  l.attrs["kernel"] = {w.dims[2], w.dims[3]};
  l.attrs["stride"] = stride;
  l.attrs["dilation"] = dilation;
  l.attrs["padding"] = pads;
  l.attrs["output_padding"] = extra;
  l.attrs["groups"] = groups;
  l.attrs["bias"] = !In(n, 2).empty();
  im.SetWeight(l, "kernel", w.dims, w.values);
  if (!In(n, 2).empty()) {
    Weight b = im.WeightInput(n, 2);
    im.SetWeight(l, "bias", {w.dims[1] * groups}, b.values);
  }
}

}  // namespace

void AddDenseConvMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(
      table->end(),
      {
          {"Gemm", MapGemm, "", "`dense`",
           "`transB` (weights transposed into `[K, units]`), bias `C`; `transA`, `alpha`, `beta` ≠ "
           "1 unsupported"},
          {"MatMul", MapMatMul, "", "`dense` (weight operand) or `matmul` (two activations)",
           "a following `Add` of a constant vector becomes the dense layer's bias"},
          {"Conv", MapConv, "", "`conv2d`",
           "2-D; `pads`, `strides`, `dilations`, `group` (grouped, depthwise); `auto_pad` "
           "SAME_UPPER → `\"same\"`, VALID; SAME_LOWER unsupported"},
          {"ConvTranspose", MapConvTranspose, "", "`conv_transpose`",
           "2-D; `pads`, `strides`, `dilations`, `group`, `output_padding`; an `output_shape` "
           "becomes the pads it implies; `auto_pad` SAME_* unsupported"},
      });
}

}  // namespace ntpb::onnx_import
