// Reading Google Benchmark JSON output. Its JSON reporter writes NaN and Infinity as bare words
// (e.g. the coefficient of variation of a counter that is always 0), which strict JSON parsers
// reject; this reader turns them into null.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ntpb {

// Throws ntpb::Error naming `file` when the text is not JSON even after that repair.
nlohmann::json ParseBenchmarkJson(const std::string& text, const std::string& file);

}  // namespace ntpb
