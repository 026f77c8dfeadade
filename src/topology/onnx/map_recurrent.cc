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

void MapRecurrent(OnnxImporter& im, const onnx::NodeProto& n) {
  const bool lstm = n.op_type() == "LSTM";
  const int gates = lstm ? 4 : 3;
  if (im.Int(n, "layout", 0) != 0) return im.Refuse(n, "layout 1");
  const Dims& x = im.DimsOf(In(n, 0), n);  // [T, N, C]
  if (x.size() != 3) im.Fail(im.LayerName(n), "X", "expected a [T, N, C] input");
  int64_t steps = 0;
  const bool fixed_steps = ToInt(x[0], &steps);
  if (!In(n, 4).empty()) {
    // Lengths that are all the sequence's own (what an exporter passes for a full batch) change
    // nothing; per-sequence lengths would need a masked layer.
    if (!im.IsWeight(In(n, 4)) || !fixed_steps) return im.Refuse(n, "sequence_lens");
    const Weight lens = im.WeightInput(n, 4);
    if (!lens.values || std::any_of(lens.values->begin(), lens.values->end(),
                                    [&](float v) { return v != static_cast<float>(steps); })) {
      return im.Refuse(n, "sequence_lens shorter than the sequence");
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
  std::vector<std::string> inputs = {name + ".ntc"};
  inputs.insert(inputs.end(), states.begin(), states.end());
  Layer& l = im.Add(n, Lower(n.op_type()), "", inputs, name + ".out");
  if (final_cell) im.AddOutput(l, n.output(2));
  l.attrs["units"] = h;
  l.attrs["direction"] = direction;
  // ONNX gate order: LSTM i, o, f, c; GRU z, r, h. The IR's: LSTM i, f, g, o; GRU r, z, n.
  const std::vector<int> from = lstm ? std::vector<int>{0, 2, 3, 1} : std::vector<int>{1, 0, 2};
  std::shared_ptr<std::vector<float>> bias_values;
  if (!In(n, 3).empty()) bias_values = im.WeightInput(n, 3).values;
  for (int d = 0; d < dirs; ++d) {
    const std::string p = (dirs == 2 && d == 1) || direction == "reverse" ? "reverse." : "forward.";
    if (w.values && r.values) {
      auto wx = std::make_shared<std::vector<float>>(c * gates * h);
      auto wh = std::make_shared<std::vector<float>>(h * gates * h);
      auto b = std::make_shared<std::vector<float>>(gates * h, 0.0f);
      auto bhn = std::make_shared<std::vector<float>>(h, 0.0f);
      for (int g = 0; g < gates; ++g) {
        for (int64_t j = 0; j < h; ++j) {
          const int64_t row = d * gates * h + from[g] * h + j;
          for (int64_t k = 0; k < c; ++k)
            (*wx)[k * gates * h + g * h + j] = (*w.values)[row * c + k];
          for (int64_t k = 0; k < h; ++k)
            (*wh)[k * gates * h + g * h + j] = (*r.values)[row * h + k];
          if (bias_values) {
            const float wb = (*bias_values)[d * 2 * gates * h + from[g] * h + j];
            const float rb = (*bias_values)[d * 2 * gates * h + gates * h + from[g] * h + j];
            if (!lstm && g == 2) {  // n: the recurrent bias stays inside the reset product
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
      if (!lstm) im.SetWeight(l, p + "bias_hn", {h}, bhn);
    }
  }
  // IR output [N, T, dirs * H] -> ONNX Y [T, dirs, N, H].
  im.Add(n, "reshape", ".split_dirs", {name + ".out"}, name + ".ntdh").attrs["shape"] = {
      im.ToJson(x[1]), im.ToJson(x[0]), dirs, h};
  im.Add(n, "transpose", ".to_tdnh", {name + ".ntdh"}, y).attrs["perm"] = {1, 2, 0, 3};
  if (final_state) AddFinalState(im, n, y, direction, steps);
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
           "inputs, constant zeros dropped; `sequence_lens`, `layout` 1, custom activations, "
           "`clip` "
           "unsupported; `Y_h` read from `Y`'s last steps (fixed or bound sequence length), `Y_c` "
           "the layer's second output"},
          {"GRU", MapRecurrent, "", "as LSTM, `gru`",
           "`linear_before_reset` = 1 (PyTorch's export); gates z, r, h reordered to r, "
           "z, n; the recurrent `n` bias stays inside the reset product"},
      });
}

}  // namespace ntpb::onnx_import
