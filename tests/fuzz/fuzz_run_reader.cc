// libFuzzer target: any bytes as a Google Benchmark run file, then compared with itself as its
// own baseline. Only ntpb::Error may come out; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"
#include "ntpbench/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ntpb::RunResults run = ntpb::ParseRunResults(
        std::string(reinterpret_cast<const char*>(data), size), "fuzz_run.json");
    ntpb::Baseline baseline;
    baseline.machine = run.machine;
    baseline.benchmarks = run.benchmarks;
    ntpb::Compare(&baseline, run, ntpb::CompareOptions());
  } catch (const ntpb::Error&) {
  }
  return 0;
}
