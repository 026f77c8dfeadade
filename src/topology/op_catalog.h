// The catalogue of ops: which attributes each takes, how it infers shapes, what it costs.
// Adding an op means adding one OpDef in src/ops/ and one kernel per backend. Internal: resolution
// copies what the rest needs of an op into each ResolvedLayer (ntpbench/resolve.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ntpbench/attrs.h"
#include "ntpbench/resolve.h"
#include "ntpbench/shape.h"
#include "ntpbench/topology.h"

namespace ntpb {

enum class OpKind {
  kLayer,  // a neural-network layer
  kInlay,  // not a layer, but part of the end-to-end cost (copy, reorder, MFCC, CTC decoder)
};

enum class AttrType {
  kInt,      // integer or expression string
  kIntPair,  // one or two integers/expressions -> [a, b]
  kIntList,  // list of integers/expressions
  kPadding,  // int, [p_h, p_w], [top, left, bottom, right], "same" or "valid" -> 4 ints
  kFloat,    // number
  kBool,     // true/false
  kEnum,     // one of `choices`
};

struct AttrDef {
  std::string name;
  AttrType type = AttrType::kInt;
  bool required = false;
  nlohmann::json default_value;      // null and not required: absent unless written (see the op)
  std::vector<std::string> choices;  // for kEnum
  std::string doc;
  // kFloat: always finite; and above `greater_than` / at least `at_least` when set (an epsilon
  // of -1 would give NaN outputs, not an error).
  std::optional<double> greater_than, at_least;
};

AttrDef RequiredAttr(std::string name, AttrType type, std::string doc);
AttrDef OptionalAttr(std::string name, AttrType type, nlohmann::json default_value,
                     std::string doc);
AttrDef EnumAttr(std::string name, std::vector<std::string> choices, std::string default_value,
                 std::string doc);

// What shape inference hands an op and what it returns.
struct InferContext {
  const std::string& file;
  const Layer& layer;
  const Attrs& attrs;
  const std::vector<Shape>& inputs;
  // Throws ntpb::Error naming the file, this layer and `field`.
  [[noreturn]] void Fail(const std::string& field, const std::string& message) const;
  void Require(bool ok, const std::string& field, const std::string& message) const {
    if (!ok) Fail(field, message);
  }
};

struct InferResult {
  std::vector<Shape> outputs;
  std::vector<WeightSpec> weights;
  // Attribute values the op worked out (padding "same" -> 4 ints, stride defaulting to kernel);
  // merged into the resolved attributes so backends read what shape inference used.
  nlohmann::json resolved_attrs = nlohmann::json::object();
  // The output holds the input's elements in the input's order (a transpose that moves only
  // axes of size 1): the layer is then a view, as OpDef::is_view ops always are.
  bool view = false;
};

struct OpCostInput {
  const Attrs& attrs;
  const std::vector<Shape>& inputs;
  const std::vector<Shape>& outputs;
};

// Thrown by a cost function whose count does not fit 64 bits (shapes within the limits can
// still multiply past 2^63: an 8 GiB output times an 8 GiB kernel); Resolve names the layer.
struct CostOverflow {
  double approximate = 0;  // the count in floating point, for the message
};

// a * b * ... with every step checked; throws CostOverflow instead of wrapping around.
int64_t CheckedProduct(std::initializer_list<int64_t> factors);

struct OpDef {
  std::string name;
  OpKind kind = OpKind::kLayer;
  int min_inputs = 1;
  int max_inputs = 1;  // -1: any number
  // Outputs past the first are optional: a layer lists those it uses, in order (lstm: y, then
  // the final cell state), and its infer function gives a shape for each one listed.
  int max_outputs = 1;
  std::vector<AttrDef> attrs;
  InferResult (*infer)(const InferContext&) = nullptr;
  // FLOPs of one execution (multiply-add = 2); see docs/topology-format.md for each op's formula.
  int64_t (*flops)(const OpCostInput&) = nullptr;
  // Elements of the i-th weight (of `shape`) read per execution (nullptr: all of it, once). A
  // recurrent layer reads its recurrent weights at every step, an embedding only the rows its
  // ids pick; the roofline counts what is read as memory traffic.
  int64_t (*weight_elements_read)(const OpCostInput&, size_t weight, const Shape& shape) = nullptr;
  // Elements a decoder keeps per token of context for this layer, per sequence (a kv_cache's
  // row; nullptr: none). The analysis totals them as the KV cache's bytes. Such a layer's output
  // is state kept between inferences: a run writes only its input's rows into it.
  int64_t (*cache_elements_per_token)(const OpCostInput&) = nullptr;
  // The output shares the input's storage (reshape, flatten): no data movement, no new memory.
  bool is_view = false;
  // The output is a discrete choice (a decoder's labels): where two candidates' scores are
  // within rounding of each other a lower precision flips it, so numeric comparisons (accuracy
  // counters, equivalence tests) compare the op's first input instead (numeric_outputs.h).
  bool discrete_output = false;
  std::string summary;
};

// Every op, in documentation order.
const std::vector<OpDef>& AllOps();
// nullptr when there is no such op.
const OpDef* FindOp(const std::string& name);

}  // namespace ntpb
