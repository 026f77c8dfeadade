// Google Benchmark's JSON, with each benchmark's description (results.h's EncodeDescription:
// its setup, and each step's op, shape, kernel and analytic cost) added to its entry as
// "ntpbench". Everything Google Benchmark writes stays as it writes it, so its tools
// (compare.py) read the file as before; ntpbench's readers (run_file.h) find the rest.
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
  void Pass();  // what Google Benchmark's reporter wrote, on to the output stream
  benchmark::JSONReporter json_;
  std::ostringstream buffer_;
};

// Whether argv asks Google Benchmark for JSON: to the console (--benchmark_format=json), or to
// a file (--benchmark_out=FILE, whose format is JSON unless --benchmark_out_format says not).
bool JsonToConsoleRequested(int argc, char** argv);
bool JsonFileRequested(int argc, char** argv);

}  // namespace ntpb::bench
