// The time now, as the files ntpbench writes record it.
#pragma once

#include <ctime>
#include <string>

namespace ntpb {

// ISO 8601 in UTC: "2026-11-21T16:17:59Z".
inline std::string UtcTimestamp() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace ntpb
