// libFuzzer target: any bytes as Google Benchmark JSON, whose names come from users' topologies
// as they are (control characters, bytes that are not UTF-8). Only ntpb::Error may come out of
// the reader; what it reads must dump again; and any text made Printable holds no control
// character and is UTF-8, so it cannot drive a terminal or break a JSON writer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "ntpbench/error.h"
#include "src/common/benchmark_json.h"
#include "src/common/printable.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string printable = ntpb::Printable(text);
  for (size_t i = 0; i < printable.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(printable[i]);
    unsigned int code = 0;
    if (c < 0x20 || c == 0x7f) std::abort();
    if (c < 0x80) continue;
    const size_t n = ntpb::Utf8SequenceLength(printable, i, &code);
    if (n == 0 || (code >= 0x80 && code <= 0x9f)) std::abort();
    i += n - 1;
  }
  try {
    const nlohmann::json doc = ntpb::ParseBenchmarkJson(text, "fuzz.json");
    (void)doc.dump();  // throws on bytes that are not UTF-8: a finding
  } catch (const ntpb::Error&) {
  }
  return 0;
}
