#include "src/cli/gate_options.h"

#include <cstdio>
#include <cstdlib>

#include "ntpbench/error.h"
#include "src/cli/comparison_table.h"
#include "src/common/file_io.h"

namespace ntpb::cli {
namespace {

double ParseNumber(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0)) {
    throw Error("", "", option, "expected a non-negative number, got '" + text + "'");
  }
  return v;
}

}  // namespace

GateOptions ParseGateOptions(const std::vector<std::string>& args) {
  GateOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    const bool has_value = arg.find('=') != std::string::npos;
    if (arg.rfind("--ntpb_", 0) == 0 || arg.rfind("--benchmark_", 0) == 0) {
      o.suite_args.push_back(arg);
      continue;
    }
    if (has_value) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= args.size()) throw Error("", "", arg, "needs a value");
      return args[++i];
    };
    if (arg == "--suite-binary")
      o.suite_binary = next();
    else if (arg == "--suite")
      o.suite = next();
    else if (arg == "--baseline-dir")
      o.baseline_dir = next();
    else if (arg == "--baseline")
      o.baseline_file = next();
    else if (arg == "--run")
      o.run_files.push_back(next());
    else if (arg == "--control-binary")
      o.control_binary = next();
    else if (arg == "--control-dir")
      o.control_dir = next();
    else if (arg == "--sessions")
      o.sessions = std::max(1, static_cast<int>(ParseNumber(next(), arg)));
    else if (arg == "--filter")
      o.filter = next();
    else if (arg == "--report")
      o.report = next();
    else if (arg == "--signature-only")
      o.signature_only = true;
    else if (arg == "--judge") {
      const std::string v = next();
      if (v == "all") {
        o.compare.judge = Judge::kAll;
      } else if (v == "signature") {
        o.compare.judge = Judge::kSignature;
      } else if (v == "latency") {
        o.compare.judge = Judge::kLatency;
      } else {
        throw Error("", "", arg, "expected all, signature or latency, got '" + v + "'");
      }
    } else if (arg == "--repetitions") {
      const double n = ParseNumber(next(), arg);
      if (n < 1 || n != static_cast<int>(n) || n > 10000)
        throw Error("", "", arg, "expected a whole number of repetitions >= 1");
      o.repetitions = static_cast<int>(n);
    } else if (arg == "--min-time")
      o.min_time = ParseNumber(next(), arg);
    else if (arg == "--alpha") {
      o.compare.alpha = ParseNumber(next(), arg);
      if (!(o.compare.alpha > 0 && o.compare.alpha < 1))
        throw Error("", "", arg, "expected a significance level between 0 and 1, e.g. 0.05");
    } else if (arg == "--threshold") {
      // A fraction: 0.05 is 5%. "5" would silently mean 500%.
      o.compare.threshold = ParseNumber(next(), arg);
      if (!(o.compare.threshold > 0 && o.compare.threshold < 1))
        throw Error("", "", arg, "expected a fraction between 0 and 1 (0.05 is 5%)");
    } else if (arg == "--threshold-for") {
      const std::string v = next();
      const size_t eq = v.rfind('=');
      if (eq == std::string::npos)
        throw Error("", "", arg, "expected NAME=FRACTION, got '" + v + "'");
      o.compare.thresholds[v.substr(0, eq)] = ParseNumber(v.substr(eq + 1), arg);
    } else if (arg == "--update")
      o.update = true;
    else if (arg == "--force")
      o.force = true;
    else if (arg == "--rerun-inconclusive" || arg == "--confirm")
      o.rerun_inconclusive = true;
    else if (arg == "--raw")
      o.compare.relative_to_suite = false;
    else
      throw Error("", "", arg, "unknown option (see ntpbench --help)");
  }
  return o;
}

int Report(const GateOptions& o, const Comparison& c) {
  std::fputs(ComparisonTable(c).c_str(), stdout);
  if (!o.report.empty()) WriteFileAtomically(o.report, c.ToJson().dump(2) + "\n");
  return c.ExitCode();
}

}  // namespace ntpb::cli
