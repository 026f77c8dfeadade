// ONNX op mappings, shape ops: Split, Slice, Gather, Expand, Cast, Flatten, Reshape, Squeeze,
// Unsqueeze, Transpose, Concat, Pad, Resize (their integer shape inputs are folded by the
// importer).
#include <algorithm>
#include <cmath>

#include "src/topology/onnx/constant_folding.h"
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {
namespace {

void MapSplit(OnnxImporter& im, const onnx::NodeProto& n) {
  Dims c;
  const Dims& d = im.DimsOf(In(n, 0), n);
  const int64_t axis = im.Axis(im.Int(n, "axis", 0), d.size());
  int64_t length = 0;
  if (axis < 0 || axis >= static_cast<int64_t>(d.size()) || !ToInt(d[axis], &length)) {
    return im.Refuse(n, "a split along a symbolic or missing axis");
  }
  std::vector<int64_t> sizes = im.Ints(n, "split");
  if (sizes.empty() && !In(n, 1).empty()) {
    if (!im.IntConst(In(n, 1), &c)) return im.Refuse(n, "split sizes computed at run time");
    sizes = im.IntsOf(c, n, "split");
  }
  if (sizes.empty()) {
    const int64_t parts = n.output_size();
    if (parts == 0 || length % parts != 0) return im.Refuse(n, "uneven equal split");
    sizes.assign(parts, length / parts);
  }
  if (static_cast<int>(sizes.size()) != n.output_size()) {
    im.Fail(im.LayerName(n), "split", "sizes do not match the number of outputs");
  }
  int64_t start = 0;
  for (int i = 0; i < n.output_size(); ++i) {
    Layer& l = im.Add(n, "slice", "." + std::to_string(i), {In(n, 0)}, n.output(i));
    l.attrs["axis"] = axis;
    l.attrs["start"] = start;
    l.attrs["size"] = sizes[i];
    start += sizes[i];
  }
}

// Slice of an activation with constant bounds and step 1: one IR slice per axis cut.
void MapSlice(OnnxImporter& im, const onnx::NodeProto& n) {
  Dims starts, ends, axes, steps;
  if (!im.IntConst(In(n, 1), &starts) || !im.IntConst(In(n, 2), &ends) ||
      (!In(n, 3).empty() && !im.IntConst(In(n, 3), &axes)) ||
      (!In(n, 4).empty() && !im.IntConst(In(n, 4), &steps))) {
    return im.Refuse(n, "bounds computed at run time");
  }
  const Dims& d = im.DimsOf(In(n, 0), n);
  const std::vector<int64_t> s = im.IntsOf(starts, n, "starts"), e = im.IntsOf(ends, n, "ends");
  std::vector<int64_t> a = im.IntsOf(axes, n, "axes"), st = im.IntsOf(steps, n, "steps");
  if (a.empty()) {
    for (size_t k = 0; k < s.size(); ++k) a.push_back(static_cast<int64_t>(k));
  }
  if (e.size() != s.size() || a.size() != s.size() || (!st.empty() && st.size() != s.size())) {
    im.Fail(im.LayerName(n), "starts", "starts, ends, axes and steps differ in length");
  }
  for (int64_t step : st) {
    if (step != 1) return im.Refuse(n, "steps other than 1");
  }
  std::string from = In(n, 0);
  for (size_t k = 0; k < s.size(); ++k) {
    const int64_t axis = im.Axis(a[k], d.size());
    int64_t length = 0;
    if (axis < 0 || axis >= static_cast<int64_t>(d.size())) {
      im.Fail(im.LayerName(n), "axes", "axis " + std::to_string(a[k]) + " is out of range");
    }
    if (!ToInt(d[axis], &length)) return im.Refuse(n, "a slice along a symbolic axis");
    // ONNX clamps the bounds to the axis (INT64_MAX means "to the end").
    auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + length : v, 0, length); };
    const int64_t begin = clamp(s[k]), end = clamp(e[k]);
    if (end <= begin) return im.Refuse(n, "an empty slice");
    const bool last = k + 1 == s.size();
    const std::string to = last ? Out(n) : Out(n) + ".axis" + std::to_string(axis);
    Layer& l = im.Add(n, "slice", last ? "" : ".axis" + std::to_string(axis), {from}, to);
    l.attrs["axis"] = axis;
    l.attrs["start"] = begin;
    l.attrs["size"] = end - begin;
    from = to;
  }
}

