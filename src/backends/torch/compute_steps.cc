// dense, matmul, conv2d, conv_transpose, pooling and the normalizations, as torch.nn's modules
// call them: linear with a [units, K] weight, conv2d with ATen's symmetric padding (an
// asymmetric one pads first, as an ONNX export's explicit Pad does), batch_norm in eval mode.
#include <ATen/ops/constant_pad_nd.h>

#include "src/backends/torch/steps.h"
#include "src/ops/activations.h"

namespace ntpb::torchb {
namespace {

// The activation dense and conv2d fuse, in place on their output.
void ApplyActivation(const ActivationChoice& act, at::Tensor& y) {
  switch (act.kind) {
    case ActivationKind::kNone:
      break;
    case ActivationKind::kRelu:
      y.relu_();
      break;
    case ActivationKind::kClippedRelu:
      y.clamp_(0.0, act.clip);
      break;
    case ActivationKind::kSigmoid:
      y.sigmoid_();
      break;
    case ActivationKind::kTanh:
      y.tanh_();
      break;
    case ActivationKind::kGelu:
      y = at::gelu(y);
      break;
    case ActivationKind::kGeluTanh:
      y = at::gelu(y, "tanh");
      break;
  }
}

Step MakeDense(const StepArgs& a) {
  // nn.Linear keeps its weight [units, K]: the IR's [K, units] transposed once, here.
  const at::Tensor w = a.weights[0].t().contiguous();
  const at::Tensor b = a.weights.size() > 1 ? a.weights[1] : at::Tensor();
  const ActivationChoice act = FusedActivation(a.layer.attrs);
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] {
            *y = at::linear(*x, w, b);
            ApplyActivation(act, *y);
          },
          "aten::linear"};
}

Step MakeMatmul(const StepArgs& a) {
  const at::Tensor *p = a.inputs[0], *q = a.inputs[1];
  at::Tensor* y = a.output;
  return {[=] { *y = at::matmul(*p, *q); }, "aten::matmul"};
}

// (top, left, bottom, right) as constant_pad_nd wants it: (left, right, top, bottom).
std::vector<int64_t> PadPairs(const std::vector<int64_t>& p) { return {p[1], p[3], p[0], p[2]}; }
bool Symmetric(const std::vector<int64_t>& p) { return p[0] == p[2] && p[1] == p[3]; }

Step MakeConv(const StepArgs& a) {
  const Attrs& at = a.layer.attrs;
  const std::vector<int64_t> stride = at.Ints("stride"), dilation = at.Ints("dilation"),
                             pad = at.Ints("padding");
  const int64_t groups = at.Int("groups");
  const at::Tensor w = a.weights[0];
  const at::Tensor b = a.weights.size() > 1 ? a.weights[1] : at::Tensor();
  const ActivationChoice act = FusedActivation(at);
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  if (Symmetric(pad)) {
    const std::vector<int64_t> p = {pad[0], pad[1]};
    return {[=] {
              *y = at::conv2d(*x, w, b, stride, p, dilation, groups);
              ApplyActivation(act, *y);
            },
            "aten::conv2d"};
  }
  const std::vector<int64_t> pairs = PadPairs(pad), none = {0, 0};
  return {[=] {
            *y =
                at::conv2d(at::constant_pad_nd(*x, pairs, 0), w, b, stride, none, dilation, groups);
            ApplyActivation(act, *y);
          },
          "aten::constant_pad_nd + aten::conv2d"};
}

// ATen's conv_transpose2d crops its padding symmetrically; an asymmetric one is cropped from the
// unpadded result (zeros past its end where output_padding reaches beyond it), then biased.
Step MakeConvTranspose(const StepArgs& a) {
  const Attrs& at = a.layer.attrs;
  const std::vector<int64_t> stride = at.Ints("stride"), dilation = at.Ints("dilation"),
                             pad = at.Ints("padding"), extra = at.Ints("output_padding");
  const int64_t groups = at.Int("groups");
  const at::Tensor w = a.weights[0];
  const at::Tensor b = a.weights.size() > 1 ? a.weights[1] : at::Tensor();
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  const Shape out = a.layer.output_shapes[0];
  if (Symmetric(pad)) {
    const std::vector<int64_t> p = {pad[0], pad[1]};
    return {[=] { *y = at::conv_transpose2d(*x, w, b, stride, p, extra, groups, dilation); },
            "aten::conv_transpose2d"};
  }
  return {
      [=] {
        at::Tensor full = at::conv_transpose2d(*x, w, {}, stride, {0, 0}, {0, 0}, groups, dilation);
        const int64_t short_h = std::max<int64_t>(0, pad[0] + out[2] - full.size(2));
        const int64_t short_w = std::max<int64_t>(0, pad[1] + out[3] - full.size(3));
        if (short_h || short_w) full = at::constant_pad_nd(full, {0, short_w, 0, short_h}, 0);
        *y = full.narrow(2, pad[0], out[2]).narrow(3, pad[1], out[3]);
        if (b.defined()) *y = *y + b.view({1, -1, 1, 1});
      },
      "aten::conv_transpose2d (asymmetric padding cropped)"};
}

