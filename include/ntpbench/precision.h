// Numerical precisions a topology can run in.
#pragma once

#include <cstdint>
#include <string>

namespace ntpb {

// kW8 and kW4 are weight-only: a dense layer's weights stored as int8 or int4 with one f32
// scale per group of kWeightGroup inputs of each output (symmetric, round to nearest);
// activations, other weights and arithmetic stay f32 (as LLM decoders are run for their
// memory-bound decode).
enum class Precision { kF32, kBf16, kF16, kI8, kW8, kW4 };

inline constexpr Precision f32 = Precision::kF32;
inline constexpr Precision bf16 = Precision::kBf16;
inline constexpr Precision f16 = Precision::kF16;
inline constexpr Precision i8 = Precision::kI8;
inline constexpr Precision w8 = Precision::kW8;
inline constexpr Precision w4 = Precision::kW4;
inline constexpr Precision kAllPrecisions[] = {f32, bf16, f16, i8, w8, w4};

// Inputs per weight group of the weight-only precisions (llama.cpp's Q8_0 and Q4_0 blocks).
inline constexpr int64_t kWeightGroup = 32;

// "f32", "bf16", "f16", "i8", "w8", "w4".
const char* PrecisionName(Precision p);
// Inverse of PrecisionName; throws ntpb::Error naming `field` for anything else.
Precision ParsePrecision(const std::string& text, const std::string& field = "precision");
// Bytes of one activation or weight element stored at this precision (f32's for the
// weight-only precisions, whose quantized weights WeightOnlyBytes counts).
int64_t ElementBytes(Precision p);
// kW8 or kW4.
bool IsWeightOnly(Precision p);
// Bits of one quantized weight: 8 (kW8), 4 (kW4); 0 for the others.
int WeightOnlyBits(Precision p);
// Bytes of a [inputs, outputs] weight matrix quantized weight-only: the values at
// WeightOnlyBits each and one f32 scale per group of kWeightGroup inputs of each output.
int64_t WeightOnlyBytes(Precision p, int64_t inputs, int64_t outputs);

}  // namespace ntpb