// Gather: rows of one of the model's tables picked by ids (an embedding; constant ids such as
// position ids become a constant layer), or constant indices into an activation (x[:, 0]: a
// slice, its axis dropped for a scalar index). Gathers over constants are folded before.
void MapGather(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string data = In(n, 0), ids = In(n, 1);
  if (im.IsWeight(data)) {
    const OnnxImporter::Weight w = im.WeightInput(n, 0);
    if (w.dims.size() != 2) {
      return im.Refuse(n, "a table of rank " + std::to_string(w.dims.size()) +
                              " (an embedding's is [rows, dim])");
    }
    if (im.Axis(im.Int(n, "axis", 0), 2) != 0) return im.Refuse(n, "columns of a table (axis 1)");
    if (!IsIntegerElementType(im.ElemType(ids)) && !im.IsWeight(ids)) {
      return im.Refuse(n, "ids that are not integers");
    }
    Layer& l = im.Add(n, "embedding", "", {im.ConstantLayer(n, ids)}, Out(n));
    l.attrs["vocab"] = w.dims[0];
    l.attrs["dim"] = w.dims[1];
    im.SetWeight(l, "table", w.dims, w.values);
    if (im.IsGraphInput(im.Resolve(ids))) im.DeclareIds(im.Resolve(ids), w.dims[0]);
    return;
  }
  Dims c;
  if (!im.IntConst(ids, &c)) return im.Refuse(n, "indices computed at run time into activations");
  const Dims& d = im.DimsOf(data, n);
  const int64_t axis = im.Axis(im.Int(n, "axis", 0), d.size());
  int64_t length = 0;
  if (axis < 0 || axis >= static_cast<int64_t>(d.size())) {
    im.Fail(im.LayerName(n), "axis", "out of range for rank " + std::to_string(d.size()));
  }
  if (!ToInt(d[axis], &length)) return im.Refuse(n, "indices along a symbolic axis");
  std::vector<int64_t> picked = im.IntsOf(c, n, "indices");
  for (int64_t& i : picked) {
    if (i < -length || i >= length) {
      im.Fail(im.LayerName(n), "indices",
              std::to_string(i) + " is outside axis " + std::to_string(axis) + " of length " +
                  std::to_string(length));
    }
    if (i < 0) i += length;
  }
  for (size_t k = 1; k < picked.size(); ++k) {
    if (picked[k] != picked[k - 1] + 1) return im.Refuse(n, "indices that are not a range");
  }
  if (picked.empty()) return im.Refuse(n, "no indices");
  // A scalar index drops the axis: the output's rank is the input's - 1 + the indices'.
  const Dims& out_dims = im.DimsOf(Out(n), n);
  const bool scalar = out_dims.size() + 1 == d.size();
  const std::string sliced = scalar ? Out(n) + ".slice" : Out(n);
  Layer& s = im.Add(n, "slice", scalar ? ".slice" : "", {data}, sliced);
  s.attrs["axis"] = axis;
  s.attrs["start"] = picked.front();
  s.attrs["size"] = static_cast<int64_t>(picked.size());
  if (!scalar) return;
  nlohmann::json shape = nlohmann::json::array();
  for (const std::string& dim : out_dims) shape.push_back(im.ToJson(dim));
  im.Add(n, "reshape", "", {sliced}, Out(n)).attrs["shape"] = shape;
}

