// Built OpenCL programs, kept as a framework's kernel cache keeps them: in memory for the
// process (one build per context and build options), and on disk as the device's binary, keyed by
// platform, device, driver version, source and options, so a second process (the next benchmark,
// the next CI job on the same machine) skips the compiler. A binary the driver refuses is rebuilt
// from source and replaced.
#pragma once

#include <string>

#include "src/backends/opencl/cl_runtime.h"

namespace ntpb::opencl {

enum class ProgramOrigin { kMemory, kDisk, kSource };

struct BuiltProgram {
  cl_program program = nullptr;  // owned by the cache, alive for the process
  ProgramOrigin origin = ProgramOrigin::kSource;
  std::string cache_file;  // the disk entry, "" when the disk cache is off or not writable
};

// Builds (or finds) `source` with `options` for `device` in `context`. A build error throws
// ntpb::Error with the driver's log. NTPB_OPENCL_CACHE=off turns the disk cache off.
BuiltProgram BuildProgram(const DeviceInfo& device, cl_context context, const std::string& source,
                          const std::string& options);

}  // namespace ntpb::opencl
