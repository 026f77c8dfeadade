#include "ntpbench/precision.h"

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
  }
  return "?";
}

Precision ParsePrecision(const std::string& text, const std::string& field) {
  for (Precision p : {f32, bf16, f16, i8}) {
    if (text == PrecisionName(p)) return p;
  }
  throw Error("", "", field,
              "unknown precision '" + text + "' (expected f32, bf16, f16 or i8)" +
                  DidYouMean(text, {"f32", "bf16", "f16", "i8"}));
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
  }
  return 4;
}

}  // namespace ntpb