// Expand of an activation to a constant shape.
void MapExpand(OnnxImporter& im, const onnx::NodeProto& n) {
  Dims c;
  if (!im.IntConst(In(n, 1), &c)) return im.Refuse(n, "a shape computed at run time");
  nlohmann::json shape = nlohmann::json::array();
  for (const std::string& dim : c) shape.push_back(im.ToJson(dim));
  im.Add(n, "expand", "", {im.ConstantLayer(n, In(n, 0))}, Out(n)).attrs["shape"] = shape;
}

// Tile with constant repeats: each axis repeated r > 1 times is a concat of r copies along it
// (`x.repeat(...)` in PyTorch, e.g. a state copied for every layer of an RNN).
void MapTile(OnnxImporter& im, const onnx::NodeProto& n) {
  Dims r;
  if (!im.IntConst(In(n, 1), &r)) return im.Refuse(n, "repeats computed at run time");
  std::vector<int64_t> repeats;
  int64_t copies = 0;
  for (const std::string& dim : r) {
    int64_t v = 0;
    if (!ToInt(dim, &v) || v < 1) return im.Refuse(n, "repeats that are not positive integers");
    repeats.push_back(v);
    copies += v > 1 ? std::min<int64_t>(v, im.limits().max_nodes + int64_t{1}) : 0;
  }
  // Each copy is a concat input: as many as the node limit allows (a fuzzed 150994945 repeats
  // built a layer of that many inputs, 9 GB, before anything else could refuse it).
  if (copies > im.limits().max_nodes) {
    return im.Fail(im.LayerName(n), "repeats",
                   "over " + std::to_string(im.limits().max_nodes) +
                       " copies in all (the node limit): no topology concatenates that many");
  }
  std::string tensor = im.ConstantLayer(n, In(n, 0));
  int last = -1;
  for (size_t axis = 0; axis < repeats.size(); ++axis) {
    if (repeats[axis] > 1) last = static_cast<int>(axis);
  }
  if (last < 0) return im.Alias(Out(n), tensor);
  for (int axis = 0; axis <= last; ++axis) {
    if (repeats[axis] == 1) continue;
    const std::string suffix = ".axis" + std::to_string(axis);
    const std::string out = axis == last ? Out(n) : im.LayerName(n) + suffix;
    Layer& l = im.Add(n, "concat", suffix,
                      std::vector<std::string>(static_cast<size_t>(repeats[axis]), tensor), out);
    l.attrs["axis"] = axis;
    tensor = out;
  }
}

// Cast at run time: tensors are floats, so a cast that keeps every value (from booleans or
// integers, between float types) is the tensor itself; one that truncates or maps values to a
// boolean is refused.
void MapCast(OnnxImporter& im, const onnx::NodeProto& n) {
  using T = onnx::TensorProto;
  const int32_t from = im.ElemType(In(n, 0));
  const int64_t to = im.Int(n, "to", 0);
  auto is_float = [](int64_t t) {
    return t == T::FLOAT || t == T::DOUBLE || t == T::FLOAT16 || t == T::BFLOAT16;
  };
  const bool exact_from = from == T::BOOL || IsIntegerElementType(from);
  if ((exact_from && to != T::BOOL) || (from == T::BOOL && to == T::BOOL) ||
      (is_float(from) && is_float(to))) {
    return im.Alias(Out(n), In(n, 0));
  }
  return im.Refuse(n, "a cast from data type " + std::to_string(from) + " to " +
                          std::to_string(to) + " changes values (truncation or != 0)");
}

void MapFlatten(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  const Dims& d = im.DimsOf(In(n, 0), n);
  im.Add(n, "flatten", "", {In(n, 0)}, out).attrs["axis"] = im.Axis(im.Int(n, "axis", 1), d.size());
}