// max_pool and avg_pool: ATen's own call where its symmetric padding gives the resolved output;
// otherwise the input is padded to exactly the windows read (-inf for max, zeros for avg) and
// avg divides window sums by the count of real pixels (or the window, count_include_pad).
template <bool kMax>
Step MakeWindowPool(const StepArgs& a) {
  const Attrs& at = a.layer.attrs;
  const std::vector<int64_t> k = at.Ints("kernel"), s = at.Ints("stride"), p = at.Ints("padding");
  const bool include_pad = !kMax && at.Bool("count_include_pad");
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  const bool native = Symmetric(p) && 2 * p[0] <= k[0] && 2 * p[1] <= k[1] &&
                      (in[2] + 2 * p[0] - k[0]) / s[0] + 1 == out[2] &&
                      (in[3] + 2 * p[1] - k[1]) / s[1] + 1 == out[3];
  const std::vector<int64_t> sp = {p[0], p[1]};
  if (native && kMax) {
    return {[=] { *y = at::max_pool2d(*x, k, s, sp); }, "aten::max_pool2d"};
  }
  if (native) {
    return {[=] { *y = at::avg_pool2d(*x, k, s, sp, false, include_pad); }, "aten::avg_pool2d"};
  }
  // The windows read: rows p[0] before to (out-1)*s + k - p[0] after the first.
  const std::vector<int64_t> pairs = {p[1], (out[3] - 1) * s[1] + k[1] - p[1] - in[3], p[0],
                                      (out[2] - 1) * s[0] + k[0] - p[0] - in[2]};
  if (kMax) {
    return {[=] { *y = at::max_pool2d(at::constant_pad_nd(*x, pairs, -INFINITY), k, s); },
            "aten::constant_pad_nd + aten::max_pool2d"};
  }
  // The real pixels under each window, counted once.
  at::Tensor count =
      include_pad ? at::Tensor()
                  : at::avg_pool2d(at::constant_pad_nd(at::ones({1, 1, in[2], in[3]}), pairs, 0), k,
                                   s, {0, 0}, false, true, 1)
                        .to(a.type);
  const double area = static_cast<double>(k[0] * k[1]);
  return {[=] {
            const at::Tensor sum =
                at::avg_pool2d(at::constant_pad_nd(*x, pairs, 0), k, s, {0, 0}, false, true, 1);
            *y = include_pad ? sum / area : sum / count;
          },
          "aten::constant_pad_nd + aten::avg_pool2d"};
}

Step MakeGlobalAvgPool(const StepArgs& a) {
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = at::mean(*x, {2, 3}); }, "aten::mean"};
}

Step MakeBatchnorm(const StepArgs& a) {
  const double eps = a.layer.attrs.Float("epsilon");
  const std::vector<at::Tensor> w = a.weights;  // gamma, beta, mean, variance
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = at::batch_norm(*x, w[0], w[1], w[2], w[3], false, 0.1, eps, false); },
          "aten::batch_norm"};
}

Step MakeLayernorm(const StepArgs& a) {
  const double eps = a.layer.attrs.Float("epsilon");
  const std::vector<int64_t> last = {a.layer.input_shapes[0].back()};
  const at::Tensor gamma = a.weights[0], beta = a.weights[1];
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = at::layer_norm(*x, last, gamma, beta, eps); }, "aten::layer_norm"};
}

// Llama's RMSNorm module as written in PyTorch: x * rsqrt(mean(x^2) + eps) * gamma.
Step MakeRmsNorm(const StepArgs& a) {
  const double eps = a.layer.attrs.Float("epsilon");
  const at::Tensor gamma = a.weights[0];
  const at::Tensor* x = a.inputs[0];
  at::Tensor* y = a.output;
  return {[=] { *y = *x * at::rsqrt(x->pow(2).mean(-1, true) + eps) * gamma; },
          "aten::pow + aten::mean + aten::rsqrt + aten::mul"};
}

}  // namespace

void AddComputeSteps(StepTable* table) {
  (*table)["dense"] = MakeDense;
  (*table)["matmul"] = MakeMatmul;
  (*table)["conv2d"] = MakeConv;
  (*table)["conv_transpose"] = MakeConvTranspose;
  (*table)["max_pool"] = MakeWindowPool<true>;
  (*table)["avg_pool"] = MakeWindowPool<false>;
  (*table)["global_avg_pool"] = MakeGlobalAvgPool;
  (*table)["batchnorm"] = MakeBatchnorm;
  (*table)["layernorm"] = MakeLayernorm;
  (*table)["rms_norm"] = MakeRmsNorm;
}

}  // namespace ntpb::torchb
