#include "src/backends/common/post_op_fusion.h"

#include <cmath>

namespace ntpb {

bool JoinsPreviousStep(const ResolvedTopology& t, const TensorUses& uses, int j, bool residual) {
  if (j <= 0 || j >= static_cast<int>(t.layers.size())) return false;
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
    if (m.first == j || m.last == j - 1) return false;
  }
  return true;
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

}  // namespace ntpb