void MapReshape(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  const std::string out = Out(n);
  Dims c;
  nlohmann::json shape = nlohmann::json::array();
  if (op == "Reshape") {
    if (!im.IntConst(In(n, 1), &c)) return im.Refuse(n, "a shape computed at run time");
    if (im.Int(n, "allowzero", 0) != 0) return im.Refuse(n, "allowzero");
    const Dims& d = im.DimsOf(In(n, 0), n);
    for (size_t i = 0; i < c.size(); ++i)
      shape.push_back(c[i] == "0" && i < d.size() ? im.ToJson(d[i]) : im.ToJson(c[i]));
  } else {
    for (const std::string& s : im.DimsOf(out, n)) shape.push_back(im.ToJson(s));
  }
  im.Add(n, "reshape", "", {In(n, 0)}, out).attrs["shape"] = shape;
}

void MapTranspose(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  std::vector<int64_t> perm = im.Ints(n, "perm");
  if (perm.empty()) {
    const size_t rank = im.DimsOf(In(n, 0), n).size();
    for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  im.Add(n, "transpose", "", {In(n, 0)}, out).attrs["perm"] = perm;
}

void MapConcat(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string out = Out(n);
  std::vector<std::string> inputs(n.input().begin(), n.input().end());
  const Dims& d = im.DimsOf(out, n);
  im.Add(n, "concat", "", inputs, out).attrs["axis"] = im.Axis(im.Int(n, "axis", 0), d.size());
}

// Pad with a constant (opset 11 and later: older models arrive converted): pads from the second
// input, the value from the third. Padding by nothing (PyTorch's exporter writes one in front of
// some average pools) is the input itself.
void MapPad(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string mode = im.Str(n, "mode", "constant");
  if (mode != "constant") return im.Refuse(n, "mode " + mode + " (only constant)");
  Dims c;
  if (!im.IntConst(In(n, 1), &c)) return im.Refuse(n, "pads computed at run time");
  const std::vector<int64_t> pads = im.IntsOf(c, n, "pads");
  float value = 0.0f;
  if (!In(n, 2).empty()) {
    value = im.ScalarConst(In(n, 2));
    if (!std::isfinite(value)) return im.Refuse(n, "a pad value that is not a constant number");
  }
  if (!In(n, 3).empty()) return im.Refuse(n, "axes");
  const Dims& d = im.DimsOf(In(n, 0), n);
  if (pads.size() != 2 * d.size()) {
    im.Fail(
        im.LayerName(n), "pads",
        std::to_string(pads.size()) + " values for a rank-" + std::to_string(d.size()) + " input");
  }
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
    return im.Alias(Out(n), In(n, 0));
  }
  for (int64_t p : pads) {
    if (p < 0) return im.Refuse(n, "negative pads (cropping)");
  }
  Layer& l = im.Add(n, "pad", "", {In(n, 0)}, Out(n));
  l.attrs["pads"] = pads;
  l.attrs["value"] = value;
}

