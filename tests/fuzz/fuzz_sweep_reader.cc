// libFuzzer target: any bytes as a sweep results file (`ntpbench sweep -o`), read as `report` and
// `sweep --resume` read one, then every point looked up by its id. Only ntpb::Error may come out;
// anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/error.h"
#include "ntpbench/sweep_results.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ntpb::SweepResults r = ntpb::ParseSweepResults(
        std::string(reinterpret_cast<const char*>(data), size), "fuzz_sweep.json");
    for (const ntpb::SweepPointResult& p : r.points) {
      if (r.Find(p.id) == nullptr) __builtin_trap();  // a point it holds must be found
    }
  } catch (const ntpb::Error&) {
  }
  return 0;
}
