// What the library holds of the torch backend, which is built as a module of its own
// (src/backends/torch/ -> libntpbench_torch.so): its name and options, and the module loaded
// the first time a run uses it. Compiled only with the module (NTPBENCH_WITH_TORCH=ON); the
// registry lists it from the build's backend list (CMakeLists.txt, ntpbench_backend_module).
#include "src/backends/module_backend.h"
#include "src/backends/torch/torch_backend.h"

namespace ntpb {

std::vector<BackendOption> TorchBackendOptions() {
  return {{"release",
           {"eager", "keep"},
           "NTPB_TORCH_RELEASE",
           "eager: each tensor freed after its last reader, as eager PyTorch; keep: every tensor "
           "kept until the next inference"}};
}

const Backend* TorchBackendInstance() {
  static const std::unique_ptr<Backend> backend =
      MakeModuleBackend({"torch", TorchBackendOptions()});
  return backend.get();
}

}  // namespace ntpb
