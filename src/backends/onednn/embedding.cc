// embedding: oneDNN 2.6 has no gather primitive; rows are copied on the host (embedding_rows.h
// checks the ids) from the f32 table, then converted to the run's precision by a reorder. The
// ids are read in f32 whatever the precision (bf16 would round ids above 256).
#include <memory>

#include "src/backends/common/embedding_rows.h"
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;

void BuildEmbedding(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& ids_shape = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const memory ids = b.Input(l.inputs[0], PlainDesc(ids_shape, dt::f32));
  auto table = std::make_shared<const std::vector<float>>(b.WeightValues(0));
  const int64_t count = NumElements(ids_shape);
  const int64_t vocab = l.attrs.Int("vocab"), dim = l.attrs.Int("dim");
  const memory dst = b.HostOutputF32(out);
  const std::string name = l.name;
  b.AddHost([=] {
    EmbeddingRows(static_cast<const float*>(ids.get_data_handle()), count, table->data(), vocab,
                  dim, static_cast<float*>(dst.get_data_handle()), name);
  });
  b.ConvertHostOutput(dst, out);
}

}  // namespace

void AddEmbeddingOps(OpTable* table) { (*table)["embedding"] = BuildEmbedding; }

}  // namespace ntpb::onednn
