// Google Benchmark's JSON, with each benchmark's description (results.h's EncodeDescription:
// its setup, and each step's op, shape, kernel and analytic cost) added to its entry as
// "ntpbench". Google Benchmark's JSONReporter writes the document; this reporter reads it back as
// JSON when the runs are done and adds the descriptions to the entries, so every field Google
// Benchmark writes stays (compare.py reads the file as before) and nothing depends on its layout.
// Non-numbers (NaN, Infinity), which Google Benchmark writes as bare words, become null.
#pragma once

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace ntpb::bench {

// The benchmark that measured it records its description under its run name
// ("family/batch:4"); the reporter writes it into that run's entries.
void RecordRunDescription(const std::string& run_name, nlohmann::json description);
// The description recorded under `run_name`; null when none was.
const nlohmann::json* FindRunDescription(const std::string& run_name);

class JsonReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  benchmark::JSONReporter json_;
  std::ostringstream buffer_;  // what json_ wrote, until Finalize
  // Per reported run, in order: its benchmark name and its description (null: none).
  std::vector<std::pair<std::string, nlohmann::json>> additions_;
};

// Whether argv asks Google Benchmark for JSON: to the console (--benchmark_format=json), or to
// a file (--benchmark_out=FILE, whose format is JSON unless --benchmark_out_format says not).
bool JsonToConsoleRequested(int argc, char** argv);
bool JsonFileRequested(int argc, char** argv);

}  // namespace ntpb::bench
