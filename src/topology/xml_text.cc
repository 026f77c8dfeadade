#include "src/topology/xml_text.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace ntpb {
namespace {

std::string Hex(unsigned char c) {
  const char* digits = "0123456789abcdef";
  return {digits[c >> 4], digits[c & 15]};
}

std::string Utf8Problem(const std::string& text) {
  size_t line = 1;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    int more = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    bool ok = more >= 0 && i + more < text.size();
    for (int k = 1; ok && k <= more; ++k) {
      ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    }
    if (!ok) return "not UTF-8 text: invalid byte 0x" + Hex(c) + " at line " + std::to_string(line);
    if (c == '\n') ++line;
    i += 1 + more;
  }
  return "";
}

// Absurd nesting is refused before pugixml (which recurses per level) sees it.
std::string DepthProblem(const std::string& text) {
  int depth = 0, max_depth = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '<') continue;
    const char next = text[i + 1];
    if (next == '/') {
      --depth;
    } else if (next != '?' && next != '!') {
      const size_t close = text.find('>', i);
      if (close != std::string::npos && text[close - 1] == '/') continue;  // <x/>
      max_depth = std::max(max_depth, ++depth);
    }
  }
  if (max_depth > kMaxXmlDepth) {
    return "XML nested deeper than " + std::to_string(kMaxXmlDepth) + " levels";
  }
  return "";
}

}  // namespace

std::string XmlTextProblem(const std::string& text) {
  std::string problem = Utf8Problem(text);
  return problem.empty() ? DepthProblem(text) : problem;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

bool IsInteger(const std::string& s, int64_t* value) {
  if (s.empty() || s.size() > 19) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

nlohmann::json IntegerOrText(const std::string& text) {
  int64_t v = 0;
  return IsInteger(text, &v) ? nlohmann::json(v) : nlohmann::json(text);
}

std::vector<std::string> SplitList(std::string text) {
  text = Trim(text);
  if (!text.empty() && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  std::vector<std::string> out;
  if (Trim(text).empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(Trim(text.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace ntpb
