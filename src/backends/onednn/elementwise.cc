// Activations (eltwise), softmax, add/sub/mul/div and comparisons with NumPy broadcasting
// (binary), and where.
#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <memory>

#include "src/backends/common/broadcast.h"
#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {

using alg = dnnl::algorithm;

std::optional<Eltwise> EltwiseOf(const ResolvedLayer& l) {
  const std::string& op = l.op;
  if (op == "relu") return Eltwise{alg::eltwise_relu, 0, 0};
  if (op == "leaky_relu") {
    return Eltwise{alg::eltwise_relu, static_cast<float>(l.attrs.Float("alpha")), 0};
  }
  if (op == "clipped_relu") {
    return Eltwise{alg::eltwise_clip, 0, static_cast<float>(l.attrs.Float("clip"))};
  }
  if (op == "sigmoid") return Eltwise{alg::eltwise_logistic, 0, 0};
  if (op == "tanh") return Eltwise{alg::eltwise_tanh, 0, 0};
  if (op == "gelu") {
    return Eltwise{
        l.attrs.Str("approximate") == "tanh" ? alg::eltwise_gelu_tanh : alg::eltwise_gelu_erf, 0,
        0};
  }
  if (op == "hard_swish") return Eltwise{alg::eltwise_hardswish, 0, 0};
  if (op == "swish") return Eltwise{alg::eltwise_swish, 1, 0};
  if (op == "sqrt") return Eltwise{alg::eltwise_sqrt, 0, 0};
  if (op == "exp") return Eltwise{alg::eltwise_exp, 0, 0};
  if (op == "pow")
    return Eltwise{alg::eltwise_pow, 1, static_cast<float>(l.attrs.Float("exponent"))};
  return std::nullopt;
}

namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

void BuildEltwise(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Eltwise e = *EltwiseOf(l);
  const memory src = b.Input(l.inputs[0]);  // any layout: elementwise
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, e.algorithm, src.get_desc(),
                                   e.alpha, e.beta);
  dnnl::eltwise_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
  const memory dst = b.NewOutput(pd.dst_desc());
  b.AddPrimitive(pd, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
}

// oneDNN 2.6 has no hardsigmoid: alpha x + beta, then a clip to [0, 1] as a post-op.
void BuildHardSigmoid(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const memory src = b.Input(l.inputs[0]);
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, alg::eltwise_linear,
                                   src.get_desc(), static_cast<float>(l.attrs.Float("alpha")),
                                   static_cast<float>(l.attrs.Float("beta")));
  dnnl::post_ops clip;
  clip.append_eltwise(1.0f, alg::eltwise_clip, 0.0f, 1.0f);
  dnnl::primitive_attr attr = UserScratchpad();
  attr.set_post_ops(clip);
  dnnl::eltwise_forward::primitive_desc pd(desc, attr, b.engine());
  const memory dst = b.NewOutput(pd.dst_desc());
  b.AddPrimitive(pd, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
}

void BuildSoftmax(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const memory src = b.PlainInput(l.inputs[0]);
  int axis = static_cast<int>(l.attrs.Int("axis"));
  if (axis < 0) axis += static_cast<int>(l.input_shapes[0].size());
  dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, src.get_desc(), axis);
  dnnl::softmax_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
  const memory dst = b.NewOutput(pd.dst_desc());
  b.AddPrimitive(pd, dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
}

Shape Padded(Shape s, size_t rank) {
  while (s.size() < rank) s.insert(s.begin(), 1);
  return s;
}

bool IsComparison(alg op) {
  return op == alg::binary_eq || op == alg::binary_lt || op == alg::binary_gt;
}

