// attention (kernels.cl's one-pass kernel with an online softmax, one work-item per query and
// head; or, for GPUs, attention_group: a work-group per query and head), rotary (one work-item per
// turned pair, over the shared angle table) and kv_cache (buffer copies into the cache's rows).
#include <algorithm>

#include "ntpbench/error.h"
#include "src/backends/common/attention_geometry.h"
#include "src/backends/opencl/op_builder.h"

namespace ntpb::opencl {
namespace {

// kernels.cl's ATTENTION_MAX_VALUE: the private accumulator of one query's output.
constexpr int64_t kMaxValueSize = 256;
// kernels.cl's ATTENTION_LOCAL_KEYS and ATTENTION_MAX_HEAD: what attention_group keeps in local
// memory (a query's scores, its head).
constexpr int64_t kGroupMaxKeys = 4096, kGroupMaxHead = 256;

StepRun MakeAttention(OpArgs& a) {
  const AttentionGeometry g = AttentionGeometry::Of(a.layer);
  if (g.value_size > kMaxValueSize) {
    throw Error("", a.layer.name, "inputs",
                "the opencl backend's attention keeps a value head in private memory, at most " +
                    std::to_string(kMaxValueSize) + " features; this one has " +
                    std::to_string(g.value_size));
  }
  const cl_mem q = a.Constant(std::vector<cl_int>{
      Int(g.batch), Int(g.queries), Int(g.keys), Int(g.heads), Int(g.kv_heads), Int(g.head_size),
      Int(g.value_size), cl_int{g.causal ? 1 : 0}, cl_int{g.padding_mask ? 1 : 0}});
  // Without a mask the kernel never reads its argument: any buffer stands in.
  const cl_mem mask = g.padding_mask ? a.inputs[3] : a.inputs[0];
  // Its local memory: the scores, the query head and the reduction's partial sums.
  const int64_t local_bytes =
      (kGroupMaxKeys + kGroupMaxHead + a.device.reduction_local) * int64_t{sizeof(float)};
  const bool group = a.group_attention && g.keys <= kGroupMaxKeys && g.head_size <= kGroupMaxHead &&
                     a.device.info.local_memory_bytes >= local_bytes;
  cl_kernel k = a.Kernel(group ? "attention_group" : "attention");
  SetArgs(k, a.inputs[0], a.inputs[1], a.inputs[2], mask, a.output, q, cl_float{g.scale},
          cl_int{0});
  const int64_t items = g.batch * g.heads * g.queries;
  // Over a cache, the keys appended so far: the run's position shift leaves the last ones out.
  const int64_t* shift = ReadsKvCache(*a.topology, a.layer) ? a.position_shift : nullptr;
  const size_t local = static_cast<size_t>(a.device.reduction_local);
  return [k, items, shift, group, local](Enqueuer& e) {
    if (shift) SetArg(k, 7, Int(*shift));
    if (!group) {
      e.Launch1D(k, items);
      return;
    }
    const size_t global = static_cast<size_t>(items) * local;
    e.Launch(k, 1, &global, &local);
  };
}

StepRun MakeRotary(OpArgs& a) {
  const Shape& s = a.layer.input_shapes[0];
  const int64_t heads = a.layer.attrs.Int("heads"), d = s[2] / heads;
  // The angles from position 0: a shifted run (Executable::SetPositionShift) reads its rows
  // further back in the same table.
  const int64_t offset = a.layer.attrs.Int("offset");
  const RotaryTable table(0, offset + s[1], d, a.layer.attrs.Float("base"));
  const cl_mem p = a.Constant(std::vector<cl_int>{
      Int(s[1]), Int(heads), Int(d), cl_int{a.layer.attrs.Str("style") == "interleaved"}});
  const int64_t pairs = NumElements(s) / 2;
  cl_kernel k = a.Kernel("rotary");
  SetArgs(k, a.inputs[0], a.output, a.Constant(table.cos), a.Constant(table.sin), p, Int(pairs),
          Int(offset));
  const int64_t* shift = a.position_shift;
  return [k, pairs, offset, shift](Enqueuer& e) {
    SetArg(k, 6, Int(std::max<int64_t>(0, offset + *shift)));
    e.Launch1D(k, pairs);
  };
}

// Appends the input's rows after the rows earlier inferences left (at `past`, moved by the
// run's position shift): one buffer copy per item.
StepRun MakeKvCache(OpArgs& a) {
  const Shape &in = a.layer.input_shapes[0], &out = a.layer.output_shapes[0];
  const int64_t n = in[0], bytes = a.Bytes(in[1] * in[2]), capacity_bytes = a.Bytes(out[1] * in[2]);
  const int64_t row_bytes = a.Bytes(in[2]), past = CacheWriteRow(a.layer, 0);
  const cl_mem x = a.inputs[0], cache = a.output;
  const int64_t* shift = a.position_shift;
  return [=](Enqueuer& e) {
    const int64_t at = (past + *shift) * row_bytes;
    for (int64_t i = 0; i < n; ++i) e.Copy(x, cache, bytes, i * bytes, i * capacity_bytes + at);
  };
}

}  // namespace

void AddAttentionOps(OpTable* table) {
  (*table)["attention"] = MakeAttention;
  (*table)["rotary"] = MakeRotary;
  (*table)["kv_cache"] = MakeKvCache;
}

}  // namespace ntpb::opencl
