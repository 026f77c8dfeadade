// The oneDNN backend's i8 arithmetic and batchnorm folding, against hand computations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "src/backends/common/post_op_fusion.h"
#include "src/backends/common/quantization.h"
#include "src/backends/onednn/builder.h"
#include "src/backends/onednn/quantization.h"

namespace ntpb::onednn {
namespace {

using dt = dnnl::memory::data_type;

TEST(OnednnQuantization, NonNegativeTensorsAreU8AndOthersS8) {
  EXPECT_EQ(QuantizedType({0.0f, 6.0f}), dt::u8);
  EXPECT_FLOAT_EQ(QuantizationScale({0.0f, 6.0f}), 255.0f / 6.0f);
  EXPECT_EQ(QuantizedType({-0.5f, 2.0f}), dt::s8);
  EXPECT_FLOAT_EQ(QuantizationScale({-4.0f, 2.0f}), 127.0f / 4.0f);  // the larger magnitude
  EXPECT_FLOAT_EQ(QuantizationScale({0.0f, 0.0f}), 1.0f);            // all zeros: any scale
}

TEST(OnednnQuantization, WeightsGetOneScalePerOutputChannel) {
  // Conv-like: 2 output channels outermost, 3 values each.
  const QuantizedWeights conv = QuantizeWeights({1.0f, -0.5f, 0.25f, 0.0f, 2.0f, -4.0f}, 2, 3, 127);
  ASSERT_EQ(conv.scales.size(), 2u);
  EXPECT_FLOAT_EQ(conv.scales[0], 127.0f);
  EXPECT_FLOAT_EQ(conv.scales[1], 127.0f / 4.0f);
  EXPECT_EQ(conv.values, (std::vector<int8_t>{127, -64, 32, 0, 64, -127}));  // -63.5 -> -64
  // Dense-like [K=2, units=3]: the channel is the column.
  const QuantizedWeights dense = QuantizeWeights({1.0f, 0.5f, 0.0f, -2.0f, 0.25f, 0.0f}, 3, 1, 127);
  EXPECT_FLOAT_EQ(dense.scales[0], 127.0f / 2.0f);
  EXPECT_FLOAT_EQ(dense.scales[1], 127.0f / 0.5f);
  EXPECT_FLOAT_EQ(dense.scales[2], 1.0f);  // an all-zero column
  EXPECT_EQ(dense.values, (std::vector<int8_t>{64, 127, 0, -127, 64, 0}));
}

// Without VNNI the weights take 7 bits, so that two u8 x s8 products always fit an s16.
TEST(OnednnQuantization, SevenBitWeightsKeepTwoProductsInsideSixteenBits) {
  const QuantizedWeights q = QuantizeWeights({1.0f, -0.5f, 0.25f, -1.0f}, 1, 4, 63);
  EXPECT_FLOAT_EQ(q.scales[0], 63.0f);
  EXPECT_EQ(q.values, (std::vector<int8_t>{63, -32, 16, -63}));  // -31.5 -> -32
  for (int8_t v : q.values) EXPECT_LE(2 * 255 * std::abs(v), 32767);
  EXPECT_EQ(WeightLevels(), HasVnniDotProducts() ? 127 : 63);
}

// s32 accumulator of q(x) * q(w), plus the bias in accumulator units, times the output scale:
// back to x * w + b up to rounding.
TEST(OnednnQuantization, OutputScalesAndAccumulatorBiasUndoTheScaling) {
  const float x = 1.5f, w = -0.75f, bias = 0.3f, src_scale = 255.0f / 2.0f;
  const QuantizedWeights q = QuantizeWeights({w, 0.5f}, 1, 2, WeightLevels());
  const int32_t acc = static_cast<int32_t>(std::nearbyint(x * src_scale)) * q.values[0];
  const float acc_bias = AccumulatorBias({bias}, src_scale, q.scales)[0];
  const float y = (static_cast<float>(acc) + acc_bias) * DequantizeScales(src_scale, q.scales)[0];
  EXPECT_NEAR(y, x * w + bias, 1e-2);
  EXPECT_FLOAT_EQ(DequantizeScales(2.0f, {4.0f, 8.0f})[1], 1.0f / 16.0f);
}

// w8/w4: one scale per group of 32 inputs of each output, symmetric, round to nearest; the
// bytes the analysis counts for such a matrix.
TEST(WeightOnlyQuantization, EachGroupOfInputsHasItsOwnScale) {
  EXPECT_EQ(ParsePrecision("w8"), Precision::kW8);
  EXPECT_EQ(std::string(PrecisionName(Precision::kW4)), "w4");
  EXPECT_EQ(ElementBytes(Precision::kW4), 4) << "activations stay f32";
  // 45 inputs x 3 outputs: groups of inputs 0-31 and 32-44.
  std::vector<float> w(45 * 3, 0.0f);
  for (int k = 0; k < 45; ++k) {
    w[k * 3 + 0] = k < 32 ? 0.5f * (k - 16) : 100.0f;  // group 0 up to 8, group 1 all 100
    w[k * 3 + 1] = 0.01f * k;
  }
  const GroupQuantizedWeights q8 = QuantizeByGroups(w, 45, 3, Precision::kW8);
  ASSERT_EQ(q8.groups, 2);
  EXPECT_EQ(q8.levels, 127);
  EXPECT_FLOAT_EQ(q8.scales[0 * 3 + 0], 8.0f / 127);
  EXPECT_FLOAT_EQ(q8.scales[1 * 3 + 0], 100.0f / 127);
  EXPECT_EQ(q8.values[40 * 3 + 0], 127);
  EXPECT_EQ(q8.values[0 * 3 + 0], -127);
  EXPECT_FLOAT_EQ(q8.scales[0 * 3 + 2], 0.0f) << "an all-zero group";
  EXPECT_EQ(q8.values[5 * 3 + 2], 0);
  const GroupQuantizedWeights q4 = QuantizeByGroups(w, 45, 3, Precision::kW4);
  EXPECT_EQ(q4.levels, 7);
  EXPECT_FLOAT_EQ(q4.scales[1 * 3 + 1], 0.44f / 7);
  // Every dequantized value within half a step of the weight.
  for (const GroupQuantizedWeights* q : {&q8, &q4}) {
    const std::vector<float> back = Dequantized(*q);
    for (int k = 0; k < 45; ++k) {
      for (int n = 0; n < 3; ++n) {
        EXPECT_LE(std::abs(back[k * 3 + n] - w[k * 3 + n]), q->scales[(k / 32) * 3 + n] / 2 + 1e-6)
            << k << " " << n << " levels " << q->levels;
      }
    }
  }
  // 45 x 3 at 8 bits: 135 bytes and 2 x 3 f32 scales; at 4 bits 68 bytes (rounded up).
  EXPECT_EQ(WeightOnlyBytes(Precision::kW8, 45, 3), 135 + 24);
  EXPECT_EQ(WeightOnlyBytes(Precision::kW4, 45, 3), 68 + 24);
}

TEST(OnednnFusion, FoldedBatchnormEqualsConvThenBatchnorm) {
  // Two output channels of two weights each; y = (w.x + b - mean) * scale / sqrt(var + eps) +
  // shift.
  std::vector<float> weights = {1.0f, 2.0f, -1.0f, 0.5f}, bias = {0.5f, -1.0f};
  const std::vector<std::vector<float>> bn = {
      {2.0f, 0.5f}, {0.1f, -0.2f}, {1.0f, 0.0f}, {3.0f, 0.25f}};
  const double eps = 1e-3;
  const std::vector<float> x = {0.7f, -0.3f};
  std::vector<float> expected(2);
  for (int c = 0; c < 2; ++c) {
    const double conv = weights[2 * c] * x[0] + weights[2 * c + 1] * x[1] + bias[c];
    expected[c] =
        static_cast<float>((conv - bn[2][c]) * bn[0][c] / std::sqrt(bn[3][c] + eps) + bn[1][c]);
  }
  FoldBatchnorm(bn, eps, &weights, &bias);
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(weights[2 * c] * x[0] + weights[2 * c + 1] * x[1] + bias[c], expected[c], 1e-6);
  }
  // Without a bias of its own the conv gets one.
  std::vector<float> w2 = {1.0f, 1.0f}, no_bias;
  FoldBatchnorm({{1.0f}, {0.5f}, {2.0f}, {1.0f}}, 0.0, &w2, &no_bias);
  ASSERT_EQ(no_bias.size(), 1u);
  EXPECT_FLOAT_EQ(no_bias[0], -1.5f);  // (0 - 2) * 1 + 0.5
}

}  // namespace
}  // namespace ntpb::onednn
