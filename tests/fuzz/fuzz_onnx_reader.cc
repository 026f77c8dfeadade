// libFuzzer target: any bytes as an ONNX model (protobuf parse, checker, shape inference,
// mapping), then resolution, under limits small enough for the fuzzer's memory.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/error.h"
#include "ntpbench/onnx_format.h"
#include "ntpbench/resolve.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ntpb::OnnxLimits onnx_limits;
  onnx_limits.max_weight_bytes = int64_t{16} << 20;  // and constant folding twice that
  onnx_limits.max_nodes = 1000;
  try {
    const ntpb::Topology t = ntpb::ParseOnnx(std::string(reinterpret_cast<const char*>(data), size),
                                             "fuzz.onnx", onnx_limits);
    ntpb::ResolveLimits limits;
    limits.max_weight_bytes = limits.max_activation_bytes = int64_t{64} << 20;
    ntpb::Resolve(t, {}, limits);
  } catch (const ntpb::Error&) {
  }
  return 0;
}
