// Reading Google Benchmark JSON output. Its JSON reporter writes NaN and Infinity as bare words
// (e.g. the coefficient of variation of a counter that is always 0), which strict JSON parsers
// reject; this reader turns them into null. It writes names as they are, so a control character
// (ESC, NUL) or a byte that is not UTF-8 in a layer's name would make the document unreadable:
// this reader escapes them inside strings (a stray byte as its Latin-1 character).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ntpb {

// Throws ntpb::Error naming `file` when the text is not JSON even after that repair.
nlohmann::json ParseBenchmarkJson(const std::string& text, const std::string& file);

}  // namespace ntpb
