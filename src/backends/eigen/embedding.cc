// embedding: a row of the table per id (embedding_rows.h checks the ids).
#include "src/backends/common/embedding_rows.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

Kernel MakeEmbedding(const KernelArgs& a) {
  const int64_t count = NumElements(a.layer.input_shapes[0]);
  const int64_t vocab = a.layer.attrs.Int("vocab"), dim = a.layer.attrs.Int("dim");
  const float* ids = a.inputs[0];
  const float* table = a.weights[0];
  float* y = a.output;
  const std::string name = a.layer.name;
  return [=] { EmbeddingRows(ids, count, table, vocab, dim, y, name); };
}

}  // namespace

void AddEmbeddingKernels(KernelTable* table) { (*table)["embedding"] = MakeEmbedding; }

}  // namespace ntpb::eigen
