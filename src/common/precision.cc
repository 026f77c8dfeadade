#include "ntpbench/precision.h"

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/error.h"
#include "src/common/nearest_name.h"

namespace ntpb {

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kF32:
      return "f32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kF16:
      return "f16";
    case Precision::kI8:
      return "i8";
    case Precision::kW8:
      return "w8";
    case Precision::kW4:
      return "w4";
  }
  return "?";
}

Precision ParsePrecision(const std::string& text, const std::string& field) {
  std::vector<std::string> names;
  for (Precision p : kAllPrecisions) {
    if (text == PrecisionName(p)) return p;
    names.push_back(PrecisionName(p));
  }
  // What other tools call them (PyTorch's dtypes, ONNX's and oneDNN's names).
  static const std::map<std::string, std::string> kOtherNames = {
      {"fp32", "f32"}, {"float32", "f32"}, {"float", "f32"}, {"bfloat16", "bf16"},
      {"fp16", "f16"}, {"float16", "f16"}, {"half", "f16"},  {"int8", "i8"},
      {"s8", "i8"},    {"u8", "i8"},       {"qint8", "i8"},  {"uint8", "i8"},
      {"int4", "w4"},
  };
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto other = kOtherNames.find(lower);
  throw Error("", "", field,
              "unknown precision '" + text + "' (expected f32, bf16, f16, i8, w8 or w4)" +
                  (other != kOtherNames.end() ? " (did you mean '" + other->second + "'?)"
                                              : DidYouMean(text, names)));
}

int64_t ElementBytes(Precision p) {
  switch (p) {
    case Precision::kF32:
      return 4;
    case Precision::kBf16:
    case Precision::kF16:
      return 2;
    case Precision::kI8:
      return 1;
    case Precision::kW8:
    case Precision::kW4:
      return 4;
  }
  return 4;
}

bool IsWeightOnly(Precision p) { return p == Precision::kW8 || p == Precision::kW4; }

int WeightOnlyBits(Precision p) { return p == Precision::kW8 ? 8 : p == Precision::kW4 ? 4 : 0; }

int64_t WeightOnlyBytes(Precision p, int64_t inputs, int64_t outputs) {
  const int64_t groups = (inputs + kWeightGroup - 1) / kWeightGroup;
  return (inputs * outputs * WeightOnlyBits(p) + 7) / 8 + groups * outputs * 4;
}

}  // namespace ntpb
