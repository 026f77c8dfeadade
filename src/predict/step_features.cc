// What prices a step (latency_calibration.h): the same function describes a probe's measured
// steps at calibration and a topology's planned steps at prediction, so the two always agree.
#include <string>

#include "ntpbench/latency_calibration.h"

namespace ntpb {

int VectorLanes(const MachineClass& machine) {
  const std::string& isa = machine.isa;
  if (isa.find("avx512f") != std::string::npos) return 16;
  if (isa.find("avx") != std::string::npos) return 8;
  return 4;
}

std::string StepFeatures::Signature() const {
  return family + (detail.empty() ? "" : "[" + detail + "]") + fused;
}

StepFeatures FeaturesOfStep(const ResolvedTopology& topology, const TopologyAnalysis& analysis,
                            const PlannedStep& step, int lanes) {
  const int first = step.layer, fused = step.fused;
  const ResolvedLayer& host = topology.layers[first];
  StepFeatures f;
  f.family = host.op;
  // A convolution's kernels differ by kind (depthwise and grouped ones are memory-bound loops,
  // standard ones GEMM-like); a window's (convolutions, pooling) by kernel size and stride
  // (a 1x1 convolution is a plain GEMM).
  if (host.op == "conv2d" || host.op == "conv_transpose") {
    const int64_t groups = host.attrs.Has("groups") ? host.attrs.Int("groups") : 1;
    const int64_t channels = host.input_shapes[0].size() > 1 ? host.input_shapes[0][1] : 1;
    if (groups > 1) f.family += groups == channels ? ".depthwise" : ".grouped";
    // A network's first convolution reads a few channels (an image's three): its kernels and
    // the reorder of its input are its own, unlike any convolution of as many FLOPs inside.
    if (groups == 1 && channels <= 4) f.family += ".image";
    // Measured (Zen 5 VM, AVX-512, f32, batch 8, 80x80): a 3x3 convolution of 24 channels took
    // 0.80 of the time of one of 32 for 0.56 of its FLOPs, as if it had 32 outputs. A depthwise
    // one runs its channels side by side. (Grouped ones, whose kernels may run groups side by
    // side, are left as they are.)
    const int64_t out = host.output_shapes[0].size() > 1 && (groups == 1 || groups == channels)
                            ? host.output_shapes[0][1]
                            : 0;
    if (out > 0 && lanes > 1) {
      const int64_t padded = (out + lanes - 1) / lanes * lanes;
      f.lane_fill = static_cast<double>(out) / static_cast<double>(padded);
    }
  }
  // A backend's other algorithm for the op (oneDNN's Winograd convolution, 2-4x the direct
  // one's rate on the same FLOPs; ntpbench's bf16 dense panels, reading weights faster than
  // oneDNN's bf16 matmul; its bf16 depthwise kernel, 1.4-2x oneDNN's bf16 one's rate) is a kind
  // of its own, or its samples price the usual kernels.
  if (step.priced_as_usual) f.usual_family = f.family;
  if (!step.algorithm.empty()) f.family += "." + step.algorithm;
  if (host.attrs.Has("kernel") && host.attrs.Has("stride") &&
      host.attrs.json()["kernel"].is_array() && host.attrs.json()["stride"].is_array()) {
    const auto k = host.attrs.Ints("kernel"), s = host.attrs.Ints("stride");
    if (k.size() == 2 && s.size() == 2) {
      f.detail = "k" + std::to_string(k[0]) + (k[1] != k[0] ? "x" + std::to_string(k[1]) : "") +
                 "s" + std::to_string(s[0]);
    }
  }
  for (int i = first + 1; i <= first + fused; ++i) f.fused += "+" + topology.layers[i].op;
  const Cost cost = FusedCost(analysis, first, fused);
  f.flops = static_cast<double>(cost.flops);
  f.bytes = static_cast<double>(cost.weight_traffic_bytes + cost.input_bytes + cost.output_bytes);
  f.input_bytes = static_cast<double>(cost.input_bytes);
  f.output_bytes = static_cast<double>(cost.output_bytes);
  f.context_bytes = static_cast<double>(analysis.total.weight_traffic_bytes +
                                        analysis.total.input_bytes + analysis.total.output_bytes);
  f.context_flops = static_cast<double>(analysis.total.flops);
  const auto n = topology.params.find("N");
  f.batch = n == topology.params.end() ? 1 : n->second;
  return f;
}

}  // namespace ntpb
