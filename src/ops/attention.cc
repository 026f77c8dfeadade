// attention (scaled dot-product over heads, with multi-query and grouped-query heads, a causal
// and a padding mask), kv_cache (the keys and values a decoder keeps between tokens) and rotary
// (the position embedding applied to queries and keys before it).
#include <cmath>

#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferAttention(const InferContext& ctx) {
  const Shape &q = ctx.inputs[0], &k = ctx.inputs[1], &v = ctx.inputs[2];
  for (size_t i = 0; i < 3; ++i) {
    ctx.Require(ctx.inputs[i].size() == 3, "inputs",
                std::string("q, k and v must be [N, sequence, heads x head size]; input ") +
                    "qkv"[i] + " is " + ShapeToString(ctx.inputs[i]));
  }
  const int64_t heads = ctx.attrs.Int("heads");
  ctx.Require(heads > 0, "heads", "must be positive, got " + std::to_string(heads));
  const int64_t kv_heads = ctx.attrs.Has("kv_heads") ? ctx.attrs.Int("kv_heads") : heads;
  ctx.Require(kv_heads > 0, "kv_heads", "must be positive, got " + std::to_string(kv_heads));
  ctx.Require(q[2] % heads == 0, "heads",
              std::to_string(heads) + " heads do not divide the query width " +
                  std::to_string(q[2]) + " of " + ShapeToString(q));
  ctx.Require(heads % kv_heads == 0, "kv_heads",
              std::to_string(kv_heads) + " key/value heads do not divide the " +
                  std::to_string(heads) + " query heads (each key/value head serves a group)");
  const int64_t head_size = q[2] / heads;
  ctx.Require(k[0] == q[0] && v[0] == q[0], "inputs",
              "q, k and v differ in batch: " + ShapeToString(q) + ", " + ShapeToString(k) + ", " +
                  ShapeToString(v));
  ctx.Require(k[1] == v[1], "inputs",
              "k and v differ in length: " + ShapeToString(k) + " and " + ShapeToString(v));
  ctx.Require(k[2] == kv_heads * head_size, "inputs",
              "k " + ShapeToString(k) + " must be " + std::to_string(kv_heads) +
                  " key/value heads of the query's head size " + std::to_string(head_size) +
                  " (width " + std::to_string(kv_heads * head_size) + ")");
  ctx.Require(v[2] % kv_heads == 0, "inputs",
              "the width of v " + ShapeToString(v) + " is not " + std::to_string(kv_heads) +
                  " key/value heads");
  const bool causal = ctx.attrs.Bool("causal");
  ctx.Require(!causal || q[1] <= k[1], "causal",
              "causal attention needs at least as many keys as queries (the queries are the "
              "last " +
                  std::to_string(q[1]) + " positions), got " + std::to_string(k[1]) + " keys");
  if (ctx.inputs.size() == 4) {
    const Shape& mask = ctx.inputs[3];
    ctx.Require(mask == Shape{q[0], k[1]}, "inputs",
                "the padding mask must be [N, keys] = " + ShapeToString({q[0], k[1]}) + ", got " +
                    ShapeToString(mask));
  }
  InferResult r;
  r.outputs = {{q[0], q[1], heads * (v[2] / kv_heads)}};
  r.resolved_attrs["kv_heads"] = kv_heads;
  if (!ctx.attrs.Has("scale")) {
    r.resolved_attrs["scale"] = 1.0 / std::sqrt(static_cast<double>(head_size));
  }
  return r;
}

// Query-key pairs scored: every pair, or with a causal mask those at or before the query's
// position (the queries are the last Sq of the Sk positions).
int64_t AttendedPairs(const OpCostInput& c) {
  const Shape &q = c.inputs[0], &k = c.inputs[1];
  const int64_t sq = q[1], sk = k[1];
  const int64_t per_item =
      c.attrs.Bool("causal") ? sq * (sk - sq) + sq * (sq + 1) / 2 : CheckedProduct({sq, sk});
  return CheckedProduct({q[0], c.attrs.Int("heads"), per_item});
}

// Per pair: q.k (2 D), softmax (3) and the weighted sum of values (2 Dv).
int64_t AttentionFlops(const OpCostInput& c) {
  const int64_t heads = c.attrs.Int("heads"), kv_heads = c.attrs.Int("kv_heads");
  const int64_t d = c.inputs[0][2] / heads, dv = c.inputs[2][2] / kv_heads;
  return CheckedProduct({AttendedPairs(c), 2 * d + 2 * dv + 3});
}

