// Data movement (concat, slice, pad, expand, transpose, views, constants, the copy and reorder
// inlays), resize, embedding, and the speech inlays. What PyTorch has an op for runs as that op;
// the MFCC front end and the CTC beam search (torchaudio's, not ATen's) run on the host as on
// every backend, on f32 copies of their tensors.
#include <ATen/ops/constant_pad_nd.h>

#include "ntpbench/error.h"
#include "src/backends/common/embedding_rows.h"
#include "src/backends/common/resize_taps.h"
#include "src/backends/common/speech_inlays.h"
#include "src/backends/torch/steps.h"

namespace ntpb::torchb {
namespace {

Step MakeConcat(const StepArgs& a) {
  const int64_t axis = a.layer.attrs.Int("axis");
  const std::vector<const at::Tensor*> inputs = a.inputs;
  at::Tensor* y = a.output;
  return {[=] {
            std::vector<at::Tensor> parts;
            parts.reserve(inputs.size());
            for (const at::Tensor* t : inputs) parts.push_back(*t);
            *y = at::cat(parts, axis);
          },
          "aten::cat"};
}

Step MakeSlice(const StepArgs& a) {
  const int64_t axis = a.layer.attrs.Int("axis"), start = a.layer.attrs.Int("start"),
                size = a.layer.attrs.Int("size");
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = x->narrow(axis, start, size).contiguous(); },
          "aten::narrow + aten::contiguous"};
}

// pads: [begin of each axis..., end of each axis...]; constant_pad_nd pairs them from the last.
Step MakePad(const StepArgs& a) {
  const std::vector<int64_t> pads = a.layer.attrs.Ints("pads");
  const size_t rank = pads.size() / 2;
  std::vector<int64_t> pairs;
  for (size_t i = rank; i-- > 0;) {
    pairs.push_back(pads[i]);
    pairs.push_back(pads[rank + i]);
  }
  const double value = a.layer.attrs.Float("value");
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = at::constant_pad_nd(*x, pairs, value); }, "aten::constant_pad_nd"};
}

Step MakeExpand(const StepArgs& a) {
  const Shape out = a.layer.output_shapes[0];
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = x->expand(out).contiguous(); }, "aten::expand + aten::contiguous"};
}

// The value is set once, here: a constant costs nothing per inference.
Step MakeConstant(const StepArgs& a) {
  *a.output = a.weights[0];
  return {[] {}, ""};
}

Step MakeTranspose(const StepArgs& a) {
  const std::vector<int64_t> perm = a.layer.attrs.Ints("perm");
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = x->permute(perm).contiguous(); }, "aten::permute + aten::contiguous"};
}

// reshape and flatten: a view of the input, taken again each run (the input's slot may hold a
// new tensor).
Step MakeView(const StepArgs& a) {
  const Shape out = a.layer.output_shapes[0];
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = x->reshape(out); }, "aten::reshape"};
}

Step MakeCopy(const StepArgs& a) {
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = x->clone(); }, "aten::clone"};
}

// Each output row and column from one or two input ones (resize_taps.h): index_select along H,
// then W, blended by the taps' weights.
Step MakeResize(const StepArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const bool linear = a.layer.attrs.Str("mode") == "linear";
  const std::string coordinates = a.layer.attrs.Str("coordinates");
  const std::string rounding = a.layer.attrs.Str("nearest_rounding");
  struct Axis {
    at::Tensor lo, hi, weight;
  };
  auto axis = [&](int64_t from, int64_t to, const Shape& weight_shape) {
    const std::vector<ResizeTap> taps = ResizeTaps(from, to, coordinates, linear, rounding);
    Axis x{at::empty({to}, at::kLong), at::empty({to}, at::kLong), at::empty({to}, at::kFloat)};
    for (int64_t i = 0; i < to; ++i) {
      x.lo.data_ptr<int64_t>()[i] = taps[i].lo;
      x.hi.data_ptr<int64_t>()[i] = taps[i].hi;
      x.weight.data_ptr<float>()[i] = taps[i].weight_hi;
    }
    x.weight = x.weight.view(weight_shape).to(a.type);
    return x;
  };
  const Axis ys = axis(in[2], out[2], {1, 1, out[2], 1}),
             xs = axis(in[3], out[3], {1, 1, 1, out[3]});
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  if (!linear) {
    return {[=] { *y = x->index_select(2, ys.lo).index_select(3, xs.lo); }, "aten::index_select"};
  }
  return {[=] {
            const at::Tensor lo = x->index_select(2, ys.lo);
            const at::Tensor rows = at::lerp(lo, x->index_select(2, ys.hi), ys.weight);
            *y = at::lerp(rows.index_select(3, xs.lo), rows.index_select(3, xs.hi), xs.weight);
          },
          "aten::index_select + aten::lerp"};
}

