// One number through a printf format, as a string (tables, notes, messages).
#pragma once

#include <cstdio>
#include <string>

namespace ntpb {

inline std::string FormatNumber(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace ntpb
