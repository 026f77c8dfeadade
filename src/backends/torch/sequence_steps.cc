// lstm and gru through ATen's own (at::lstm, at::gru: what nn.LSTM and nn.GRU call), attention
// as nn.MultiheadAttention computes it (matmul, masked softmax, matmul: PyTorch 1.13 has no
// scaled_dot_product_attention), rotary as a Llama module writes it, and kv_cache as an
// in-place copy into the cache tensor.
#include <cmath>
#include <memory>

#include "ntpbench/error.h"
#include "src/backends/common/attention_geometry.h"
#include "src/backends/torch/steps.h"

namespace ntpb::torchb {
namespace {

// The IR's weights per direction (w_x [C, G*H], w_h [H, G*H], bias [G*H], GRU's bias_hn [H]) as
// torch's flat parameters (w_ih [G*H, C], w_hh [G*H, H], b_ih, b_hh), gates in the same order
// (LSTM i, f, g, o; GRU r, z, n). One bias per gate: b_hh is zero but for GRU's n gate, whose
// recurrent bias sits inside the reset product in both.
template <bool kLstm>
Step MakeRecurrent(const StepArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = in[0], h = a.layer.attrs.Int("units");
  const std::string direction = a.layer.attrs.Str("direction");
  const bool bidirectional = direction == "bidirectional", reverse = direction == "reverse";
  const int dirs = bidirectional ? 2 : 1;
  const int per_dir = kLstm ? 3 : 4;
  std::vector<at::Tensor> params;
  for (int d = 0; d < dirs; ++d) {
    const at::Tensor* w = &a.weights[static_cast<size_t>(d * per_dir)];
    params.push_back(w[0].t().contiguous());
    params.push_back(w[1].t().contiguous());
    params.push_back(w[2]);
    at::Tensor b_hh = at::zeros_like(w[2]);
    if (!kLstm) b_hh.narrow(0, 2 * h, h).copy_(w[3]);
    params.push_back(b_hh);
  }
  const at::Tensor zeros = at::zeros({dirs, n, h}, at::TensorOptions().dtype(a.type));
  // Initial states [dirs, N, H] where given (torch's own layout for h_0 and c_0), else zeros.
  const at::Tensor* h0 = a.inputs.size() > 1 ? a.inputs[1] : nullptr;
  const at::Tensor* c0 = kLstm && a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  // lstm's final cell state [dirs, N, H], where the layer lists it: at::lstm's c_n.
  at::Tensor* final_cell = kLstm && a.outputs.size() > 1 ? a.outputs[1] : nullptr;
  // torch has no reverse-only layer: the sequence is flipped in time before and after (c_n is
  // then the reverse direction's own).
  return {[=] {
            const at::Tensor seq = reverse ? x->flip(1) : *x;
            const at::Tensor hx = h0 ? *h0 : zeros, cx = c0 ? *c0 : zeros;
            at::Tensor out;
            if (kLstm) {
              auto [sequence, h_n, c_n] =
                  at::lstm(seq, {hx, cx}, params, true, 1, 0.0, false, bidirectional, true);
              out = sequence;
              if (final_cell) *final_cell = c_n;
            } else {
              out = std::get<0>(at::gru(seq, hx, params, true, 1, 0.0, false, bidirectional, true));
            }
            *y = reverse ? out.flip(1) : out;
          },
          kLstm ? (reverse ? "aten::flip + aten::lstm" : "aten::lstm")
                : (reverse ? "aten::flip + aten::gru" : "aten::gru")};
}

Step MakeAttention(const StepArgs& a) {
  const AttentionGeometry built = AttentionGeometry::Of(a.layer);
  const bool cached = ReadsKvCache(*a.topology, a.layer);
  const int64_t* shift = a.position_shift;
  const at::Tensor *q = a.inputs[0], *k = a.inputs[1], *v = a.inputs[2];
  const at::Tensor* mask = built.padding_mask ? a.inputs[3] : nullptr;
  at::Tensor* y = a.output;
  return {
      [=] {
        // Over a cache, the keys appended so far: fewer earlier in a generation.
        const AttentionGeometry g = cached ? built.Shifted(*shift) : built;
        const int64_t n = g.batch, sq = g.queries, sk = g.keys;
        const at::Tensor qh = q->reshape({n, sq, g.heads, g.head_size}).transpose(1, 2);
        at::Tensor kh = k->narrow(1, 0, sk).view({n, sk, g.kv_heads, g.head_size}).transpose(1, 2);
        at::Tensor vh = v->narrow(1, 0, sk).view({n, sk, g.kv_heads, g.value_size}).transpose(1, 2);
        if (g.group() > 1) {
          kh = kh.repeat_interleave(g.group(), 1);
          vh = vh.repeat_interleave(g.group(), 1);
        }
        at::Tensor scores = at::matmul(qh, kh.transpose(-2, -1)).mul_(g.scale);
        at::Tensor masked;  // true where a query may not see a key
        if (g.causal) masked = at::ones({sq, sk}, at::kBool).triu(sk - sq + 1);
        if (mask) {
          const at::Tensor padding = mask->narrow(1, 0, sk).eq(0).view({n, 1, 1, sk});
          masked = masked.defined() ? masked.logical_or(padding) : padding;
        }
        if (masked.defined()) scores.masked_fill_(masked, -INFINITY);
        at::Tensor probs = at::softmax(scores, -1);
        // A query that sees no key gives zeros (attention_geometry.h), not softmax's NaN.
        if (mask) probs.masked_fill_(masked.all(-1, true), 0);
        *y = at::matmul(probs, vh).transpose(1, 2).reshape({n, sq, g.out_width()});
      },
      "aten::matmul + aten::softmax + aten::matmul"};
}

// The angles from position 0 to the resolved ones, so that a shifted run reads its rows further
// into the same table.
Step MakeRotary(const StepArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = in[0], rows = in[1], heads = a.layer.attrs.Int("heads");
  const int64_t d = in[2] / heads, offset = a.layer.attrs.Int("offset");
  const bool interleaved = a.layer.attrs.Str("style") == "interleaved";
  const RotaryTable table(0, offset + rows, d, a.layer.attrs.Float("base"));
  const at::Tensor cos = TensorFrom(table.cos, {offset + rows, d / 2}, a.type);
  const at::Tensor sin = TensorFrom(table.sin, {offset + rows, d / 2}, a.type);
  const int64_t* shift = a.position_shift;
  const std::string name = a.layer.name;
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] {
            const int64_t first = offset + *shift;
            if (first < 0) throw Error("", name, "offset", "shifted before position 0");
            const at::Tensor c = cos.narrow(0, first, rows).view({1, rows, 1, d / 2});
            const at::Tensor s = sin.narrow(0, first, rows).view({1, rows, 1, d / 2});
            if (interleaved) {
              const at::Tensor pairs = x->reshape({n, rows, heads, d / 2, 2});
              const at::Tensor p = pairs.select(-1, 0), r = pairs.select(-1, 1);
              *y = at::stack({p * c - r * s, r * c + p * s}, -1).view({n, rows, heads * d});
            } else {
              const at::Tensor h4 = x->reshape({n, rows, heads, d});
              const at::Tensor p = h4.narrow(-1, 0, d / 2), r = h4.narrow(-1, d / 2, d / 2);
              *y = at::cat({p * c - r * s, r * c + p * s}, -1).view({n, rows, heads * d});
            }
          },
          "aten::mul + aten::sub + aten::add + aten::cat"};
}

// Appends the input's rows at the cache's current end, in place; the rows before stay as
// earlier inferences left them.
Step MakeKvCache(const StepArgs& a) {
  const int64_t rows = a.layer.input_shapes[0][1];
  const int64_t* shift = a.position_shift;
  const ResolvedLayer* layer = &a.layer;
  const at::Tensor* x = a.inputs[0];
  at::Tensor* cache = a.output;
  return {[=] { cache->narrow(1, CacheWriteRow(*layer, *shift), rows).copy_(*x); },
          "aten::narrow + aten::copy_"};
}

}  // namespace

void AddSequenceSteps(StepTable* table) {
  (*table)["lstm"] = MakeRecurrent<true>;
  (*table)["gru"] = MakeRecurrent<false>;
  (*table)["attention"] = MakeAttention;
  (*table)["rotary"] = MakeRotary;
  (*table)["kv_cache"] = MakeKvCache;
}

}  // namespace ntpb::torchb
