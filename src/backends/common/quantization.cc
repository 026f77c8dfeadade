#include "src/backends/common/quantization.h"

#include <algorithm>
#include <cmath>

#include "src/backends/reference_run.h"

namespace ntpb {

Calibration CalibrateWithReference(const ResolvedTopology& t, RunConfig config) {
  Calibration ranges;
  const auto& measured =
      config.calibration ? *config.calibration : EigenReference(t, config)->ranges;
  for (const auto& [tensor, range] : measured) {
    ranges[tensor] = {range.first, range.second};
  }
  return ranges;
}

float QuantizationScale(const TensorRange& range) {
  const float extent = std::max(std::abs(range.min), std::abs(range.max));
  const float levels = range.unsigned_8bit() ? 255.0f : 127.0f;
  return extent > 0 ? levels / extent : 1.0f;
}

QuantizedWeights QuantizeWeights(const std::vector<float>& w, int64_t channels, int64_t inner,
                                 int levels) {
  const float top = static_cast<float>(levels);
  QuantizedWeights q;
  q.values.resize(w.size());
  q.scales.assign(channels, 1.0f);
  const int64_t outer = static_cast<int64_t>(w.size()) / (channels * inner);
  auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * channels + c) * inner + i; };
  for (int64_t c = 0; c < channels; ++c) {
    float extent = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) extent = std::max(extent, std::abs(w[at(o, c, i)]));
    }
    if (extent > 0) q.scales[c] = top / extent;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const float v = std::nearbyint(w[at(o, c, i)] * q.scales[c]);
        q.values[at(o, c, i)] = static_cast<int8_t>(std::clamp(v, -top, top));
      }
    }
  }
  return q;
}

std::vector<float> DequantizeScales(float src_scale, const std::vector<float>& weight_scales) {
  std::vector<float> out(weight_scales.size());
  for (size_t c = 0; c < out.size(); ++c) out[c] = 1.0f / (src_scale * weight_scales[c]);
  return out;
}

std::vector<float> AccumulatorBias(const std::vector<float>& bias, float src_scale,
                                   const std::vector<float>& weight_scales) {
  std::vector<float> out(bias.size());
  for (size_t c = 0; c < out.size(); ++c) out[c] = bias[c] * src_scale * weight_scales[c];
  return out;
}

GroupQuantizedWeights QuantizeByGroups(const std::vector<float>& w, int64_t inputs, int64_t outputs,
                                       Precision precision) {
  GroupQuantizedWeights q;
  q.inputs = inputs;
  q.outputs = outputs;
  q.groups = (inputs + kWeightGroup - 1) / kWeightGroup;
  q.levels = (1 << (WeightOnlyBits(precision) - 1)) - 1;
  q.values.assign(w.size(), 0);
  q.scales.assign(static_cast<size_t>(q.groups * outputs), 0.0f);
  for (int64_t g = 0; g < q.groups; ++g) {
    const int64_t k_end = std::min(inputs, (g + 1) * kWeightGroup);
    for (int64_t n = 0; n < outputs; ++n) {
      float largest = 0;
      for (int64_t k = g * kWeightGroup; k < k_end; ++k) {
        largest = std::max(largest, std::abs(w[k * outputs + n]));
      }
      // An all-zero group keeps scale 0 and values 0.
      const float scale = largest / static_cast<float>(q.levels);
      q.scales[g * outputs + n] = scale;
      if (scale == 0) continue;
      for (int64_t k = g * kWeightGroup; k < k_end; ++k) {
        const float v = std::nearbyint(w[k * outputs + n] / scale);
        q.values[k * outputs + n] = static_cast<int8_t>(
            std::clamp(v, -static_cast<float>(q.levels), static_cast<float>(q.levels)));
      }
    }
  }
  return q;
}

std::vector<float> Dequantized(const GroupQuantizedWeights& q) {
  std::vector<float> w(q.values.size());
  for (int64_t k = 0; k < q.inputs; ++k) {
    for (int64_t n = 0; n < q.outputs; ++n) w[k * q.outputs + n] = q.At(k, n);
  }
  return w;
}

}  // namespace ntpb
