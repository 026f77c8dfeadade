// Data movement on reorders: concat, transpose, slice, pad, expand, copy, reorder; views
// (reshape, flatten) and constants take no step at all.
#include <algorithm>
#include <cstring>
#include <memory>

#include "src/backends/common/broadcast.h"
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

void BuildConcat(Builder& b) {
  const ResolvedLayer& l = b.layer();
  int axis = static_cast<int>(l.attrs.Int("axis"));
  if (axis < 0) axis += static_cast<int>(l.output_shapes[0].size());
  std::vector<memory::desc> srcs;
  std::vector<memory> inputs;
  for (const std::string& in : l.inputs) {
    inputs.push_back(b.PlainInput(in));
    srcs.push_back(inputs.back().get_desc());
  }
  const memory::desc dst_md = b.Plain(l.output_shapes[0]);
  dnnl::concat::primitive_desc pd(dst_md, axis, srcs, b.engine(), UserScratchpad());
  const memory dst = b.NewOutput(dst_md);
  Args args = {{DNNL_ARG_DST, dst}};
  for (size_t i = 0; i < inputs.size(); ++i)
    args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = inputs[i];
  b.AddPrimitive(pd, dnnl::concat(pd), std::move(args));
}

void BuildView(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const memory src = b.PlainInput(l.inputs[0]);
  b.SetTensor(l.outputs[0], memory(b.Plain(l.output_shapes[0]), b.engine(), src.get_data_handle()));
  b.NoStep();
}

