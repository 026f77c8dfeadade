#include "src/bench/trace_file.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "ntpbench/chrome_trace.h"
#include "src/common/file_io.h"

namespace ntpb::bench {

namespace {

struct Traces {
  std::string path;
  std::vector<std::pair<std::string, RunMeasurement>> runs;
};

Traces& State() {
  static Traces traces;
  return traces;
}

}  // namespace

void SetTraceFile(const std::string& path) { State().path = path; }

bool Tracing() { return !State().path.empty(); }

void RecordTrace(const std::string& name, RunMeasurement measurement) {
  for (auto& [n, m] : State().runs) {
    if (n == name) {
      m = std::move(measurement);
      return;
    }
  }
  State().runs.emplace_back(name, std::move(measurement));
}

void WriteTraceFile() {
  if (!Tracing()) return;
  std::vector<std::pair<std::string, const RunMeasurement*>> runs;
  for (const auto& [name, m] : State().runs) runs.emplace_back(name, &m);
  WriteFileAtomically(State().path, EncodeChromeTrace(runs).dump() + "\n");
  std::fprintf(stderr,
               "ntpbench: trace of %zu benchmark%s in %s (chrome://tracing, "
               "ui.perfetto.dev)\n",
               runs.size(), runs.size() == 1 ? "" : "s", State().path.c_str());
}

}  // namespace ntpb::bench
