#include "src/cli/option_checks.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "ntpbench/backend.h"
#include "ntpbench/counters.h"
#include "ntpbench/error.h"
#include "src/bench/benchmark_flags.h"
#include "src/common/nearest_name.h"

namespace ntpb::cli {

CLI::Validator IntegerAtLeast(int64_t min, int64_t max) {
  const std::string range = max == INT64_MAX
                                ? ">= " + std::to_string(min)
                                : "from " + std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max) {
          return "expected an integer " + range + ", got '" + text + "'";
        }
        return "";
      },
      "");
}

double ParseMilliseconds(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit = end ? end : "";
  const double scale = unit == "" || unit == "ms" ? 1.0
                       : unit == "s"              ? 1e3
                       : unit == "us"             ? 1e-3
                                                  : 0;
  if (text.empty() || end == text.c_str() || scale == 0 || !(v > 0) || !(v * scale < 1e9)) {
    throw Error("", "", option, "expected a time like 50ms, 0.2s or 300us, got '" + text + "'");
  }
  return v * scale;
}

CLI::Validator NumberBetween(double lo, double hi, const std::string& what) {
  return CLI::Validator(
      [lo, hi, what](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v > lo && v < hi)) {
          return "expected " + what + ", got '" + text + "'";
        }
        return "";
      },
      "");
}

CLI::Validator NonNegativeNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= 0)) {
          return "expected a non-negative number, got '" + text + "'";
        }
        return "";
      },
      "");
}

CLI::Validator OneOf(const std::vector<std::string>& names, const std::string& what) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return CLI::Validator(
      [names, list, what](std::string& text) -> std::string {
        for (const std::string& n : names) {
          if (text == n) return "";
        }
        return "unknown " + what + " '" + text + "' (one of: " + list + ")" +
               DidYouMean(text, names);
      },
      "");
}

CLI::Validator BackendName() {
  return CLI::Validator([](std::string& text) { return UnknownBackendProblem(text); }, "");
}

CLI::Validator CounterName() {
  return CLI::Validator([](std::string& text) { return UnknownCounterProblem(text); }, "");
}

CLI::Validator FileNameComponent() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool ok = !text.empty() && text.size() <= 100 && text[0] != '.';
        for (char c : text) {
          ok = ok &&
               (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
        }
        return ok ? ""
                  : "expected a name of letters, digits, '_', '-' and '.' (it names a file), got "
                    "'" +
                        text + "'";
      },
      "");
}

CLI::Validator RegexText() {
  return CLI::Validator([](std::string& text) { return bench::RegexProblem(text); }, "");
}

void RejectEmptyAssignments(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > 3 && a.rfind("--", 0) == 0 && a.back() == '=' && a.find('=') == a.size() - 1) {
      throw Error("", "", a.substr(0, a.size() - 1), "needs a value after '='");
    }
    // No option or argument means anything empty: `--json ''` would be ignored.
    const std::string before = i > 0 && args[i - 1].rfind("--", 0) == 0 ? args[i - 1] : "";
    if (a.empty()) {
      if (before.empty())
        throw Error("", "", "", "argument " + std::to_string(i + 1) + " is empty");
      throw Error("", "", before, "an empty argument after it");
    }
    // An empty item in a comma-separated list (`--batch 1,,4`) would be dropped silently.
    // Google Benchmark's flags keep their own syntax (a filter is a regular expression).
    const bool gb = a.rfind("--benchmark_", 0) == 0 || before.rfind("--benchmark_", 0) == 0;
    const size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;
    if (gb || (a.rfind("--", 0) == 0 && eq == std::string::npos)) continue;
    const std::string value = eq == std::string::npos ? a : a.substr(eq + 1);
    const std::string option = eq == std::string::npos ? before : a.substr(0, eq);
    if (value.find(',') != std::string::npos &&
        (value.find(",,") != std::string::npos || value.front() == ',' || value.back() == ',')) {
      const std::string message =
          "an empty item in the list '" + value + "' (items are comma-separated)";
      if (option.empty())
        throw Error("", "", "", "argument " + std::to_string(i + 1) + ": " + message);
      throw Error("", "", option, message);
    }
  }
}

std::string CommandPath(const CLI::App& leaf) {
  std::string path = leaf.get_name();
  for (const CLI::App* up = leaf.get_parent(); up; up = up->get_parent()) {
    path = up->get_name() + " " + path;
  }
  return path;
}

std::vector<std::string> PassThrough(const CLI::App& command,
                                     const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (const std::string& arg : command.remaining()) {
    bool passed = false;
    for (const std::string& prefix : prefixes) passed = passed || arg.rfind(prefix, 0) == 0;
    if (passed) {
      out.push_back(arg);
      continue;
    }
    const std::string usage = "; options: " + CommandPath(command) + " --help";
    if (arg.empty() || arg[0] != '-') {
      throw Error("", "", "", "unexpected argument '" + arg + "'" + usage);
    }
    std::vector<std::string> names;
    for (const CLI::Option* o : command.get_options()) {
      for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    }
    const std::string name = arg.substr(0, arg.find('='));
    std::string hint = DidYouMean(name, names);
    if (hint.empty() && !prefixes.empty()) {
      hint = "; Google Benchmark's flags start with --benchmark_" +
             std::string(prefixes.size() > 1 ? ", a suite's with --ntpb_" : "");
    }
    throw Error("", "", "", "unknown option '" + name + "'" + hint + usage);
  }
  return out;
}

void CheckCommandName(const CLI::App& app, const std::string& name) {
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (c->get_name() == name) return;
    names.push_back(c->get_name());
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw Error("", "", "",
              "unknown command '" + name + "'" + DidYouMean(name, names) + "; commands: " + list);
}

std::string DescribeParseError(const CLI::ParseError& e) {
  // CLI11 writes "--alpha: message"; ntpbench writes "option '--alpha': message".
  const std::string what = e.what();
  if (e.get_name() == "ArgumentMismatch" && what.find(" missing") != std::string::npos) {
    return "option '" + what.substr(0, what.find(':')) + "': needs a value";
  }
  const size_t colon = what.find(": ");
  if (what.rfind("-", 0) == 0 && colon != std::string::npos) {
    return "option '" + what.substr(0, colon) + "': " + what.substr(colon + 2);
  }
  return what;
}

}  // namespace ntpb::cli
