// ONNX op mappings, shape ops: Split, Slice, Flatten, Reshape, Squeeze, Unsqueeze, Transpose,
// Concat (their integer shape inputs are folded by the importer).
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

}  // namespace

void AddShapeMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(table->end(), {
                                  {"Split", MapSplit, ""},
                                  {"Slice", MapSlice, ""},
                                  {"Flatten", MapFlatten, ""},
                                  {"Reshape", MapReshape, ""},
                                  {"Squeeze", MapReshape, ""},
                                  {"Unsqueeze", MapReshape, ""},
                                  {"Transpose", MapTranspose, ""},
                                  {"Concat", MapConcat, ""},
                              });
}

}  // namespace ntpb::onnx_import
