// What a benchmark that failed says: the exception's message, and where memory ran out, the
// stage and the address-space limit it ran under instead of a bare "std::bad_alloc".
#pragma once

#include <sys/resource.h>

#include <exception>
#include <new>
#include <string>

namespace ntpb::bench {

inline std::string FailureMessage(const std::exception& e, const std::string& stage) {
  if (!dynamic_cast<const std::bad_alloc*>(&e)) return e.what();
  std::string out = "out of memory while " + stage;
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    out += "; the address space is limited to " + std::to_string(limit.rlim_cur >> 20) +
           " MiB (ulimit -v)";
  }
  return out;
}

}  // namespace ntpb::bench
