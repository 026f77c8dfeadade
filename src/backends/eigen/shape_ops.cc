// Data movement: pad, expand, concat, slice, transpose, constant, and the copy/reorder inlays.
// (Views - reshape, flatten - get no kernel: the executable aliases their output to the input's
// storage.)
#include <algorithm>
#include <memory>

#include "src/backends/common/broadcast.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

Kernel MakeConcat(const KernelArgs& a) {
  const Shape& out = a.layer.output_shapes[0];
  int64_t axis = a.layer.attrs.Int("axis");
  if (axis < 0) axis += static_cast<int64_t>(out.size());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= out[i];
  for (size_t i = axis + 1; i < out.size(); ++i) inner *= out[i];
  std::vector<int64_t> chunks;
  for (const Shape& s : a.layer.input_shapes) chunks.push_back(s[axis] * inner);
  const std::vector<const float*> inputs = a.inputs;
  const int64_t row = out[axis] * inner;
  float* y = a.output;
  return [=] {
    for (int64_t o = 0; o < outer; ++o) {
      float* dst = y + o * row;
      for (size_t i = 0; i < inputs.size(); ++i) {
        dst = std::copy(inputs[i] + o * chunks[i], inputs[i] + (o + 1) * chunks[i], dst);
      }
    }
  };
}

Kernel MakeSlice(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t axis = a.layer.attrs.Int("axis"), start = a.layer.attrs.Int("start");
  const int64_t size = a.layer.attrs.Int("size");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= in[i];
  for (size_t i = axis + 1; i < in.size(); ++i) inner *= in[i];
  const int64_t in_row = in[axis] * inner, out_row = size * inner, offset = start * inner;
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] {
    for (int64_t o = 0; o < outer; ++o) {
      std::copy(x + o * in_row + offset, x + o * in_row + offset + out_row, y + o * out_row);
    }
  };
}

// Fills the output with the value, then copies each input row (last axis) to its place.
Kernel MakePad(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto pads = a.layer.attrs.Ints("pads");
  const float value = static_cast<float>(a.layer.attrs.Float("value"));
  const size_t rank = in.size();
  std::vector<int64_t> out_stride(rank, 1);
  for (size_t i = rank - 1; i-- > 0;) out_stride[i] = out_stride[i + 1] * out[i + 1];
  int64_t first = 0;  // where input element 0 lands
  for (size_t i = 0; i < rank; ++i) first += pads[i] * out_stride[i];
  const int64_t row = in[rank - 1], rows = NumElements(in) / row, n_out = NumElements(out);
  const Shape dims = in;
  const float* x = a.inputs[0];
  float* y = a.output;
  auto index = std::make_shared<std::vector<int64_t>>(rank, 0);  // allocated once, here
  return [=] {
    std::fill(y, y + n_out, value);
    std::vector<int64_t>& idx = *index;
    std::fill(idx.begin(), idx.end(), 0);
    int64_t o = first;
    for (int64_t r = 0; r < rows; ++r) {
      std::copy(x + r * row, x + (r + 1) * row, y + o);
      for (size_t d = rank - 1; d-- > 0;) {  // next row: odometer over all but the last axis
        o += out_stride[d];
        if (++idx[d] < dims[d]) break;
        o -= out_stride[d] * dims[d];
        idx[d] = 0;
      }
    }
  };
}

// The value is written once, here: a constant costs nothing per inference.
Kernel MakeConstant(const KernelArgs& a) {
  const int64_t n = NumElements(a.layer.output_shapes[0]);
  std::copy(a.weights[0], a.weights[0] + n, a.output);
  return [] {};
}

Kernel MakeTranspose(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto perm = a.layer.attrs.Ints("perm");
  const size_t rank = in.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t i = rank - 1; i-- > 0;) in_strides[i] = in_strides[i + 1] * in[i + 1];
  std::vector<int64_t> st(rank);  // input stride of each output axis
  for (size_t i = 0; i < rank; ++i) st[i] = in_strides[perm[i]];
  const int64_t n = NumElements(out);
  const float* x = a.inputs[0];
  float* y = a.output;
  auto index = std::make_shared<std::vector<int64_t>>(rank, 0);
  return [=] {
    std::vector<int64_t>& idx = *index;
    std::fill(idx.begin(), idx.end(), 0);
    int64_t src = 0;
    for (int64_t i = 0; i < n; ++i) {
      y[i] = x[src];
      for (size_t d = rank; d-- > 0;) {
        src += st[d];
        if (++idx[d] < out[d]) break;
        src -= st[d] * out[d];
        idx[d] = 0;
      }
    }
  };
}

// The reference keeps every tensor in plain row-major layout, so a copy or a reorder into a
// layout the reference does not distinguish is a straight copy of the data.
Kernel MakeExpand(const KernelArgs& a) {
  const ExpandKernel expand(a.layer.input_shapes[0], a.layer.output_shapes[0]);
  auto index = std::make_shared<std::vector<int64_t>>(expand.out.size(), 0);
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] { expand(x, y, *index); };
}

Kernel MakeCopy(const KernelArgs& a) {
  const int64_t n = NumElements(a.layer.output_shapes[0]);
  const float* x = a.inputs[0];
  float* y = a.output;
  return [=] { std::copy(x, x + n, y); };
}

}  // namespace

void AddShapeKernels(KernelTable* table) {
  (*table)["concat"] = MakeConcat;
  (*table)["pad"] = MakePad;
  (*table)["expand"] = MakeExpand;
  (*table)["slice"] = MakeSlice;
  (*table)["constant"] = MakeConstant;
  (*table)["transpose"] = MakeTranspose;
  (*table)["copy"] = MakeCopy;
  (*table)["reorder"] = MakeCopy;
}

}  // namespace ntpb::eigen
