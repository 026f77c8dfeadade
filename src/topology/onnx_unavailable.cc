// Built in place of onnx_reader.cc when NTPBENCH_WITH_ONNX is OFF: an .onnx file gets one clear
// error instead of a parse.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ntpbench/error.h"
#include "ntpbench/onnx_format.h"
#include "ntpbench/tensor_file.h"

namespace ntpb {
namespace {

const char* const kWhy =
    "this ntpbench was built without ONNX support (configure with -DNTPBENCH_WITH_ONNX=ON, "
    "libonnx-dev and libprotobuf-dev installed)";

}  // namespace

Topology ReadOnnxFile(const std::string& path, const OnnxLimits&) {
  // A missing file is the first thing to say, as with ONNX support.
  if (access(path.c_str(), R_OK) != 0) {
    throw Error(path, "", "", std::string("cannot read: ") + std::strerror(errno));
  }
  throw Error(path, "", "", kWhy);
}

Topology ParseOnnx(const std::string&, const std::string& file, const OnnxLimits&) {
  throw Error(file, "", "", kWhy);
}

TensorValues ParseOnnxTensor(const std::string&, const std::string& file) {
  throw Error(file, "", "", kWhy);
}

std::string OnnxCoverageMarkdown() { return std::string(kWhy) + "\n"; }

}  // namespace ntpb
