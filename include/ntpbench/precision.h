// Numerical precisions a topology can run in.
#pragma once

#include <cstdint>
#include <string>

namespace ntpb {

enum class Precision { kF32, kBf16, kF16, kI8 };

inline constexpr Precision f32 = Precision::kF32;
inline constexpr Precision bf16 = Precision::kBf16;
inline constexpr Precision f16 = Precision::kF16;
inline constexpr Precision i8 = Precision::kI8;

// "f32", "bf16", "f16", "i8".
const char* PrecisionName(Precision p);
// Inverse of PrecisionName; throws ntpb::Error naming `field` for anything else.
Precision ParsePrecision(const std::string& text, const std::string& field = "precision");
// Bytes of one activation or weight element stored at this precision.
int64_t ElementBytes(Precision p);

}  // namespace ntpb
