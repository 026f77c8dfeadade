// Text helpers shared by the XML readers (topologies, sweeps): the checks that run before
// pugixml sees a document, and the list and number forms NTP-style attributes use.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ntpb {

// Deeper than any topology or sweep needs; pugixml recurses per level while parsing.
inline constexpr int kMaxXmlDepth = 64;

// "" when `text` is UTF-8 (names and values end up in JSON and in messages) nested at most
// kMaxXmlDepth levels; otherwise what is wrong, with its line. (Found by fuzzing.)
std::string XmlTextProblem(const std::string& text);

std::string Trim(const std::string& s);
// A decimal int64 and nothing else.
bool IsInteger(const std::string& s, int64_t* value);
// An integer literal as a JSON number, anything else (an expression, a name) as a string.
nlohmann::json IntegerOrText(const std::string& text);
// "1, 3, 5" or "[1, 3, 5]" -> {"1", "3", "5"}, each trimmed; "" -> {}.
std::vector<std::string> SplitList(std::string text);

}  // namespace ntpb
