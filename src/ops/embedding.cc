// embedding: rows of a table picked by integer ids (token and position embeddings; ONNX's Gather
// over a constant table).
#include <algorithm>

#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferEmbedding(const InferContext& ctx) {
  const int64_t vocab = ctx.attrs.Int("vocab"), dim = ctx.attrs.Int("dim");
  ctx.Require(vocab > 0, "vocab", "must be positive, got " + std::to_string(vocab));
  ctx.Require(dim > 0, "dim", "must be positive, got " + std::to_string(dim));
  Shape out = ctx.inputs[0];
  out.push_back(dim);
  InferResult r{{out}, {}, {}};
  r.weights.push_back({"table", {vocab, dim}, true, WeightInit::kFanIn, 1});
  return r;
}

int64_t NoFlops(const OpCostInput&) { return 0; }

// One row per id, at most the whole table.
int64_t RowsRead(const OpCostInput& c, size_t, const Shape& table) {
  return std::min(NumElements(c.inputs[0]), table[0]) * table[1];
}

}  // namespace

void AddEmbeddingOps(std::vector<OpDef>* ops) {
  OpDef embedding;
  embedding.name = "embedding";
  embedding.attrs = {RequiredAttr("vocab", AttrType::kInt, "rows of the table (ids 0..vocab-1)"),
                     RequiredAttr("dim", AttrType::kInt, "length of each row")};
  embedding.infer = InferEmbedding;
  embedding.flops = NoFlops;
  embedding.weight_elements_read = RowsRead;
  embedding.summary =
      "ids [...] -> rows of weight 'table' [vocab, dim]: [..., dim]; a negative id counts from "
      "the end (ONNX Gather); one outside [-vocab, vocab) stops the run";
  ops->push_back(embedding);
}

}  // namespace ntpb::ops