// The step's kernel column names the reorder oneDNN picked (jit:uni, simple:any, ...).
void Reorder(Builder& b, const memory& from, const memory& to) {
  const dnnl::reorder::primitive_desc pd(from, to);
  b.AddPrimitive(pd, dnnl::reorder(pd), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

void BuildTranspose(Builder& b) {
  const ResolvedLayer& l = b.layer();
  if (l.is_view) return BuildView(b);  // only axes of size 1 move
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto perm = l.attrs.Ints("perm");
  const memory src = b.PlainInput(l.inputs[0]);
  memory::dims in_strides(in.size(), 1), strides(in.size());
  for (size_t i = in.size() - 1; i-- > 0;) in_strides[i] = in_strides[i + 1] * in[i + 1];
  for (size_t i = 0; i < perm.size(); ++i) strides[i] = in_strides[perm[i]];
  const memory dst = b.NewOutput(b.Plain(out));
  if (perm.back() != static_cast<int64_t>(in.size()) - 1) {
    // The input seen in output order: same bytes, permuted strides.
    const memory permuted(memory::desc(Dims(out), b.act(), strides), b.engine(),
                          src.get_data_handle());
    return Reorder(b, permuted, dst);
  }
  // The last axis stays last (a transformer's [N, S, heads, D] <-> [N, heads, S, D]): rows of
  // D elements move whole, each thread copying a contiguous range of the output's rows.
  const int64_t elem = static_cast<int64_t>(memory::data_type_size(b.act()));
  const int64_t row_bytes = out.back() * elem, rows = NumElements(out) / out.back();
  const int threads = EffectiveThreads(b.config());
  b.AddHost([src, dst, out, strides, elem, row_bytes, rows, threads] {
    const auto* from = static_cast<const char*>(src.get_data_handle());
    auto* to = static_cast<char*>(dst.get_data_handle());
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      int64_t offset = 0, rest = r;  // the row's index in the output, as input offsets
      for (size_t a = out.size() - 1; a-- > 0;) {
        offset += rest % out[a] * strides[a];
        rest /= out[a];
      }
      std::memcpy(to + r * row_bytes, from + offset * elem, static_cast<size_t>(row_bytes));
    }
  });
  b.SetKernel("ntpbench row copy");
}

void BuildSlice(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& out = l.output_shapes[0];
  const memory src = b.PlainInput(l.inputs[0]);
  memory::dims offsets(out.size(), 0);
  offsets[l.attrs.Int("axis")] = l.attrs.Int("start");
  const memory part(src.get_desc().submemory_desc(Dims(out), offsets), b.engine(),
                    src.get_data_handle());
  Reorder(b, part, b.NewOutput(b.Plain(out)));
}

// The output filled with the value, then the input reordered into its place (a sub-memory).
void BuildPad(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const auto pads = l.attrs.Ints("pads");
  const memory src = b.PlainInput(l.inputs[0]);
  const memory dst = b.NewOutput(b.Plain(l.output_shapes[0]));
  const float value = static_cast<float>(l.attrs.Float("value"));
  if (b.act() == memory::data_type::f32) {
    const size_t n = dst.get_desc().get_size() / sizeof(float);
    b.AddHost([dst, value, n] {
      float* y = static_cast<float*>(dst.get_data_handle());
      std::fill(y, y + n, value);
    });
  } else {  // bf16: the value's upper half (exact for 0 and any value bf16 can hold)
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const uint16_t half = static_cast<uint16_t>(bits >> 16);
    const size_t count = dst.get_desc().get_size() / sizeof(uint16_t);
    b.AddHost([dst, half, count] {
      uint16_t* y = static_cast<uint16_t*>(dst.get_data_handle());
      std::fill(y, y + count, half);
    });
  }
  const memory::dims offsets(pads.begin(), pads.begin() + in.size());
  const memory inner(dst.get_desc().submemory_desc(Dims(in), offsets), b.engine(),
                     dst.get_data_handle());
  Reorder(b, src, inner);
}

// expand: a host loop over the shared kernel (broadcast.h), in f32 between reorders (a reorder
// cannot read with zero strides).
void BuildExpand(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const memory src = b.Input(l.inputs[0], PlainDesc(in, dt::f32));
  const memory dst = b.HostOutputF32(out);
  const ExpandKernel expand(in, out);
  auto index = std::make_shared<std::vector<int64_t>>(out.size(), 0);
  b.AddHost([=] {
    expand(static_cast<const float*>(src.get_data_handle()),
           static_cast<float*>(dst.get_data_handle()), *index);
  });
  b.ConvertHostOutput(dst, out);
}

void BuildConstant(Builder& b) {
  const std::vector<float> v = b.WeightValues(0);
  // f32 as in the model: a consumer in another precision converts it (once per inference).
  // Its own memory, not the activation pool's: it is written once, here, so a pooled buffer
  // that a tensor computed earlier in the inference also uses would overwrite it (found by the
  // ONNX corpus: a transformer's attention scale read back as another tensor's values).
  const memory::desc desc = PlainDesc(b.layer().output_shapes[0]);
  b.SetTensor(b.layer().outputs[0], b.WeightMemory(v, desc, desc));
  b.NoStep();  // written once: no work per inference
}

void BuildCopy(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const memory src = b.Input(l.inputs[0]);
  Reorder(b, src, b.NewOutput(src.get_desc()));
}

// The IR's reorder inlay: into the named layout; later consumers reorder again if they must.
void BuildReorder(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& s = l.output_shapes[0];
  const std::string layout = l.attrs.Str("layout");
  tag t = PlainTag(s.size());
  if (s.size() == 4 && layout == "nhwc") t = tag::nhwc;
  if (s.size() == 4 && layout == "blocked") t = tag::nChw16c;
  if (s.size() == 3 && layout == "tnc") t = tag::bac;
  const memory src = b.Input(l.inputs[0]);
  Reorder(b, src, b.NewOutput(memory::desc(Dims(s), src.get_desc().data_type(), t)));
}

}  // namespace

void AddShapeOps(OpTable* table) {
  (*table)["concat"] = BuildConcat;
  (*table)["reshape"] = BuildView;
  (*table)["flatten"] = BuildView;
  (*table)["transpose"] = BuildTranspose;
  (*table)["slice"] = BuildSlice;
  (*table)["pad"] = BuildPad;
  (*table)["expand"] = BuildExpand;
  (*table)["constant"] = BuildConstant;
  (*table)["copy"] = BuildCopy;
  (*table)["reorder"] = BuildReorder;
}

}  // namespace ntpb::onednn