// Resize of H and W (N and C kept) to sizes, or by scales whose products are whole: the IR's
// scale is output / input, which then is the model's.
void MapResize(OnnxImporter& im, const onnx::NodeProto& n) {
  const std::string mode = im.Str(n, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") return im.Refuse(n, "mode " + mode);
  const std::string coordinates = im.Str(n, "coordinate_transformation_mode", "half_pixel");
  if (coordinates != "half_pixel" && coordinates != "pytorch_half_pixel" &&
      coordinates != "align_corners" && coordinates != "asymmetric") {
    return im.Refuse(n, "coordinate_transformation_mode " + coordinates);
  }
  const std::string rounding = im.Str(n, "nearest_mode", "round_prefer_floor");
  const Dims& d = im.DimsOf(In(n, 0), n);
  if (d.size() != 4) return im.Refuse(n, "only NCHW input");
  int64_t in[2] = {0, 0};
  if (!ToInt(d[2], &in[0]) || !ToInt(d[3], &in[1])) return im.Refuse(n, "symbolic H or W");
  const std::string scales_name = In(n, 2), sizes_name = In(n, 3);
  std::vector<int64_t> size(2);
  std::vector<float> scales;
  Dims sizes;
  if (!sizes_name.empty()) {
    if (!im.IntConst(sizes_name, &sizes)) return im.Refuse(n, "sizes computed at run time");
    const std::vector<int64_t> s = im.IntsOf(sizes, n, "sizes");
    if (s.size() != 4) im.Fail(im.LayerName(n), "sizes", "needs 4 values");
    int64_t channels = 0;
    if (!ToInt(d[1], &channels) || s[1] != channels) return im.Refuse(n, "resizing N or C");
    size = {s[2], s[3]};
  } else if (im.FloatsConst(scales_name, n, &scales) && scales.size() == 4) {
    if (scales[0] != 1 || scales[1] != 1) return im.Refuse(n, "resizing N or C");
    for (int i = 0; i < 2; ++i) {
      const double exact = static_cast<double>(in[i]) * scales[2 + i];
      if (!(exact >= 1) || exact != std::floor(exact) || exact > (int64_t{1} << 31)) {
        return im.Refuse(n, "scales whose products with H and W are not whole sizes");
      }
      size[i] = static_cast<int64_t>(exact);
    }
  } else {
    return im.Refuse(n, "scales or sizes computed at run time");
  }
  Layer& l = im.Add(n, "resize", "", {In(n, 0)}, Out(n));
  l.attrs["size"] = size;
  l.attrs["mode"] = mode;
  l.attrs["coordinates"] = coordinates;
  l.attrs["nearest_rounding"] = rounding;
}

}  // namespace

void AddShapeMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(
      table->end(),
      {
          {"Split", MapSplit, "", "`slice` per output",
           "layers `<node>.0`, `<node>.1`, ...; sizes from the attribute, a constant input, or "
           "equal parts"},
          {"Slice", MapSlice, "", "`slice` (one per axis cut)",
           "on an activation: constant `starts`/`ends`/`axes`, step 1 (bounds clamped as ONNX "
           "does); over constants: folded, any step"},
          {"Flatten", MapFlatten, "", "`flatten`", "`axis`"},
          {"Reshape", MapReshape, "", "`reshape`",
           "constant or folded shape; `0` copies the input dimension; `allowzero` unsupported"},
          {"Squeeze", MapReshape, "", "`reshape`", "to the shape ONNX inference gives"},
          {"Unsqueeze", MapReshape, "", "`reshape`", "to the shape ONNX inference gives"},
          {"Transpose", MapTranspose, "", "`transpose`", "`perm`, or reversed axes"},
          {"Concat", MapConcat, "", "`concat`",
           "of activations, or folded when all inputs are shape constants"},
          {"Pad", MapPad, "", "`pad`",
           "`constant` mode, constant pads and value (older opsets converted first); "
           "padding by nothing is the input itself; `reflect`, `edge`, negative pads and "
           "`axes` unsupported"},
          {"Resize", MapResize, "", "`resize`",
           "NCHW, H and W; `nearest` or `linear`; `coordinate_transformation_mode` half_pixel, "
           "pytorch_half_pixel, align_corners, asymmetric; `nearest_mode`; constant `sizes`, or "
           "constant `scales` whose products with H and W are whole; `cubic`, `tf_crop_and_resize` "
           "unsupported"},
          {"Gather", MapGather, "", "`embedding`, or `slice` (+ `reshape`)",
           "from a model's [rows, dim] table along axis 0 (ids at run time, or constant ids "
           "such as position ids as a `constant` layer); constant indices forming a range into "
           "an activation; over constants: folded"},
          {"Expand", MapExpand, "", "`expand`", "to a constant or folded shape"},
          {"Tile", MapTile, "", "`concat` per repeated axis",
           "constant or folded repeats: r copies joined along each axis repeated r > 1 times"},
          {"Cast", MapCast, "", "(none: the tensor itself)",
           "at run time from booleans or integers, or between float types (values kept); a "
           "truncating cast or one to bool unsupported; over constants: folded"},
          {"Upsample", nullptr, "deprecated since opset 10 (export with opset 11 or later)"},
      });
}

}  // namespace ntpb::onnx_import
