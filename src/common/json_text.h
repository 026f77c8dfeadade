// JSON text for files and standard output. A string that is not UTF-8 (a path, or a name read
// from a file that is not UTF-8) gets U+FFFD for its bad bytes instead of nlohmann::json's
// default, an exception: a write never fails, or leaves a temporary behind, over one byte.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ntpb {

inline std::string JsonText(const nlohmann::json& doc, int indent = -1) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ntpb