// oneDNN's binary broadcasts its second operand only. Commutative ops swap (a comparison swaps
// its direction); a - b and a / b with a broadcast run as b - a negated and b / a inverted
// (post-ops); when both broadcast, the first is expanded by adding it to zeros first.
// Comparisons read f32 whatever the run's precision: ids compared in bf16 would round (30001 ==
// 30000); their 0/1 result is exact in any type.
void Binary(Builder& b, alg op) {
  const ResolvedLayer& l = b.layer();
  const Shape& out = l.output_shapes[0];
  const size_t rank = out.size();
  std::string first = l.inputs[0], second = l.inputs[1];
  Shape s0 = Padded(l.input_shapes[0], rank), s1 = Padded(l.input_shapes[1], rank);
  Shape given0 = l.input_shapes[0], given1 = l.input_shapes[1];
  dnnl::post_ops post;
  if (s0 != out && s1 == out) {
    std::swap(first, second);
    std::swap(s0, s1);
    std::swap(given0, given1);
    if (op == alg::binary_sub) post.append_eltwise(1.0f, alg::eltwise_linear, -1.0f, 0.0f);
    if (op == alg::binary_div) post.append_eltwise(1.0f, alg::eltwise_pow, 1.0f, -1.0f);
    if (op == alg::binary_lt || op == alg::binary_gt) {
      op = op == alg::binary_lt ? alg::binary_gt : alg::binary_lt;
    }
  }
  const bool compare = IsComparison(op);
  if (!compare && s0 == out && s1 == out &&
      b.Input(first).get_desc() == b.Input(second).get_desc()) {
    // Same shape and same layout (a residual add after two convolutions): stay blocked.
    const memory m0 = b.Input(first), m1 = b.Input(second);
    dnnl::binary::primitive_desc pd(
        dnnl::binary::desc(op, m0.get_desc(), m1.get_desc(), m0.get_desc()), UserScratchpad(),
        b.engine());
    const memory dst = b.NewOutput(pd.dst_desc());
    b.AddPrimitive(pd, dnnl::binary(pd),
                   {{DNNL_ARG_SRC_0, m0}, {DNNL_ARG_SRC_1, m1}, {DNNL_ARG_DST, dst}});
    return;
  }
  const dt type = compare ? dt::f32 : b.act();
  const memory m0 = compare ? b.Input(first, PlainDesc(given0, type)) : b.PlainInput(first);
  const memory m1 = compare ? b.Input(second, PlainDesc(given1, type)) : b.PlainInput(second);
  memory src0(PlainDesc(s0, type), b.engine(), m0.get_data_handle());
  const memory src1(PlainDesc(s1, type), b.engine(), m1.get_data_handle());
  const memory::desc src_md = PlainDesc(out, type);
  if (s0 != out) {                         // expand: zeros + first
    const memory zeros = b.State(src_md);  // 0.0 in f32 and bf16
    const memory expanded = b.Scratch(src_md);
    dnnl::binary::primitive_desc pd(
        dnnl::binary::desc(alg::binary_add, src_md, src0.get_desc(), src_md), UserScratchpad(),
        b.engine());
    b.AddPrimitive(pd, dnnl::binary(pd),
                   {{DNNL_ARG_SRC_0, zeros}, {DNNL_ARG_SRC_1, src0}, {DNNL_ARG_DST, expanded}});
    src0 = expanded;
  }
  dnnl::primitive_attr attr = UserScratchpad();
  if (post.len() > 0) attr.set_post_ops(post);
  const memory::desc out_md = b.Plain(out);
  dnnl::binary::primitive_desc pd(dnnl::binary::desc(op, src_md, src1.get_desc(), out_md), attr,
                                  b.engine());
  const memory dst = b.NewOutput(out_md);
  b.AddPrimitive(pd, dnnl::binary(pd),
                 {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}});
}

void BuildAdd(Builder& b) { Binary(b, alg::binary_add); }
void BuildSub(Builder& b) { Binary(b, alg::binary_sub); }
void BuildMul(Builder& b) { Binary(b, alg::binary_mul); }
void BuildDiv(Builder& b) { Binary(b, alg::binary_div); }
void BuildEqual(Builder& b) { Binary(b, alg::binary_eq); }
void BuildLess(Builder& b) { Binary(b, alg::binary_lt); }
void BuildGreater(Builder& b) { Binary(b, alg::binary_gt); }

// where: oneDNN 2.6 has no select; a host loop over the shared kernel (broadcast.h), in f32
// between reorders (the condition exact, -inf kept).
void BuildWhere(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const auto& s = l.input_shapes;
  const Shape& out = l.output_shapes[0];
  const memory c = b.Input(l.inputs[0], PlainDesc(s[0], dt::f32));
  const memory x = b.Input(l.inputs[1], PlainDesc(s[1], dt::f32));
  const memory z = b.Input(l.inputs[2], PlainDesc(s[2], dt::f32));
  const memory dst = b.HostOutputF32(out);
  const WhereKernel where(s[0], s[1], s[2], out);
  auto index = std::make_shared<std::vector<int64_t>>(out.size(), 0);
  b.AddHost([=] {
    where(static_cast<const float*>(c.get_data_handle()),
          static_cast<const float*>(x.get_data_handle()),
          static_cast<const float*>(z.get_data_handle()),
          static_cast<float*>(dst.get_data_handle()), *index);
  });
  b.ConvertHostOutput(dst, out);
}

