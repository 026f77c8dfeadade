// libFuzzer target: any bytes as a baseline, then as a signature; the baseline judged against a
// run made of its own benchmarks. Only ntpb::Error may come out; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"
#include "ntpbench/error.h"
#include "src/baseline/signature.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const ntpb::Baseline baseline = ntpb::ParseBaseline(text, "fuzz_baseline.json");
    ntpb::RunResults run;
    run.has_machine = true;
    run.machine = baseline.machine;
    run.benchmarks = baseline.benchmarks;
    ntpb::Compare(&baseline, run, ntpb::CompareOptions());
  } catch (const ntpb::Error&) {
  }
  try {
    ntpb::ParseSignature(text, "fuzz_signature.json");
  } catch (const ntpb::Error&) {
  }
  return 0;
}
