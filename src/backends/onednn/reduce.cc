// reduce_mean, reduce_sum, reduce_max as oneDNN's reduction primitive. oneDNN keeps reduced axes
// as 1s; without keepdims the result is the same bytes seen as the squeezed shape.
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

template <dnnl::algorithm kAlgorithm>
void BuildReduce(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  Shape kept = in;
  for (int64_t axis : l.attrs.Ints("axes")) kept[axis] = 1;
  const memory src = b.PlainInput(l.inputs[0]);
  dnnl::reduction::desc desc(kAlgorithm, src.get_desc(), b.Plain(kept), 0.0f, 0.0f);
  dnnl::reduction::primitive_desc pd(desc, UserScratchpad(), b.engine());
  const memory dst = b.NewOutput(b.Plain(kept));
  b.AddPrimitive(pd, dnnl::reduction(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  if (kept != l.output_shapes[0]) {
    b.SetTensor(l.outputs[0],
                memory(b.Plain(l.output_shapes[0]), b.engine(), dst.get_data_handle()));
  }
}

}  // namespace

void AddReduceOps(OpTable* table) {
  (*table)["reduce_mean"] = BuildReduce<dnnl::algorithm::reduction_mean>;
  (*table)["reduce_sum"] = BuildReduce<dnnl::algorithm::reduction_sum>;
  (*table)["reduce_max"] = BuildReduce<dnnl::algorithm::reduction_max>;
}

}  // namespace ntpb::onednn
