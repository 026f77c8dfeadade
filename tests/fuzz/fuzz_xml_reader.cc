// libFuzzer target: any bytes as an NTP-style XML topology, then resolution.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/error.h"
#include "ntpbench/resolve.h"
#include "ntpbench/xml_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ntpb::Topology t =
        ntpb::ParseTopologyXml(std::string(reinterpret_cast<const char*>(data), size), "fuzz.xml");
    ntpb::ResolveLimits limits;
    limits.max_weight_bytes = limits.max_activation_bytes = int64_t{64} << 20;
    ntpb::Resolve(t, {}, limits);
  } catch (const ntpb::Error&) {
  }
  return 0;
}
