#include "src/common/benchmark_json.h"

#include "ntpbench/error.h"

namespace ntpb {

nlohmann::json ParseBenchmarkJson(const std::string& text, const std::string& file) {
  std::string repaired;
  repaired.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      repaired += c;
      if (c == '\\' && i + 1 < text.size()) {
        repaired += text[++i];
      } else if (c == '"') {
        in_string = false;
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
