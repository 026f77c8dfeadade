#include "src/bench/json_reporter.h"

#include <map>

#include "ntpbench/error.h"
#include "ntpbench/results.h"
#include "src/bench/benchmark_flags.h"
#include "src/common/benchmark_json.h"
#include "src/common/json_text.h"

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
  return json_.ReportContext(context);
}

void JsonReporter::ReportRuns(const std::vector<Run>& runs) {
  json_.ReportRuns(runs);
  // Google Benchmark writes one entry per run, in this order; each gets its description.
  for (const Run& run : runs) {
    const nlohmann::json* description =
        FindRunDescription(run.run_name.function_name + "/" + run.run_name.args);
    nlohmann::json d;  // null: nothing to add
    if (run.run_type == Run::RT_Iteration && !run.error_occurred && description) {
      // Each repetition says whether the machine let it measure (JudgeInterference).
      d = *description;
      std::map<std::string, double> counters;
      for (const auto& [name, counter] : run.counters) counters[name] = counter.value;
      const RunMeasurement m = DecodeCounters(counters);
      if (m.interference) {
        const Reliability r = JudgeInterference(*m.interference);
        d["reliable"] = r.reliable;
        if (!r.reliable) d["unreliable"] = r.Verdict();
      }
    }
    additions_.push_back({run.benchmark_name(), std::move(d)});
  }
}

void JsonReporter::Finalize() {
  json_.Finalize();
  // The whole document, read as JSON (its bare NaN and Infinity as null, which strict readers
  // require), the descriptions added to their entries, written once.
  nlohmann::json document;
  try {
    document = ParseBenchmarkJson(buffer_.str(), "Google Benchmark's JSON");
  } catch (const Error& e) {
    // Not JSON: passed on as written, so what Google Benchmark said is not lost.
    GetErrorStream() << "ntpbench: " << e.what() << "\n";
    GetOutputStream() << buffer_.str();
    buffer_.str("");
    return;
  }
  buffer_.str("");
  nlohmann::json& benchmarks = document["benchmarks"];
  for (std::size_t i = 0; i < additions_.size() && i < benchmarks.size(); ++i) {
    const auto& [name, description] = additions_[i];
    if (description.is_null() || benchmarks[i].value("name", "") != name) continue;
    benchmarks[i]["ntpbench"] = description;
  }
  additions_.clear();
  GetOutputStream() << JsonText(document, 2) << "\n";
  GetOutputStream().flush();
}

bool JsonToConsoleRequested(int argc, char** argv) {
  return FlagValue(argc, argv, "benchmark_format") == "json";
}

bool JsonFileRequested(int argc, char** argv) {
  const std::string format = FlagValue(argc, argv, "benchmark_out_format");
  return !FlagValue(argc, argv, "benchmark_out").empty() && (format.empty() || format == "json");
}

}  // namespace ntpb::bench
