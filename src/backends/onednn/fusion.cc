// Post-op fusion: conv2d + batchnorm (folded) + activation, dense + activation, either + a
// residual add (+ activation). The fused step
// keeps the host layer's name and reports the layers it absorbed (StepInfo::fused).
#include <string>

#include "src/backends/common/post_op_fusion.h"
#include "src/backends/onednn/builder.h"

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
  const ResolvedLayer* before = activation ? activation : batchnorm;
  const std::string& chain = before ? before->outputs[0] : host->outputs[0];
  return residual->inputs[0] == chain ? residual->inputs[1] : residual->inputs[0];
}

}  // namespace ntpb::onednn