// Ids checked as every backend checks them (embedding_rows.h), then nn.Embedding's lookup.
Step MakeEmbedding(const StepArgs& a) {
  const int64_t vocab = a.layer.attrs.Int("vocab");
  const int64_t count = NumElements(a.layer.input_shapes[0]);
  const at::Tensor table = a.weights[0];
  const at::Tensor rows = at::empty({count}, at::kLong);
  const std::string name = a.layer.name;
  const at::Tensor* ids = a.inputs[0];
  at::Tensor* y = a.output;
  const Shape out = a.layer.output_shapes[0];
  return {[=] {
            const at::Tensor f = ids->to(at::kFloat).contiguous();
            const float* v = f.data_ptr<float>();
            int64_t* r = rows.data_ptr<int64_t>();
            for (int64_t i = 0; i < count; ++i) r[i] = EmbeddingRow(v[i], i, vocab, name);
            *y = at::embedding(table, rows).view(out);
          },
          "aten::embedding"};
}

// A host inlay on f32, its output made per run as an ATen op makes its own; `keep_f32`: the
// output stays f32 (label ids) whatever the run's type.
template <typename F>
Step Host(const StepArgs& a, F compute, const char* kernel, bool keep_f32 = false) {
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  const Shape out = a.layer.output_shapes[0];
  const at::ScalarType type = keep_f32 ? at::kFloat : a.type;
  if (keep_f32) *y = at::zeros(out, at::kFloat);
  return {[=] {
            const at::Tensor in = x->to(at::kFloat).contiguous();
            at::Tensor host = at::empty(out, at::kFloat);
            compute(in.data_ptr<float>(), host.data_ptr<float>());
            *y = type == at::kFloat ? host : host.to(type);
          },
          kernel};
}

Step MakeMfcc(const StepArgs& a) {
  return Host(a, MfccBatchOf(a.layer), "host MFCC (FFTW), as every backend");
}

// [N, T, F] -> [N, T, (2c + 1) F]: zeros past both ends, then each step's 2c + 1 neighbours.
Step MakeContextWindow(const StepArgs& a) {
  const int64_t c = a.layer.attrs.Int("context");
  const Shape out = a.layer.output_shapes[0];
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] {
            *y = at::constant_pad_nd(*x, {0, 0, c, c}, 0)
                     .unfold(1, 2 * c + 1, 1)
                     .permute({0, 1, 3, 2})
                     .reshape(out);
          },
          "aten::constant_pad_nd + aten::unfold + aten::reshape"};
}

// Label ids stay f32 (bf16 would round ids above 256).
Step MakeCtcBeamDecoder(const StepArgs& a) {
  const ResolvedLayer& l = a.layer;
  const CtcDecoderShape shape =
      CtcDecoderShapeOf(l.input_shapes[0], l.attrs.Str("layout") == "tnc");
  const CtcBeamSearch search = CtcBeamSearchOf(l, shape.classes);
  return Host(
      a, [=](const float* in, float* out) { CtcDecodeBatch(search, shape, in, out); },
      "host CTC prefix beam search, as every backend", true);
}

}  // namespace

void AddLayoutSteps(StepTable* table) {
  (*table)["concat"] = MakeConcat;
  (*table)["slice"] = MakeSlice;
  (*table)["pad"] = MakePad;
  (*table)["expand"] = MakeExpand;
  (*table)["constant"] = MakeConstant;
  (*table)["transpose"] = MakeTranspose;
  (*table)["reshape"] = MakeView;
  (*table)["flatten"] = MakeView;
  (*table)["copy"] = MakeCopy;
  (*table)["reorder"] = MakeCopy;
  (*table)["resize"] = MakeResize;
  (*table)["embedding"] = MakeEmbedding;
  (*table)["mfcc"] = MakeMfcc;
  (*table)["context_window"] = MakeContextWindow;
  (*table)["ctc_beam_decoder"] = MakeCtcBeamDecoder;
}

}  // namespace ntpb::torchb
