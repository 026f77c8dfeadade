#include "src/bench/json_reporter.h"

#include <map>

#include "ntpbench/results.h"
#include "src/bench/benchmark_flags.h"

namespace ntpb::bench {

namespace {

std::map<std::string, nlohmann::json>& Descriptions() {
  static std::map<std::string, nlohmann::json> descriptions;
  return descriptions;
}

}  // namespace

void RecordRunDescription(const std::string& run_name, nlohmann::json description) {
  Descriptions()[run_name] = std::move(description);
}

const nlohmann::json* FindRunDescription(const std::string& run_name) {
  const auto it = Descriptions().find(run_name);
  return it == Descriptions().end() ? nullptr : &it->second;
}

bool JsonReporter::ReportContext(const Context& context) {
  json_.SetOutputStream(&buffer_);
  json_.SetErrorStream(&GetErrorStream());
  const bool ok = json_.ReportContext(context);
  Pass();
  return ok;
}

void JsonReporter::ReportRuns(const std::vector<Run>& runs) {
  json_.ReportRuns(runs);
  std::string text = buffer_.str();
  buffer_.str("");
  // Google Benchmark's JSONReporter ends each run's object with a line "    }" (its fields are
  // flat and indented further): the description goes in as the object's last field.
  std::size_t at = 0;
  for (const Run& run : runs) {
    at = text.find("\n    }", at);
    if (at == std::string::npos) break;
    const nlohmann::json* description =
        FindRunDescription(run.run_name.function_name + "/" + run.run_name.args);
    if (run.run_type == Run::RT_Iteration && !run.error_occurred && description) {
      // Each repetition says whether the machine let it measure (JudgeInterference).
      nlohmann::json d = *description;
      std::map<std::string, double> counters;
      for (const auto& [name, counter] : run.counters) counters[name] = counter.value;
      const RunMeasurement m = DecodeCounters(counters);
      if (m.interference) {
        const Reliability r = JudgeInterference(*m.interference);
        d["reliable"] = r.reliable;
        if (!r.reliable) d["unreliable"] = r.Verdict();
      }
      const std::string field = ",\n      \"ntpbench\": " + d.dump();
      text.insert(at, field);
      at += field.size();
    }
    at += 6;
  }
  GetOutputStream() << text;
}

void JsonReporter::Finalize() {
  json_.Finalize();
  Pass();
}

void JsonReporter::Pass() {
  GetOutputStream() << buffer_.str();
  buffer_.str("");
}

bool JsonToConsoleRequested(int argc, char** argv) {
  return FlagValue(argc, argv, "benchmark_format") == "json";
}

bool JsonFileRequested(int argc, char** argv) {
  const std::string format = FlagValue(argc, argv, "benchmark_out_format");
  return !FlagValue(argc, argv, "benchmark_out").empty() && (format.empty() || format == "json");
}

}  // namespace ntpb::bench
