// Built in place of src/backends/torch/ when NTPBENCH_WITH_TORCH is OFF: no instance, so the
// registry reports the backend as not part of this build.
#include "src/backends/torch/torch_backend.h"

namespace ntpb {

const Backend* TorchBackendInstance() { return nullptr; }

}  // namespace ntpb
