// Post-op fusion: conv2d + batchnorm (folded) + activation, dense + activation, either + a
// residual add (+ activation). The fused step
// keeps the host layer's name and reports the layers it absorbed (StepInfo::fused). And
// MobileNet v2's inverted residual blocks as one step of ntpbench's own kernel.
#include <string>

#include "src/backends/common/post_op_fusion.h"
#include "src/backends/onednn/builder.h"
#include "src/backends/onednn/inverted_residual.h"

namespace ntpb::onednn {

FusionPlan PlanFusion(const ResolvedTopology& t, const TensorUses& uses, int index, bool enabled) {
  FusionPlan plan;
  const ResolvedLayer& host = t.layers[index];
  plan.host = &host;
  if (!enabled || (host.op != "conv2d" && host.op != "dense")) return plan;
  // An activation of its own comes last: nothing after it can be folded in.
  if (host.attrs.Has("activation") && host.attrs.Str("activation") != "none") return plan;
  int next = index + 1;
  if (host.op == "conv2d" && JoinsPreviousStep(t, uses, next) && t.layers[next].op == "batchnorm") {
    plan.batchnorm = &t.layers[next++];
  }
  if (JoinsPreviousStep(t, uses, next) && EltwiseOf(t.layers[next]))
    plan.activation = &t.layers[next++];
  // A residual add (ResNet, MobileNet v2, a transformer's projections) as a binary post-op
  // reading the other operand, which an earlier step wrote; then its activation.
  if (JoinsPreviousStep(t, uses, next, true)) {
    plan.residual = &t.layers[next++];
    if (JoinsPreviousStep(t, uses, next) && EltwiseOf(t.layers[next])) {
      plan.residual_activation = &t.layers[next++];
    }
  }
  plan.fused = next - index - 1;
  return plan;
}

void FusionPlan::DropResidual() {
  fused -= (residual ? 1 : 0) + (residual_activation ? 1 : 0);
  residual = residual_activation = nullptr;
}

const std::string& FusionPlan::ResidualOperand() const {
  const ResolvedLayer* last = project ? project : host;
  const ResolvedLayer* before = project
                                    ? (project_activation ? project_activation : project_batchnorm)
                                    : (activation ? activation : batchnorm);
  const std::string& chain = before ? before->outputs[0] : last->outputs[0];
  return residual->inputs[0] == chain ? residual->inputs[1] : residual->inputs[0];
}

namespace {

// A conv2d of the block: kernel k x k, stride 1 (or `stride`, given: 1 or 2), padding (k - 1) / 2
// on every side, no dilation, no activation of its own; groups 1, or (`depthwise`) one filter
// per channel.
bool BlockConvolution(const ResolvedLayer& l, int64_t k, bool depthwise, int64_t* stride) {
  if (l.op != "conv2d" || l.input_shapes[0].size() != 4) return false;
  if (l.attrs.Has("activation") && l.attrs.Str("activation") != "none") return false;
  const auto kernel = l.attrs.Ints("kernel"), strides = l.attrs.Ints("stride"),
             dilation = l.attrs.Ints("dilation"), padding = l.attrs.Ints("padding");
  const int64_t channels = l.input_shapes[0][1], groups = l.attrs.Int("groups");
  const int64_t pad = (k - 1) / 2;
  const bool grouped =
      depthwise ? groups == channels && l.attrs.Int("filters") == channels : groups == 1;
  const bool strides_ok = stride ? strides[0] == strides[1] && (strides[0] == 1 || strides[0] == 2)
                                 : strides[0] == 1 && strides[1] == 1;
  if (stride) *stride = strides[0];
  return grouped && strides_ok && kernel == std::vector<int64_t>{k, k} &&
         dilation == std::vector<int64_t>{1, 1} &&
         padding == std::vector<int64_t>{pad, pad, pad, pad};
}

// Whether an activation layer is a clamp of its input (relu, relu6), which the kernel applies.
bool IsClamp(const ResolvedLayer& l) {
  const std::optional<Eltwise> e = EltwiseOf(l);
  return e && ((e->algorithm == dnnl::algorithm::eltwise_relu && e->alpha == 0.0f) ||
               e->algorithm == dnnl::algorithm::eltwise_clip);
}

}  // namespace

std::optional<FusionPlan> PlanInvertedResidual(const ResolvedTopology& t, const TensorUses& uses,
                                               int index, bool fusion, Precision precision,
                                               const std::string& mode) {
  if (!fusion || mode == "off" || precision != Precision::kF32) return std::nullopt;
  if (mode == "auto" && !InvertedResidualBuiltForAvx512()) return std::nullopt;
  FusionPlan plan;
  plan.host = &t.layers[index];
  if (!BlockConvolution(*plan.host, 1, false, nullptr)) return std::nullopt;
  int next = index + 1;
  // A convolution's batchnorm and clamp after it, where they join its step.
  auto tail = [&](const ResolvedLayer** batchnorm, const ResolvedLayer** activation) {
    if (JoinsPreviousStep(t, uses, next) && t.layers[next].op == "batchnorm") {
      *batchnorm = &t.layers[next++];
    }
    if (JoinsPreviousStep(t, uses, next) && IsClamp(t.layers[next])) {
      *activation = &t.layers[next++];
    }
  };
  tail(&plan.batchnorm, &plan.activation);
  int64_t stride = 1;
  if (!JoinsPreviousStep(t, uses, next) || !BlockConvolution(t.layers[next], 3, true, &stride)) {
    return std::nullopt;
  }
  plan.depthwise = &t.layers[next++];
  tail(&plan.depthwise_batchnorm, &plan.depthwise_activation);
  if (!JoinsPreviousStep(t, uses, next) || !BlockConvolution(t.layers[next], 1, false, nullptr)) {
    return std::nullopt;
  }
  plan.project = &t.layers[next++];
  tail(&plan.project_batchnorm, &plan.project_activation);
  // The block's input added to its output, with nothing after the add that the step would have
  // to apply.
  if (JoinsPreviousStep(t, uses, next, true)) {
    const ResolvedLayer& add = t.layers[next];
    const bool last = !JoinsPreviousStep(t, uses, next + 1) || !EltwiseOf(t.layers[next + 1]);
    plan.residual = &add;
    if (last && plan.ResidualOperand() == plan.host->inputs[0]) {
      ++next;
    } else {
      plan.residual = nullptr;
    }
  }
  plan.fused = next - index - 1;
  if (mode == "fused") return plan;
  // large (and auto, built for AVX-512): where the block expands its input 4x or more and the
  // expanded tensor of an image is 512 KiB or more. Measured (2-core Zen 4 VM, f32,
  // tools/inverted_residual_tiles.cc ROUTE=own, 64 MiB touched before each run as the rest of a
  // network would): MobileNet v2's blocks (6x) at 112x112 to 28x28 (expanded 4.8 MB to 0.6 MB)
  // 0.81-0.87x the three convolutions' time; at 14x14 0.88x (384 channels, 0.3 MB) and 1.12x
  // (576), at 7x7 1.33x, where a row of 14 or 7 pixels is short for the kernel's tiles and their
  // weights (221-614 KB) are read again for every row. In the network: p50 3.44-3.51 ms against
  // 3.58-3.68 (batch 1), 27.8-29.2 against 33.3-35.9 (batch 8); every block fused 4.2-4.4 ms. A
  // depthwise-separable backbone's blocks (1x, topologies/backbone.json conv_type=1 at 224x224,
  // width 64): 4.95-5.00 ms against 4.49-4.52 (the three convolutions move no more than the
  // input's bytes twice). Built for AVX2 instead, features.2 took 1.54x the three
  // convolutions' time warm (features.3 0.93x), for SSE 2.5x: auto is off there.
  const Shape& expanded = plan.host->output_shapes[0];
  const int64_t bytes = expanded[1] * expanded[2] * expanded[3] * 4;
  if (expanded[1] < 4 * plan.host->input_shapes[0][1] || bytes < 512 * 1024) return std::nullopt;
  return plan;
}

}  // namespace ntpb::onednn
