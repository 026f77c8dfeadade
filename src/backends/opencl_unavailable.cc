// Built in place of src/backends/opencl/ when NTPBENCH_WITH_OPENCL is OFF: no instance, so the
// registry reports the backend as not part of this build.
#include "src/backends/opencl/opencl_backend.h"

namespace ntpb {

const Backend* OpenclBackendInstance() { return nullptr; }

}  // namespace ntpb
