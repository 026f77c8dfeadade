// Data movement as strided maps (op_builder.h): transpose permutes the input's strides, slice
// offsets them, concat maps each input into its place in the output, pad fills then maps the
// input inside, expand broadcasts. Copies and reorders are buffer copies (the backend keeps every
// tensor row-major); a constant is written once, at build time; the context window has its own
// kernel.
#include <memory>

#include "src/backends/common/broadcast.h"
#include "src/backends/opencl/op_builder.h"

namespace ntpb::opencl {
namespace {

StepRun MakeTranspose(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto perm = a.layer.attrs.Ints("perm");
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  StridedMap map;
  map.dims = out;
  map.strides[0] = RowMajorStrides(out);
  for (int64_t axis : perm) map.strides[1].push_back(in_strides[static_cast<size_t>(axis)]);
  const MapLaunch m = PrepareStridedMap(a, map, a.output, a.inputs[0], nullptr, nullptr, kMapCopy);
  return [m](Enqueuer& e) { m.Run(e); };
}

StepRun MakeSlice(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const int64_t axis = a.layer.attrs.Int("axis"), start = a.layer.attrs.Int("start");
  StridedMap map;
  map.dims = out;
  map.strides[0] = RowMajorStrides(out);
  map.strides[1] = RowMajorStrides(in);
  map.base[1] = start * map.strides[1][static_cast<size_t>(axis)];
  const MapLaunch m = PrepareStridedMap(a, map, a.output, a.inputs[0], nullptr, nullptr, kMapCopy);
  return [m](Enqueuer& e) { m.Run(e); };
}

StepRun MakeConcat(OpArgs& a) {
  const Shape& out = a.layer.output_shapes[0];
  int64_t axis = a.layer.attrs.Int("axis");
  if (axis < 0) axis += static_cast<int64_t>(out.size());
  const std::vector<int64_t> out_strides = RowMajorStrides(out);
  auto maps = std::make_shared<std::vector<MapLaunch>>();
  int64_t offset = 0;  // along the axis
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const Shape& s = a.layer.input_shapes[i];
    StridedMap map;
    map.dims = s;
    map.strides[0] = out_strides;
    map.base[0] = offset * out_strides[static_cast<size_t>(axis)];
    map.strides[1] = RowMajorStrides(s);
    maps->push_back(PrepareStridedMap(a, map, a.output, a.inputs[i], nullptr, nullptr, kMapCopy));
    offset += s[static_cast<size_t>(axis)];
  }
  return [maps](Enqueuer& e) {
    for (const MapLaunch& m : *maps) m.Run(e);
  };
}

StepRun MakePad(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto pads = a.layer.attrs.Ints("pads");
  const std::vector<int64_t> out_strides = RowMajorStrides(out);
  StridedMap map;
  map.dims = in;
  map.strides[0] = out_strides;
  for (size_t d = 0; d < in.size(); ++d) map.base[0] += pads[d] * out_strides[d];
  map.strides[1] = RowMajorStrides(in);
  const MapLaunch inside =
      PrepareStridedMap(a, map, a.output, a.inputs[0], nullptr, nullptr, kMapCopy);
  cl_kernel fill = a.Kernel("unary");
  const int64_t n = NumElements(out);
  SetArgs(fill, cl_mem{nullptr}, a.output, Int(n), cl_int{9},  // UNARY_FILL
          cl_int{0}, static_cast<cl_float>(a.layer.attrs.Float("value")), cl_float{0});
  return [fill, n, inside](Enqueuer& e) {
    e.LaunchChunks(fill, n);
    inside.Run(e);
  };
}

StepRun MakeExpand(OpArgs& a) {
  const Shape& out = a.layer.output_shapes[0];
  StridedMap map;
  map.dims = out;
  map.strides[0] = RowMajorStrides(out);
  map.strides[1] = BroadcastStrides(a.layer.input_shapes[0], out);
  const MapLaunch m = PrepareStridedMap(a, map, a.output, a.inputs[0], nullptr, nullptr, kMapCopy);
  return [m](Enqueuer& e) { m.Run(e); };
}

StepRun MakeCopy(OpArgs& a) {
  const cl_mem from = a.inputs[0], to = a.output;
  const int64_t bytes = a.Bytes(NumElements(a.layer.output_shapes[0]));
  return [from, to, bytes](Enqueuer& e) { e.Copy(from, to, bytes); };
}

// The value is written once, at build time: a constant costs nothing per inference.
StepRun MakeConstant(OpArgs& a) {
  (void)a;
  return [](Enqueuer&) {};
}

StepRun MakeContextWindow(OpArgs& a) {
  const Shape& s = a.layer.input_shapes[0];
  const int64_t total = NumElements(a.layer.output_shapes[0]);
  cl_kernel k = a.Kernel("context_window");
  SetArgs(k, a.inputs[0], a.output, Int(s[1]), Int(s[2]), Int(a.layer.attrs.Int("context")),
          Int(total));
  return [k, total](Enqueuer& e) { e.Launch1D(k, total); };
}

}  // namespace

void AddLayoutOps(OpTable* table) {
  (*table)["transpose"] = MakeTranspose;
  (*table)["slice"] = MakeSlice;
  (*table)["concat"] = MakeConcat;
  (*table)["pad"] = MakePad;
  (*table)["expand"] = MakeExpand;
  (*table)["copy"] = MakeCopy;
  (*table)["reorder"] = MakeCopy;
  (*table)["constant"] = MakeConstant;
  (*table)["context_window"] = MakeContextWindow;
}

}  // namespace ntpb::opencl