InferResult InferKvCache(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 3, "inputs",
              "kv_cache appends [N, sequence, width] rows, got " + ShapeToString(in));
  const int64_t past = ctx.attrs.Int("past");
  ctx.Require(past >= 0, "past", "must not be negative, got " + std::to_string(past));
  const int64_t capacity = ctx.attrs.Int("capacity");
  ctx.Require(capacity >= 0, "capacity", "must not be negative, got " + std::to_string(capacity));
  ctx.Require(capacity == 0 || past + in[1] <= capacity, "capacity",
              std::to_string(past) + " cached + " + std::to_string(in[1]) +
                  " new rows are more than the cache's " + std::to_string(capacity) +
                  " (the model's context: a prompt or past too long for it)");
  InferResult r;
  r.outputs = {Shape{in[0], past + in[1], in[2]}};
  return r;
}

// Appending moves rows, it computes nothing.
int64_t NoFlops(const OpCostInput&) { return 0; }

// The cache keeps its input's width per token of context.
int64_t CachedElements(const OpCostInput& c) { return c.inputs[0][2]; }

InferResult InferRotary(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 3, "inputs",
              "rotary needs [N, sequence, heads x head size], got " + ShapeToString(in));
  const int64_t heads = ctx.attrs.Int("heads");
  ctx.Require(heads > 0, "heads", "must be positive, got " + std::to_string(heads));
  ctx.Require(in[2] % heads == 0, "heads",
              std::to_string(heads) + " heads do not divide the width " + std::to_string(in[2]) +
                  " of " + ShapeToString(in));
  ctx.Require(
      (in[2] / heads) % 2 == 0, "heads",
      "the head size " + std::to_string(in[2] / heads) + " is odd: rotary turns pairs of features");
  ctx.Require(ctx.attrs.Int("offset") >= 0, "offset",
              "must not be negative, got " + std::to_string(ctx.attrs.Int("offset")));
  return {{in}, {}, {}};
}

// x cos + rotated(x) sin: two multiplies and an add per element.
int64_t RotaryFlops(const OpCostInput& c) { return 3 * NumElements(c.outputs[0]); }

}  // namespace

void AddAttentionOps(std::vector<OpDef>* ops) {
  OpDef attention;
  attention.name = "attention";
  attention.min_inputs = 3;
  attention.max_inputs = 4;
  attention.attrs = {
      RequiredAttr("heads", AttrType::kInt, "query heads (the query width is heads x head size)"),
      OptionalAttr("kv_heads", AttrType::kInt, nullptr,
                   "key/value heads (default: heads; 1 = multi-query; fewer = grouped-query, "
                   "each serving heads / kv_heads query heads)"),
      OptionalAttr("causal", AttrType::kBool, false,
                   "each query sees the keys at or before its position; the queries are the "
                   "last positions of the keys (a decode step's one query sees every key)"),
      OptionalAttr("scale", AttrType::kFloat, nullptr,
                   "factor of q.k before the softmax (default 1/sqrt(head size))")};
  attention.infer = InferAttention;
  attention.flops = AttentionFlops;
  attention.summary =
      "softmax(q k^T * scale + mask) v per head: q [N, Sq, H*D], k [N, Sk, Hkv*D], "
      "v [N, Sk, Hkv*Dv] (+ optional padding mask [N, Sk], 0 = masked) -> [N, Sq, H*Dv]";
  ops->push_back(attention);

  OpDef kv_cache;
  kv_cache.name = "kv_cache";
  kv_cache.attrs = {OptionalAttr("past", AttrType::kInt, 0,
                                 "rows already in the cache: the new rows go after them"),
                    OptionalAttr("capacity", AttrType::kInt, 0,
                                 "the most rows it holds (the model's context); 0: no bound")};
  kv_cache.infer = InferKvCache;
  kv_cache.flops = NoFlops;
  kv_cache.cache_elements_per_token = CachedElements;
  kv_cache.summary =
      "a decoder's key or value cache, kept between inferences: appends the input's rows "
      "[N, S, W] after the `past` rows already held -> [N, past + S, W] (only the new rows move)";
  ops->push_back(kv_cache);

  OpDef rotary;
  rotary.name = "rotary";
  rotary.attrs = {
      RequiredAttr("heads", AttrType::kInt, "heads (the width is heads x head size)"),
      OptionalAttr("offset", AttrType::kInt, 0,
                   "position of the first row (the tokens already in a key/value cache)"),
      OptionalAttr("base", AttrType::kFloat, 10000.0, "frequency base theta"),
      EnumAttr("style", {"half", "interleaved"}, "half",
               "pairs (i, i + D/2) as GPT-NeoX and Hugging Face Llama, or (2i, 2i + 1) as GPT-J "
               "and Meta's Llama")};
  rotary.attrs[2].greater_than = 0;
  rotary.infer = InferRotary;
  rotary.flops = RotaryFlops;
  rotary.summary =
      "rotary position embedding (RoPE) of each head's features: [N, S, H*D] -> same; pair j "
      "of position p turned by p * base^(-2j/D)";
  ops->push_back(rotary);
}

}  // namespace ntpb::ops
