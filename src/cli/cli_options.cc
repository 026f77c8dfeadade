#include "src/cli/cli_options.h"

#include <cerrno>
#include <cstdlib>

#include "ntpbench/backend.h"
#include "ntpbench/counters.h"
#include "ntpbench/error.h"
#include "ntpbench/report.h"
#include "src/bench/global_options.h"

namespace ntpb::cli {
namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    out.push_back(s.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

int64_t ParseInt(const std::string& text, const std::string& option, int64_t min) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min) {
    throw Error("", "", option,
                "expected an integer >= " + std::to_string(min) + ", got '" + text + "'");
  }
  return v;
}

}  // namespace

CliOptions ParseCliOptions(const std::vector<std::string>& args, bool allow_benchmark_flags) {
  CliOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    const bool is_option = arg.rfind("--", 0) == 0;
    const bool has_value = is_option && arg.find('=') != std::string::npos;
    if (is_option && arg.rfind("--benchmark_", 0) == 0) {
      if (!allow_benchmark_flags) throw Error("", "", arg, "not an option of this command");
      o.passthrough.push_back(arg);
      continue;
    }
    if (has_value) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    auto next = [&]() -> std::string {
      if (has_value) {  // --batch= is an empty value, not a request for the next argument
        if (value.empty()) throw Error("", "", arg, "needs a value after '='");
        return value;
      }
      if (i + 1 >= args.size()) throw Error("", "", arg, "needs a value");
      return args[++i];
    };
    if (!is_option) {
      if (!o.file.empty())
        throw Error("", "", arg, "unexpected argument (the topology is " + o.file + ")");
      o.file = arg;
    } else if (arg == "--backend") {
      o.backends = Split(next());
    } else if (arg == "--batch") {
      o.batches.clear();
      for (const std::string& b : Split(next())) o.batches.push_back(ParseInt(b, "--batch", 1));
    } else if (arg == "--precision") {
      o.precisions.clear();
      for (const std::string& p : Split(next()))
        o.precisions.push_back(ParsePrecision(p, "--precision"));
    } else if (arg == "--set") {
      bench::ParseAssignments(next(), "--set", &o.sets);
    } else if (arg == "--backend-option") {
      bench::ParseBackendOptions(next(), "--backend-option", &o.backend_options);
    } else if (arg == "--marker") {
      // name=start:end
      const std::string m = next();
      const size_t eq = m.find('='), colon = m.find(':');
      if (eq == std::string::npos || colon == std::string::npos || colon < eq) {
        throw Error("", "", "--marker", "expected name=start_layer:end_layer, got '" + m + "'");
      }
      o.markers.push_back({m.substr(0, eq), m.substr(eq + 1, colon - eq - 1), m.substr(colon + 1)});
    } else if (arg == "--counters") {
      for (const std::string& c : Split(next())) o.counters.push_back(c);
    } else if (arg == "--table") {
      o.table = next();
      if (!FindRunReportFormat(o.table)) {
        std::string names;
        for (const RunReportFormat& f : RunReportFormats()) {
          names += (names.empty() ? "" : ", ") + std::string(f.name);
        }
        throw Error("", "", "--table", "unknown format '" + o.table + "' (one of: " + names + ")");
      }
    } else if (arg == "--layer-counters") {
      o.layer_counters = true;
    } else if (arg == "--threads") {
      o.threads = static_cast<int>(ParseInt(next(), "--threads", 0));
    } else if (arg == "--seed") {
      o.seed = ParseInt(next(), "--seed", 0);
    } else if (arg == "--json") {
      if (allow_benchmark_flags) {
        o.json_out = next();
      } else {
        o.json = true;
      }
    } else {
      throw Error("", "", arg, "unknown option (see ntpbench --help)");
    }
  }
  if (o.file.empty()) throw Error("", "", "", "missing the topology file");
  // Names are checked here, for every command, not only where they are used (inspect takes
  // --backend and --counters too, and must not accept a misspelling silently).
  for (const std::string& b : o.backends) {
    if (const std::string problem = UnknownBackendProblem(b); !problem.empty()) {
      throw Error("", "", "--backend", problem);
    }
  }
  for (const std::string& c : o.counters) {
    if (const std::string problem = UnknownCounterProblem(c); !problem.empty()) {
      throw Error("", "", "--counters", problem);
    }
  }
  return o;
}

}  // namespace ntpb::cli