// swiglu: where the step may write over its input (the dense layer in front of it has no other
// reader), the gate half's activation by an eltwise primitive in place ([rows, F] with stride 2F;
// oneDNN 2.6's eltwise writes in its source's layout), then a binary primitive multiplying it by
// the value half into the output. Else host code.
void BuildSwiglu(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& out = l.output_shapes[0];
  const memory::dim f = out.back(), rows = NumElements(out) / f;
  const bool gelu = l.attrs.Str("activation") == "gelu";
  if (!b.CanOverwrite(l.inputs[0])) {
    const memory src = b.Input(l.inputs[0], PlainDesc(l.input_shapes[0], dt::f32));
    const memory dst = b.HostOutputF32(out);
    b.AddHost([=] {
      const float* x = static_cast<const float*>(src.get_data_handle());
      float* y = static_cast<float*>(dst.get_data_handle());
      for (int64_t r = 0; r < rows; ++r) {
        if (!gelu) {
          // Eigen's vectorized exp: a llama (1.1B) decode step's 5632 took 21 µs a layer with
          // std::exp one at a time (2-core Intel Xeon guest).
          const Eigen::Map<const Eigen::ArrayXf> gate(x + r * 2 * f, f),
              value(x + r * 2 * f + f, f);
          Eigen::Map<Eigen::ArrayXf>(y + r * f, f) = gate / (1.0f + (-gate).exp()) * value;
          continue;
        }
        for (int64_t i = 0; i < f; ++i) {
          const float z = x[r * 2 * f + i];
          y[r * f + i] =
              0.5f * z * (1.0f + std::erf(z * 0.70710678118654752f)) * x[r * 2 * f + f + i];
        }
      }
    });
    b.ConvertHostOutput(dst, out);
    b.SetKernel("ntpbench host swiglu");
    return;
  }
  const memory src = b.PlainInput(l.inputs[0]);
  const dt type = src.get_desc().data_type();
  char* base = static_cast<char*>(src.get_data_handle());
  const memory::desc half({rows, f}, type, {2 * f, 1});
  const memory gate(half, b.engine(), base);
  const memory value(half, b.engine(),
                     base + static_cast<size_t>(f) * memory::data_type_size(type));
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                   gelu ? alg::eltwise_gelu_erf : alg::eltwise_swish, half, 1.0f);
  dnnl::eltwise_forward::primitive_desc act(desc, UserScratchpad(), b.engine());
  b.AddPrimitive(act, dnnl::eltwise_forward(act), {{DNNL_ARG_SRC, gate}, {DNNL_ARG_DST, gate}});
  const memory::desc dst_md({rows, f}, type, memory::format_tag::ab);
  dnnl::binary::primitive_desc mul(dnnl::binary::desc(alg::binary_mul, half, half, dst_md),
                                   UserScratchpad(), b.engine());
  const memory dst = b.NewOutput(b.Plain(out));
  b.AddPrimitive(mul, dnnl::binary(mul),
                 {{DNNL_ARG_SRC_0, gate},
                  {DNNL_ARG_SRC_1, value},
                  {DNNL_ARG_DST, memory(dst_md, b.engine(), dst.get_data_handle())}});
  b.SetKernel(std::string(act.impl_info_str()) + " + " + mul.impl_info_str());
}

}  // namespace

void AddElementwiseOps(OpTable* table) {
  (*table)["relu"] = BuildEltwise;
  (*table)["leaky_relu"] = BuildEltwise;
  (*table)["clipped_relu"] = BuildEltwise;
  (*table)["sigmoid"] = BuildEltwise;
  (*table)["tanh"] = BuildEltwise;
  (*table)["gelu"] = BuildEltwise;
  for (const char* op : {"hard_swish", "swish", "sqrt", "exp", "pow"}) (*table)[op] = BuildEltwise;
  (*table)["hard_sigmoid"] = BuildHardSigmoid;
  (*table)["softmax"] = BuildSoftmax;
  (*table)["swiglu"] = BuildSwiglu;
  (*table)["add"] = BuildAdd;
  (*table)["sub"] = BuildSub;
  (*table)["mul"] = BuildMul;
  (*table)["div"] = BuildDiv;
  (*table)["equal"] = BuildEqual;
  (*table)["less"] = BuildLess;
  (*table)["greater"] = BuildGreater;
  (*table)["where"] = BuildWhere;
}

}  // namespace ntpb::onednn
