// Post-op fusion: conv2d + batchnorm (folded) + activation, dense + activation, either + a
// residual add (+ activation). The fused step
// keeps the host layer's name and reports the layers it absorbed (StepInfo::fused).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

// Whether layers[j] may join the step that computes layers[j - 1]: it reads that output, as its
// only input (`residual`: as one operand of an add of two same-shaped tensors).
bool Absorbable(const ResolvedTopology& t, const TensorUses& uses, int j, bool residual = false) {
  if (j >= static_cast<int>(t.layers.size())) return false;
  const std::string& between = t.layers[j - 1].outputs[0];
  const ResolvedLayer& l = t.layers[j];
  if (residual) {
    if (l.op != "add" || l.inputs.size() != 2 || l.inputs[0] == l.inputs[1]) return false;
    if (l.inputs[0] != between && l.inputs[1] != between) return false;
    if (l.input_shapes[0] != l.input_shapes[1]) return false;  // no broadcast
  } else if (l.inputs.size() != 1 || l.inputs[0] != between) {
    return false;
  }
  if (uses.ReadersOf(between).size() != 1 || uses.IsGraphOutput(between)) return false;
  for (const ResolvedMarker& m : t.markers) {
    if (m.first == j || m.last == j - 1) return false;  // a marker boundary lies between them
  }
  return true;
}

}  // namespace

FusionPlan PlanFusion(const ResolvedTopology& t, const TensorUses& uses, int index, bool enabled) {
  FusionPlan plan;
  const ResolvedLayer& host = t.layers[index];
  plan.host = &host;
  if (!enabled || (host.op != "conv2d" && host.op != "dense")) return plan;
  // An activation of its own comes last: nothing after it can be folded in.
  if (host.attrs.Has("activation") && host.attrs.Str("activation") != "none") return plan;
  int next = index + 1;
  if (host.op == "conv2d" && Absorbable(t, uses, next) && t.layers[next].op == "batchnorm") {
    plan.batchnorm = &t.layers[next++];
  }
  if (Absorbable(t, uses, next) && EltwiseOf(t.layers[next])) plan.activation = &t.layers[next++];
  // A residual add (ResNet, MobileNet v2, a transformer's projections) as a binary post-op
  // reading the other operand, which an earlier step wrote; then its activation.
  if (Absorbable(t, uses, next, true)) {
    plan.residual = &t.layers[next++];
    if (Absorbable(t, uses, next) && EltwiseOf(t.layers[next])) {
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
  const ResolvedLayer* before = activation ? activation : batchnorm;
  const std::string& chain = before ? before->outputs[0] : host->outputs[0];
  return residual->inputs[0] == chain ? residual->inputs[1] : residual->inputs[0];
}

void FoldBatchnorm(const std::vector<std::vector<float>>& bn, double epsilon,
                   std::vector<float>* weights, std::vector<float>* bias) {
  const std::vector<float>&scale = bn[0], &shift = bn[1], &mean = bn[2], &variance = bn[3];
  const size_t channels = scale.size(), per_channel = weights->size() / channels;
  if (bias->empty()) bias->assign(channels, 0.0f);
  for (size_t c = 0; c < channels; ++c) {
    // y = (x - mean) * scale / sqrt(var + eps) + shift, with x = w * in + b.
    const double s = scale[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon);
    float* w = weights->data() + c * per_channel;
    for (size_t i = 0; i < per_channel; ++i) w[i] = static_cast<float>(w[i] * s);
    (*bias)[c] = static_cast<float>(((*bias)[c] - mean[c]) * s + shift[c]);
  }
}

}  // namespace ntpb::onednn
