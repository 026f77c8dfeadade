// libFuzzer target: any bytes as a JSON topology, then resolution. Only ntpb::Error may come
// out; anything else (a crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/resolve.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ntpb::Topology t = ntpb::ParseTopologyJson(
        std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    ntpb::ResolveLimits limits;
    limits.max_weight_bytes = limits.max_activation_bytes = int64_t{64} << 20;
    ntpb::Resolve(t, {}, limits);
  } catch (const ntpb::Error&) {
  }
  return 0;
}
