// ONNX op mappings, the recurrent layers LSTM and GRU (a [T, N, C] sequence, transposed to the
// IR's [N, T, C], gates reordered to the IR's).
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {
namespace {

using Weight = OnnxImporter::Weight;

// Y_h [dirs, N, H]: each direction's last step of Y [T, dirs, N, H] (a reverse direction's
// last step is the sequence's first).
void AddFinalState(OnnxImporter& im, const onnx::NodeProto& n, const std::string& y,
                   const std::string& direction, int64_t steps) {
  const std::string name = im.LayerName(n);
  const int dirs = direction == "bidirectional" ? 2 : 1;
  std::vector<std::string> parts;
  for (int d = 0; d < dirs; ++d) {
    const bool reverse = d == 1 || direction == "reverse";
    const std::string suffix = std::string(".last_") + (reverse ? "reverse" : "forward");
    Layer& step = im.Add(n, "slice", suffix + "_step", {y}, name + suffix + "_step");
    step.attrs["axis"] = 0;
    step.attrs["start"] = reverse ? 0 : steps - 1;
    step.attrs["size"] = 1;
    Layer& dir = im.Add(n, "slice", suffix, {name + suffix + "_step"}, name + suffix);
    dir.attrs["axis"] = 1;
    dir.attrs["start"] = d;
    dir.attrs["size"] = 1;
    parts.push_back(name + suffix);
  }
  std::string joined = parts[0];
  if (dirs == 2) {
    joined = name + ".last";
    im.Add(n, "concat", ".last", parts, joined).attrs["axis"] = 1;
  }
  const Dims& x = im.DimsOf(In(n, 0), n);
  im.Add(n, "reshape", ".y_h", {joined}, n.output(1)).attrs["shape"] = {
      dirs, im.ToJson(x[1]), im.Int(n, "hidden_size", 0)};
}

// A node's weights as ONNX holds them: W [dirs, G*H, C], R [dirs, G*H, H], B [dirs, 2*G*H].
struct RecurrentWeights {
  bool lstm = true;
  int gates = 4;
  int64_t h = 0, c = 0;
  Weight w, r;
  std::shared_ptr<std::vector<float>> bias;  // null: no B (zeros)
};

// The IR layer over `inputs` (x [N, T, C], then any initial states), of IR direction
// `direction`, whose i-th direction takes the weights of the node's direction onnx_dirs[i].
Layer& AddRecurrentLayer(OnnxImporter& im, const onnx::NodeProto& n, const std::string& suffix,
                         const std::vector<std::string>& inputs, const std::string& direction,
                         const RecurrentWeights& rw, const std::vector<int>& onnx_dirs,
                         const std::string& out) {
  const int gates = rw.gates;
  const int64_t h = rw.h, c = rw.c;
  Layer& l = im.Add(n, Lower(n.op_type()), suffix, inputs, out);
  l.attrs["units"] = h;
  l.attrs["direction"] = direction;
  // ONNX gate order: LSTM i, o, f, c; GRU z, r, h. The IR's: LSTM i, f, g, o; GRU r, z, n.
  const std::vector<int> from = rw.lstm ? std::vector<int>{0, 2, 3, 1} : std::vector<int>{1, 0, 2};
  if (!rw.w.values || !rw.r.values) return l;  // shapes only: random weights
  for (size_t i = 0; i < onnx_dirs.size(); ++i) {
    const int d = onnx_dirs[i];
    const std::string p = (direction == "bidirectional" && i == 1) || direction == "reverse"
                              ? "reverse."
                              : "forward.";
    auto wx = std::make_shared<std::vector<float>>(c * gates * h);
    auto wh = std::make_shared<std::vector<float>>(h * gates * h);
    auto b = std::make_shared<std::vector<float>>(gates * h, 0.0f);
    auto bhn = std::make_shared<std::vector<float>>(h, 0.0f);
    for (int g = 0; g < gates; ++g) {
      for (int64_t j = 0; j < h; ++j) {
        const int64_t row = d * gates * h + from[g] * h + j;
        for (int64_t k = 0; k < c; ++k)
          (*wx)[k * gates * h + g * h + j] = (*rw.w.values)[row * c + k];
        for (int64_t k = 0; k < h; ++k)
          (*wh)[k * gates * h + g * h + j] = (*rw.r.values)[row * h + k];
        if (rw.bias) {
          const float wb = (*rw.bias)[d * 2 * gates * h + from[g] * h + j];
          const float rb = (*rw.bias)[d * 2 * gates * h + gates * h + from[g] * h + j];
          if (!rw.lstm && g == 2) {  // n: the recurrent bias stays inside the reset product
            (*b)[g * h + j] = wb;
            (*bhn)[j] = rb;
          } else {
            (*b)[g * h + j] = wb + rb;
          }
        }
      }
    }
    im.SetWeight(l, p + "w_x", {c, gates * h}, wx);
    im.SetWeight(l, p + "w_h", {h, gates * h}, wh);
    im.SetWeight(l, p + "bias", {gates * h}, b);
    if (!rw.lstm) im.SetWeight(l, p + "bias_hn", {h}, bhn);
  }
  return l;
}

// A layer given sequence_lens (L [N], per sequence: a constant or a tensor, e.g. a graph input
// through `pack_padded_sequence`'s casts), as IR ops around unmasked layers (no backend kernel
// knows lengths; oneDNN 2.6's RNN primitives take none):
//  - forward: the whole sequence, then its steps from L on zeroed (ONNX's Y there); a step
//    cannot change those before it, so the rest is exact;
//  - reverse: each sequence's first L steps reversed in time (a [T, T] permutation per
//    sequence, P[t, s] = 1 where s = L - 1 - t < L: a batched matmul), run forward with the
//    reverse weights, and permuted back; steps from L on are zero rows of P;
//  - a bidirectional node becomes one such layer per direction, joined on the feature axis;
//  - Y_h: each direction's state after its L-th step, picked by a one-hot over time (t = L - 1).
// Writes `out` [N, T, dirs * H], and Y_h where `final_state`.
void AddMaskedRecurrent(OnnxImporter& im, const onnx::NodeProto& n, const RecurrentWeights& rw,
                        const std::string& direction, const std::vector<std::string>& states,
                        int64_t steps, const std::string& out, bool final_state) {
  const std::string name = im.LayerName(n);
  const Dims& x = im.DimsOf(In(n, 0), n);
  const nlohmann::json batch = OnnxImporter::ToJson(x[1]);
  const int dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t h = rw.h;
  std::string lens = In(n, 4);
  if (im.IsWeight(lens)) {
    lens = im.ConstantLayer(n, lens);
  } else if (im.IsGraphInput(im.Resolve(lens))) {
    im.DeclareLengths(im.Resolve(lens), steps);
  }
  std::vector<float> positions(static_cast<size_t>(steps));
  for (int64_t t = 0; t < steps; ++t) positions[t] = static_cast<float>(t);
  const std::string rows = im.ValuesLayer(name + ".steps", {1, steps, 1}, positions);
  const std::string one = im.ValuesLayer(name + ".one", {1}, {1.0f});
  im.Add(n, "reshape", ".lengths", {lens}, name + ".lengths").attrs["shape"] = {batch, 1, 1};
  im.Add(n, "sub", ".last_step", {name + ".lengths", one}, name + ".last_step");
  // [N, T, 1]: 1 at the steps each sequence has, and at its last one.
  im.Add(n, "less", ".valid", {rows, name + ".lengths"}, name + ".valid");
  im.Add(n, "equal", ".is_last", {rows, name + ".last_step"}, name + ".is_last");
  std::string permutation;
  if (direction != "forward") {
    const std::string columns = im.ValuesLayer(name + ".columns", {1, 1, steps}, positions);
    im.Add(n, "sub", ".reversed_step", {name + ".last_step", rows}, name + ".reversed_step");
    im.Add(n, "equal", ".reversal", {name + ".reversed_step", columns}, name + ".reversal");
    permutation = name + ".permutation";
    im.Add(n, "mul", ".permutation", {name + ".reversal", name + ".valid"}, permutation);
    im.Add(n, "matmul", ".reversed_input", {permutation, name + ".ntc"}, name + ".reversed_ntc");
  }
  std::vector<std::string> parts, finals;
  for (int d = 0; d < dirs; ++d) {
    const bool reverse = d == 1 || direction == "reverse";
    const std::string tag = reverse ? ".reverse" : ".forward";
    std::vector<std::string> inputs = {reverse ? name + ".reversed_ntc" : name + ".ntc"};
    for (size_t s = 0; s < states.size(); ++s) {  // this direction's [1, N, H] of [dirs, N, H]
      if (dirs == 1) {
        inputs.push_back(states[s]);
        continue;
      }
      const std::string state = name + tag + ".state" + std::to_string(s);
      Layer& slice = im.Add(n, "slice", tag + ".state" + std::to_string(s), {states[s]}, state);
      slice.attrs["axis"] = 0;
      slice.attrs["start"] = d;
      slice.attrs["size"] = 1;
      inputs.push_back(state);
    }
    // A reverse direction runs forward over the reversed input.
    const std::string run = name + tag + ".run";
    AddRecurrentLayer(im, n, tag, inputs, "forward", rw, {dirs == 2 ? d : 0}, run);
    const std::string y = name + tag + ".y";  // zero past each length
    if (reverse) {
      im.Add(n, "matmul", tag + ".unreversed", {permutation, run}, y);
    } else {
      im.Add(n, "mul", tag + ".masked", {run, name + ".valid"}, y);
    }
    parts.push_back(y);
    if (final_state) {  // the state after the sequence's last step, [1, N, H]
      im.Add(n, "mul", tag + ".at_last", {run, name + ".is_last"}, name + tag + ".at_last");
      Layer& sum =
          im.Add(n, "reduce_sum", tag + ".last", {name + tag + ".at_last"}, name + tag + ".last");
      sum.attrs["axes"] = {1};
      sum.attrs["keepdims"] = false;
      im.Add(n, "reshape", tag + ".y_h", {name + tag + ".last"}, name + tag + ".y_h")
          .attrs["shape"] = {1, batch, h};
      finals.push_back(name + tag + ".y_h");
    }
  }
  if (dirs == 2) {
    im.Add(n, "concat", ".joined", parts, out).attrs["axis"] = 2;
  } else {
    im.Add(n, "reshape", ".joined", {parts[0]}, out).attrs["shape"] = {batch, steps, h};
  }
  if (!final_state) return;
  if (dirs == 2) {
    im.Add(n, "concat", ".y_h", finals, n.output(1)).attrs["axis"] = 0;
  } else {
    im.Add(n, "reshape", ".y_h", {finals[0]}, n.output(1)).attrs["shape"] = {1, batch, h};
  }
}

void MapRecurrent(OnnxImporter& im, const onnx::NodeProto& n) {
  const bool lstm = n.op_type() == "LSTM";
  const int gates = lstm ? 4 : 3;
  if (im.Int(n, "layout", 0) != 0) return im.Refuse(n, "layout 1");
  const Dims& x = im.DimsOf(In(n, 0), n);  // [T, N, C]
  if (x.size() != 3) im.Fail(im.LayerName(n), "X", "expected a [T, N, C] input");
  int64_t steps = 0;
  const bool fixed_steps = ToInt(x[0], &steps);
  // Lengths that are all the sequence's own (what an exporter passes for a full batch) change
  // nothing; others (constants, or a graph input: `pack_padded_sequence`) mask the layer.
  bool masked = false;
  if (!In(n, 4).empty()) {
    if (!fixed_steps) {
      return im.Refuse(n, "sequence_lens at a symbolic sequence length (bind it: --set)");
    }
    masked = true;
    if (im.IsWeight(In(n, 4))) {
      const Weight lens = im.WeightInput(n, 4);
      masked = !lens.values || std::any_of(lens.values->begin(), lens.values->end(),
                                           [&](float v) { return v != static_cast<float>(steps); });
    }
  }
  // Initial states: exporters pass zeros explicitly, folded to a constant by now (or computed
  // from the batch size: ConstantOfShape, folded once it is bound), which the IR's layers start
  // from without an input; a graph input (`nn.LSTM(x, (h0, c0))`), a computed state or other
  // constants become the layer's h0 and c0 inputs, [dirs, N, H] as in ONNX.
  std::vector<std::string> states;
  for (int state : {5, 6}) {
    if (In(n, state).empty() || (state == 6 && !lstm)) continue;
    if (im.IsWeight(In(n, state))) {
      const Weight v = im.WeightInput(n, state);
      if (!v.values && !im.reads_weights()) continue;  // shapes only: taken as run would take it
      if (v.values &&
          std::all_of(v.values->begin(), v.values->end(), [](float x) { return x == 0.0f; })) {
        continue;
      }
    }
    if (state == 6 && states.empty()) {
      // initial_c without initial_h: the hidden state starts from zeros (as ONNX says), an
      // input of [dirs, N, H] zeros beside the given cell state.
      int64_t batch = 0;
      const int64_t hidden = im.Int(n, "hidden_size", 0);
      const int64_t directions = im.Str(n, "direction", "forward") == "bidirectional" ? 2 : 1;
      if (!ToInt(x[1], &batch) || hidden <= 0) {
        return im.Refuse(n, "initial_c without initial_h at a symbolic batch");
      }
      states.push_back(im.ZerosLayer(im.LayerName(n) + ".initial_h", {directions, batch, hidden}));
    }
    states.push_back(im.ConstantLayer(n, In(n, state)));
  }
  if (im.Attr(n, "activations") || im.Attr(n, "clip"))
    return im.Refuse(n, "custom activations or clip");
  if (lstm && im.Int(n, "input_forget", 0) != 0) return im.Refuse(n, "input_forget");
  if (!lstm && im.Int(n, "linear_before_reset", 0) != 1) {
    return im.Refuse(n, "linear_before_reset=0 (PyTorch exports 1)");
  }
  // Y_c [dirs, N, H]: the IR's lstm's second output, in the same layout.
  const bool final_cell = lstm && n.output_size() > 2 && im.IsUsed(n.output(2));
  if (final_cell && masked) return im.Refuse(n, "Y_c with sequence_lens shorter than the sequence");
  const bool final_state = n.output_size() > 1 && im.IsUsed(n.output(1));
  if (final_state && !fixed_steps) return im.Refuse(n, "Y_h with a symbolic sequence length");
  const std::string direction = im.Str(n, "direction", "forward");
  const int dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t h = im.Int(n, "hidden_size", 0);
  Weight w = im.WeightInput(n, 1), r = im.WeightInput(n, 2);
  if (h <= 0 || w.dims.size() != 3 || r.dims.size() != 3 || w.dims[0] != dirs ||
      w.dims[1] != gates * h || r.dims[2] != h) {
    im.Fail(im.LayerName(n), "W", "weights do not match hidden_size and direction");
  }
  const int64_t c = w.dims[2];
  const std::string name = im.LayerName(n), y = n.output_size() > 0 ? n.output(0) : name + ".y";
  im.Add(n, "transpose", ".to_ntc", {In(n, 0)}, name + ".ntc").attrs["perm"] = {1, 0, 2};
  const RecurrentWeights weights{
      lstm, gates, h, c, w, r, In(n, 3).empty() ? nullptr : im.WeightInput(n, 3).values};
  if (masked) {
    AddMaskedRecurrent(im, n, weights, direction, states, steps, name + ".out", final_state);
  } else {
    std::vector<std::string> inputs = {name + ".ntc"};
    inputs.insert(inputs.end(), states.begin(), states.end());
    Layer& l =
        AddRecurrentLayer(im, n, "", inputs, direction, weights,
                          dirs == 2 ? std::vector<int>{0, 1} : std::vector<int>{0}, name + ".out");
    if (final_cell) im.AddOutput(l, n.output(2));
  }
  // IR output [N, T, dirs * H] -> ONNX Y [T, dirs, N, H].
  im.Add(n, "reshape", ".split_dirs", {name + ".out"}, name + ".ntdh").attrs["shape"] = {
      im.ToJson(x[1]), im.ToJson(x[0]), dirs, h};
  im.Add(n, "transpose", ".to_tdnh", {name + ".ntdh"}, y).attrs["perm"] = {1, 2, 0, 3};
  if (final_state && !masked) AddFinalState(im, n, y, direction, steps);
}

}  // namespace

void AddRecurrentMappings(std::vector<OnnxOpMapping>* table) {
  table->insert(
      table->end(),
      {
          {"LSTM", MapRecurrent, "", "`transpose` + `lstm` + `reshape` + `transpose`",
           "forward, reverse, bidirectional; gates i, o, f, c reordered to i, f, g, o; "
           "`B` = Wb + Rb; `[T, N, C]` in and `Y` `[T, dirs, N, H]` out as in ONNX; "
           "initial states (graph inputs, computed, constants) are the layer's h0 and c0 "
           "inputs, constant zeros dropped; `sequence_lens` (constant or a tensor, at a fixed or "
           "bound sequence length): one forward layer per direction, masked (`less`, `mul`), "
           "a reverse direction over its valid steps reversed (a permutation `matmul`), `Y_h` "
           "picked at each length; `Y_h` otherwise read from `Y`'s last steps (fixed or bound "
           "sequence length); `Y_c` the layer's second output (not with shorter "
           "`sequence_lens`); `layout` 1, custom activations, `clip` unsupported"},
          {"GRU", MapRecurrent, "", "as LSTM, `gru`",
           "`linear_before_reset` = 1 (PyTorch's export); gates z, r, h reordered to r, "
           "z, n; the recurrent `n` bias stays inside the reset product"},
      });
}

}  // namespace ntpb::onnx_import
