// A field of a JSON object read strictly, for the readers of ntpbench's own files: missing or of
// the wrong type is an ntpb::Error naming the file and the field.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>

#include "ntpbench/error.h"

namespace ntpb {

// `v` as an integer of type T: a JSON integer within T's range, else nothing. nlohmann's own
// get<int>() of a number such as 1e50 is undefined behaviour (a float cast out of range; found by
// fuzzing a run file's machine class), and of 2^40 a silent wrap.
template <typename T>
std::optional<T> JsonInteger(const nlohmann::json& v) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return std::nullopt;
    return static_cast<T>(u);
  }
  if (!v.is_number_integer()) return std::nullopt;
  const auto i = v.get<int64_t>();
  if (i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      (i > 0 && static_cast<uint64_t>(i) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
    return std::nullopt;
  }
  return static_cast<T>(i);
}

// `j[key]` as a T (an integer type: JsonInteger's rule); `at` is the field's path so far
// ("samples[3]."), which the error prefixes.
template <typename T>
T JsonField(const nlohmann::json& j, const char* key, const std::string& at,
            const std::string& file) {
  if (!j.is_object() || !j.contains(key)) throw Error(file, "", at + key, "missing");
  auto wrong = [&] {
    std::string shown = j.at(key).dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    return Error(file, "", at + key, "has the wrong type (" + shown + ")");
  };
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (const std::optional<T> v = JsonInteger<T>(j.at(key))) return *v;
    throw wrong();
  } else {
    try {
      return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
      throw wrong();
    }
  }
}

// `j[key]` when it is a string, else "" (missing, or of another type). For a field whose value
// is then checked (a schema name): nlohmann's own j.value(key, "") throws a type_error where the
// field holds a number, which no reader catches (found by fuzzing a sweep results file).
inline std::string JsonStringOrEmpty(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace ntpb
