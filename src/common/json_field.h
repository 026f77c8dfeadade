// A field of a JSON object read strictly, for the readers of ntpbench's own files: missing or of
// the wrong type is an ntpb::Error naming the file and the field.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ntpbench/error.h"

namespace ntpb {

// `j[key]` as a T; `at` is the field's path so far ("samples[3]."), which the error prefixes.
template <typename T>
T JsonField(const nlohmann::json& j, const char* key, const std::string& at,
            const std::string& file) {
  if (!j.is_object() || !j.contains(key)) throw Error(file, "", at + key, "missing");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    std::string shown = j.at(key).dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    throw Error(file, "", at + key, "has the wrong type (" + shown + ")");
  }
}

}  // namespace ntpb
