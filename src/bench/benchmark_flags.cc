#include "src/bench/benchmark_flags.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <regex>

#include "ntpbench/error.h"

namespace ntpb::bench {
namespace {

constexpr size_t kMaxRegexLength = 4096;
constexpr int kMaxRegexNesting = 64;

// The value of `arg` when it is `flag`=value.
std::optional<std::string> ValueOf(const std::string& arg, const std::string& flag) {
  if (arg.rfind(flag + "=", 0) != 0) return std::nullopt;
  return arg.substr(flag.size() + 1);
}

}  // namespace

std::string RegexProblem(const std::string& pattern) {
  if (pattern.size() > kMaxRegexLength) {
    return "a pattern of " + std::to_string(pattern.size()) + " characters (at most " +
           std::to_string(kMaxRegexLength) + ")";
  }
  int depth = 0, deepest = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;
    } else if (pattern[i] == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (pattern[i] == ')') {
      --depth;
    }
  }
  if (deepest > kMaxRegexNesting) {
    return "groups nested " + std::to_string(deepest) + " deep (at most " +
           std::to_string(kMaxRegexNesting) + ")";
  }
  try {
    std::regex check(pattern);
  } catch (const std::regex_error& e) {
    return std::string("not a regular expression (") + e.what() + ")";
  }
  return "";
}

void CheckBenchmarkFlags(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (const auto v = ValueOf(arg, "--benchmark_repetitions")) {
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || errno == ERANGE || n < 1 || n > 1000000) {
        throw Error("", "", "--benchmark_repetitions",
                    "expected a whole number from 1 to 1000000, got '" + *v + "'");
      }
    } else if (const auto t = ValueOf(arg, "--benchmark_min_time")) {
      char* end = nullptr;
      const double s = std::strtod(t->c_str(), &end);
      // Google Benchmark 1.7 reads seconds; later ones also "<S>s" (NormalizeBenchmarkFlag
      // turns it into seconds) and "<N>x" iterations, which 1.7 has no way to ask for.
      const std::string rest = end;
      if (rest == "x" && end != t->c_str()) {
        throw Error("", "", "--benchmark_min_time",
                    "'" + *t +
                        "' counts iterations, which Google Benchmark 1.8 reads; the one ntpbench "
                        "is built with (Debian 12's 1.7) takes seconds: e.g. 0.5 or 0.5s");
      }
      if (end == t->c_str() || !(rest.empty() || rest == "s") || !(s >= 0) || s > 1e6) {
        throw Error("", "", "--benchmark_min_time",
                    "expected seconds from 0 to 1000000 (0.5 or 0.5s), got '" + *t + "'");
      }
    } else if (const auto format = ValueOf(arg, "--benchmark_format")) {
      // Google Benchmark prints its usage and exits 0 on any other: a script would go on.
      if (*format != "console" && *format != "json" && *format != "csv") {
        throw Error("", "", "--benchmark_format",
                    "expected console, json or csv, got '" + *format + "'");
      }
    } else if (const auto out_format = ValueOf(arg, "--benchmark_out_format")) {
      if (*out_format != "console" && *out_format != "json" && *out_format != "csv") {
        throw Error("", "", "--benchmark_out_format",
                    "expected console, json or csv, got '" + *out_format + "'");
      }
    } else if (const auto f = ValueOf(arg, "--benchmark_filter")) {
      if (const std::string problem = RegexProblem(*f); !problem.empty()) {
        throw Error("", "", "--benchmark_filter", problem);
      }
    }
  }
}

std::string NormalizeBenchmarkFlag(const std::string& arg) {
  const auto t = ValueOf(arg, "--benchmark_min_time");
  if (t && t->size() > 1 && t->back() == 's') {
    return "--benchmark_min_time=" + t->substr(0, t->size() - 1);
  }
  return arg;
}

std::string FlagValue(int argc, char** argv, const char* name) {
  const std::string prefix = std::string("--") + name + "=";
  std::string value;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) value = argv[i] + prefix.size();
  }
  return value;
}

}  // namespace ntpb::bench
