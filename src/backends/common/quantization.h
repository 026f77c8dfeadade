// i8 runs of the backends that quantize (oneDNN, OpenCL): 8-bit activations x 8-bit weights,
// accumulated in 32-bit integers, dequantized to f32.
//  - Weights: symmetric, one scale per output channel (q = round(w * scale), |q| <= levels).
//  - Activations: one scale per tensor, from the range the tensor takes in a reference f32 run
//    of the Eigen backend on the same random input (calibration). A tensor that is never
//    negative there is u8 (0..255), any other s8 (-127..127).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/resolve.h"

namespace ntpb {

struct TensorRange {
  float min = 0, max = 0;
  bool unsigned_8bit() const { return min >= 0; }  // u8, else s8
};
using Calibration = std::map<std::string, TensorRange>;

// The range of every tensor in one f32 run of the Eigen reference (same seed, same input), or
// config.calibration where it is set.
Calibration CalibrateWithReference(const ResolvedTopology& topology, RunConfig config);

// Maps the range onto u8 or s8: q = round(x * scale).
float QuantizationScale(const TensorRange& range);

struct QuantizedWeights {
  std::vector<int8_t> values;  // same layout as the f32 weights
  std::vector<float> scales;   // per output channel
};
// Weights whose element (outer, channel, inner) is w[(outer * channels + channel) * inner + i]:
// conv weights (o, i, kh, kw) have outer 1; dense weights [K, units] have inner 1.
// `levels`: the largest |q| (127, or less where a backend's kernels need headroom).
QuantizedWeights QuantizeWeights(const std::vector<float>& w, int64_t channels, int64_t inner,
                                 int levels);

// The scales that turn the s32 accumulator of (src at src_scale) x (weights) into f32.
std::vector<float> DequantizeScales(float src_scale, const std::vector<float>& weight_scales);
// A bias in the accumulator's units (added before the dequantize scales).
std::vector<float> AccumulatorBias(const std::vector<float>& bias, float src_scale,
                                   const std::vector<float>& weight_scales);

// Weight-only runs (w8, w4: precision.h): a dense layer's [inputs, outputs] weights as int8 or
// int4 values, one f32 scale per group of kWeightGroup inputs of each output, symmetric:
// scale = max |w| of the group / levels (127 or 7), q = round(w / scale). Activations stay f32.
struct GroupQuantizedWeights {
  int64_t inputs = 0, outputs = 0, groups = 0;
  int levels = 0;
  std::vector<int8_t> values;  // [inputs, outputs], as the f32 weights
  std::vector<float> scales;   // [groups, outputs]

  // The value the kernels multiply by: values[k, n] * scales[k / kWeightGroup, n].
  float At(int64_t k, int64_t n) const {
    return static_cast<float>(values[k * outputs + n]) * scales[(k / kWeightGroup) * outputs + n];
  }
};
GroupQuantizedWeights QuantizeByGroups(const std::vector<float>& w, int64_t inputs, int64_t outputs,
                                       Precision precision);
// The f32 weights the quantized ones stand for (At() of every element): the Eigen reference
// computes with these.
std::vector<float> Dequantized(const GroupQuantizedWeights& q);

}  // namespace ntpb
