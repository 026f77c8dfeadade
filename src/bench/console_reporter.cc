#include <unistd.h>

#include <cstring>
#include <map>
#include <ostream>
#include <sstream>
#include <string>

#include "ntpbench/reporting.h"
#include "ntpbench/results.h"
#include "src/bench/benchmark_flags.h"

namespace ntpb {

// How ntpbench itself was compiled (the JSON context's ntpbench_build_type).
#ifdef NDEBUG
constexpr const char* kNtpbenchBuildType = "release (NDEBUG)";
#else
constexpr const char* kNtpbenchBuildType = "debug (assertions on)";
#endif

using bench::FlagValue;

namespace {

// A line under a measurement the machine disturbed (JudgeInterference), so that no number is read
// as if it were true.
void SayWhenUnreliable(const std::vector<benchmark::BenchmarkReporter::Run>& runs,
                       std::ostream& out) {
  for (const auto& run : runs) {
    if (run.error_occurred || run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) {
      continue;
    }
    std::map<std::string, double> counters;
    for (const auto& [name, counter] : run.counters) counters[name] = counter.value;
    const RunMeasurement m = DecodeCounters(counters);
    if (!m.interference) continue;
    const Reliability r = JudgeInterference(*m.interference);
    if (!r.reliable) out << "  ^ " << run.benchmark_name() << ": " << r.Verdict() << "\n";
  }
}

}  // namespace

bool ConsoleReporter::ReportContext(const Context& context) {
  name_field_width_ = context.name_field_width;
  printed_header_ = false;
  prev_counters_.clear();
  std::ostringstream header;
  PrintBasicContext(&header, context);
  std::istringstream lines(header.str());
  std::string json_keys;
  std::ostream& out = GetErrorStream();
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(": ");
    const bool json = line.rfind("ntpbench_", 0) == 0 && colon != std::string::npos &&
                      colon + 2 < line.size() && (line[colon + 2] == '{' || line[colon + 2] == '[');
    if (json) {
      json_keys += (json_keys.empty() ? "" : ", ") + line.substr(0, colon);
      continue;
    }
    if (line.rfind("***WARNING***", 0) == 0 && !json_keys.empty()) {
      out << "in the JSON output only: " << json_keys << "\n";
      json_keys.clear();
    }
    if (line.rfind("***WARNING*** Library was built as DEBUG", 0) == 0) {
      // Debian's libbenchmark is built without NDEBUG: its own bookkeeping between timed
      // sections carries assertions; ntpbench's timed code (the backends, its step timer) does
      // not (its build type is ntpbench_build_type in the JSON).
      out << "note: Google Benchmark is Debian's build, with its assertions on (its \"DEBUG\" "
             "warning);\n      they run in its bookkeeping between the timed iterations. The code "
             "ntpbench times is built "
          << kNtpbenchBuildType << ".\n";
      continue;
    }
    out << line << "\n";
  }
  if (!json_keys.empty()) out << "in the JSON output only: " << json_keys << "\n";
  out.flush();
  return true;
}

void ConsoleReporter::ReportRuns(const std::vector<Run>& runs) {
  if (show_all_counters_) {
    benchmark::ConsoleReporter::ReportRuns(runs);
    SayWhenUnreliable(runs, GetOutputStream());
    return;
  }
  std::vector<Run> trimmed = runs;
  for (Run& run : trimmed) {
    for (auto it = run.counters.begin(); it != run.counters.end();) {
      it = IsHeadlineCounter(it->first) ? std::next(it) : run.counters.erase(it);
    }
  }
  benchmark::ConsoleReporter::ReportRuns(trimmed);
  SayWhenUnreliable(runs, GetOutputStream());
}

namespace {

bool IsFalse(const std::string& v) { return v == "false" || v == "0" || v == "no"; }

}  // namespace

benchmark::ConsoleReporter::OutputOptions ConsoleOptionsFromArgs(int argc, char** argv) {
  int options = benchmark::ConsoleReporter::OO_None;
  const std::string color = FlagValue(argc, argv, "benchmark_color");
  if ((color.empty() || color == "auto") ? isatty(STDOUT_FILENO) != 0 : !IsFalse(color)) {
    options |= benchmark::ConsoleReporter::OO_Color;
  }
  const std::string tabular = FlagValue(argc, argv, "benchmark_counters_tabular");
  if (!tabular.empty() && !IsFalse(tabular)) options |= benchmark::ConsoleReporter::OO_Tabular;
  return static_cast<benchmark::ConsoleReporter::OutputOptions>(options);
}

bool NonConsoleFormatRequested(int argc, char** argv) {
  const std::string format = FlagValue(argc, argv, "benchmark_format");
  return !format.empty() && format != "console";
}

}  // namespace ntpb
