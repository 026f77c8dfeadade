// i8 runs: u8/s8 activations × s8 weights, accumulated in s32 by oneDNN.
//  - Weights: symmetric, one scale per output channel (q = round(w * scale), |q| <= 127, or
//    63 where oneDNN's kernels have no VNNI: see WeightLevels).
//  - Activations: one scale per tensor, from the range the tensor takes in a reference f32 run
//    of the Eigen backend on the same random input (calibration). A tensor that is never
//    negative there is u8 (0..255), any other s8 (-127..127).
//  - Quantizing an activation is a "quantize" inlay step (a scaling reorder) in front of its
//    consumer; the consumer dequantizes in its output scales and writes f32.
#pragma once

#include <dnnl.hpp>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/resolve.h"

namespace ntpb::onednn {

struct TensorRange {
  float min = 0, max = 0;
};
using Calibration = std::map<std::string, TensorRange>;

// The range of every tensor in one f32 run of the Eigen reference (same seed, same input).
Calibration CalibrateWithReference(const ResolvedTopology& topology, RunConfig config);

// u8 for a tensor never negative in the reference run, s8 otherwise.
dnnl::memory::data_type QuantizedType(const TensorRange& range);
// Maps the range onto the type: q = round(x * scale).
float QuantizationScale(const TensorRange& range);

// Whether oneDNN's u8 x s8 kernels use VNNI dot products here (after ONEDNN_MAX_CPU_ISA).
bool HasVnniDotProducts();
// The largest |q| of a quantized weight: 127 with VNNI; else 63. Without VNNI oneDNN multiplies
// with vpmaddubsw, which adds two u8 x s8 products into a saturating s16 (2 * 255 * 127 >
// 32767: large activations against large weights clip, up to 48% off in a dense layer);
// 7-bit weights cannot clip (2 * 255 * 63 < 32767). oneDNN's int8 guide says the same.
int WeightLevels();

struct QuantizedWeights {
  std::vector<int8_t> values;  // same layout as the f32 weights
  std::vector<float> scales;   // per output channel
};
// Weights whose element (outer, channel, inner) is w[(outer * channels + channel) * inner + i]:
// conv weights (o, i, kh, kw) have outer 1; dense weights [K, units] have inner 1.
// `levels`: the largest |q| (WeightLevels()).
QuantizedWeights QuantizeWeights(const std::vector<float>& w, int64_t channels, int64_t inner,
                                 int levels);

// The output scales that turn the s32 accumulator of (src at src_scale) × (weights) into f32.
std::vector<float> DequantizeScales(float src_scale, const std::vector<float>& weight_scales);
// A bias in the accumulator's units: oneDNN adds the bias before it applies output scales.
std::vector<float> AccumulatorBias(const std::vector<float>& bias, float src_scale,
                                   const std::vector<float>& weight_scales);

}  // namespace ntpb::onednn
