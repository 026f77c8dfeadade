// Built in place of src/backends/xnnpack/ when NTPBENCH_WITH_XNNPACK is OFF: no instance, so the
// registry reports the backend as not part of this build.
#include "src/backends/xnnpack/xnnpack_backend.h"

namespace ntpb {

const Backend* XnnpackBackendInstance() { return nullptr; }

}  // namespace ntpb
