// ONNX op mappings, shape ops: Split, Flatten, Reshape, Squeeze, Unsqueeze, Transpose, Concat
// (their integer shape inputs are folded by the importer).
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
                                  {"Flatten", MapFlatten, ""},
                                  {"Reshape", MapReshape, ""},
                                  {"Squeeze", MapReshape, ""},
                                  {"Unsqueeze", MapReshape, ""},
                                  {"Transpose", MapTranspose, ""},
                                  {"Concat", MapConcat, ""},
                              });
}

}  // namespace ntpb::onnx_import
