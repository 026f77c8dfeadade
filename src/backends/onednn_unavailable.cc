// Built in place of src/backends/onednn/ when NTPBENCH_WITH_ONEDNN is OFF: no instance, so the
// registry reports the backend as not part of this build.
#include "src/backends/onednn/onednn_backend.h"

namespace ntpb {

const Backend* OnednnBackendInstance() { return nullptr; }

}  // namespace ntpb
