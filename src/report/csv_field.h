// One CSV field (RFC 4180) of text from a run or a topology: control characters and bytes that
// are not UTF-8 escaped as \xNN (a name cannot drive the terminal the table is printed on), then
// quoted where it holds a comma or a quote.
#pragma once

#include <string>

#include "src/common/printable.h"

namespace ntpb {

inline std::string CsvField(const std::string& text) {
  const std::string s = Printable(text);
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace ntpb
