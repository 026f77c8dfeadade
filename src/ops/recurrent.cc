// lstm and gru over T steps: input [N, T, C], output [N, T, units * directions]; optional
// initial states as inputs (h0, and c0 for lstm: [directions, N, units], ONNX's initial_h and
// initial_c layout), else zeros; lstm's optional second output, the final cell state, in the
// same layout.
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

int Directions(const Attrs& a) { return a.Str("direction") == "bidirectional" ? 2 : 1; }

// gates: 4 for LSTM (i, f, g, o), 3 for GRU (r, z, n).
InferResult InferRecurrent(const InferContext& ctx, int gates) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 3, "inputs",
              ctx.layer.op + " needs an [N, T, C] input, got " + ShapeToString(in));
  const int64_t h = ctx.attrs.Int("units"), c = in[2];
  ctx.Require(h > 0, "units", "must be positive, got " + std::to_string(h));
  const int dirs = Directions(ctx.attrs);
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    const Shape state = {dirs, in[0], h};
    ctx.Require(ctx.inputs[i] == state, "inputs",
                std::string(i == 1 ? "the initial state h0" : "the initial cell state c0") +
                    " must be [directions, N, units] = " + ShapeToString(state) + ", got " +
                    ShapeToString(ctx.inputs[i]));
  }
  InferResult r;
  r.outputs = {{in[0], in[1], h * dirs}};
  // lstm's second output, when the layer lists one: the final cell state [dirs, N, H] (ONNX's
  // Y_c; a reverse direction's is its state after the sequence's first step).
  if (gates == 4 && ctx.layer.outputs.size() > 1) r.outputs.push_back({dirs, in[0], h});
  for (int d = 0; d < dirs; ++d) {
    const std::string p =
        (dirs == 2 && d == 1) || ctx.attrs.Str("direction") == "reverse" ? "reverse." : "forward.";
    r.weights.push_back({p + "w_x", {c, gates * h}, true, WeightInit::kFanIn, h});
    r.weights.push_back({p + "w_h", {h, gates * h}, true, WeightInit::kFanIn, h});
    r.weights.push_back({p + "bias", {gates * h}, true, WeightInit::kFanIn, h});
    if (gates == 3) r.weights.push_back({p + "bias_hn", {h}, true, WeightInit::kFanIn, h});
  }
  return r;
}

InferResult InferLstm(const InferContext& ctx) { return InferRecurrent(ctx, 4); }
InferResult InferGru(const InferContext& ctx) { return InferRecurrent(ctx, 3); }

int64_t RecurrentFlops(const OpCostInput& c, int gates) {
  const Shape& in = c.inputs[0];
  const int64_t h = c.attrs.Int("units");
  return CheckedProduct({Directions(c.attrs), in[0], in[1], 2, gates, h, in[2] + h});
}
int64_t LstmFlops(const OpCostInput& c) { return RecurrentFlops(c, 4); }
// Per direction w_x, w_h, bias (+ bias_hn for GRU): w_h is read at each of the T steps.
int64_t LstmWeightRead(const OpCostInput& c, size_t weight, const Shape& shape) {
  return CheckedProduct({weight % 3 == 1 ? c.inputs[0][1] : 1, NumElements(shape)});
}
int64_t GruWeightRead(const OpCostInput& c, size_t weight, const Shape& shape) {
  return CheckedProduct({weight % 4 == 1 ? c.inputs[0][1] : 1, NumElements(shape)});
}
int64_t GruFlops(const OpCostInput& c) { return RecurrentFlops(c, 3); }

OpDef Recurrent(const std::string& name) {
  OpDef op;
  op.name = name;
  op.attrs = {RequiredAttr("units", AttrType::kInt, "hidden size H"),
              EnumAttr("direction", {"forward", "reverse", "bidirectional"}, "forward",
                       "bidirectional concatenates [forward, reverse] outputs")};
  return op;
}

}  // namespace

void AddRecurrentOps(std::vector<OpDef>* ops) {
  OpDef lstm = Recurrent("lstm");
  lstm.infer = InferLstm;
  lstm.flops = LstmFlops;
  lstm.weight_elements_read = LstmWeightRead;
  lstm.summary =
      "LSTM, gates i, f, g, o; one bias per gate; inputs x [N, T, C] (+ h0, c0 [dirs, N, H], else "
      "zeros); outputs y [N, T, dirs * H] (+ the final cell state [dirs, N, H])";
  lstm.max_inputs = 3;
  lstm.max_outputs = 2;
  ops->push_back(lstm);
  OpDef gru = Recurrent("gru");
  gru.infer = InferGru;
  gru.flops = GruFlops;
  gru.weight_elements_read = GruWeightRead;
  gru.summary =
      "GRU, gates r, z, n; linear-before-reset with a separate recurrent bias for n; inputs x "
      "(+ h0 [dirs, N, H], else zeros)";
  gru.max_inputs = 2;
  ops->push_back(gru);
}

}  // namespace ntpb::ops
