// What the library holds of the torch backend, which is built as a module of its own
// (src/backends/torch/ -> libntpbench_torch.so): its name and options, and the module loaded
// the first time a run uses it. Without the module (NTPBENCH_WITH_TORCH=OFF), no instance: the
// registry says the backend is not part of this build.
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
#ifdef NTPBENCH_MODULE_TORCH
  static const std::unique_ptr<Backend> backend =
      MakeModuleBackend({"torch", TorchBackendOptions()});
  return backend.get();
#else
  return nullptr;
#endif
}

}  // namespace ntpb
