#include "src/common/benchmark_json.h"

#include <cstdio>

#include "ntpbench/error.h"
#include "src/common/printable.h"

namespace ntpb {
namespace {

std::string EscapedByte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "\\u%04x", byte);
  return text;
}

}  // namespace

nlohmann::json ParseBenchmarkJson(const std::string& text, const std::string& file) {
  std::string repaired;
  repaired.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (c == '\\' && i + 1 < text.size()) {
        repaired += c;
        repaired += text[++i];
      } else if (c == '"') {
        repaired += c;
        in_string = false;
      } else if (u < 0x20) {
        repaired += EscapedByte(u);  // Google Benchmark writes a name's ESC or NUL as it is
      } else if (u < 0x80) {
        repaired += c;
      } else if (unsigned int code = 0; const size_t n = Utf8SequenceLength(text, i, &code)) {
        repaired.append(text, i, n);
        i += n - 1;
      } else {
        repaired += EscapedByte(u);  // not UTF-8: read as the Latin-1 character
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* word :
         {"-Infinity", "Infinity", "-nan", "-NaN", "NaN", "nan", "-inf", "inf"}) {
      const std::string w = word;
      if (text.compare(i, w.size(), w) == 0) {
        repaired += "null";
        i += w.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) repaired += c;
  }
  try {
    return nlohmann::json::parse(repaired);
  } catch (const nlohmann::json::exception& e) {  // also out_of_range: a number too large
    throw Error(file, "", "", std::string("not Google Benchmark JSON: ") + e.what());
  }
}

}  // namespace ntpb
