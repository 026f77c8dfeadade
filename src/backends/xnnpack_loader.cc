// What the library holds of the xnnpack backend, which is built as a module of its own
// (src/backends/xnnpack/ -> libntpbench_xnnpack.so): its name, and the module loaded the first
// time a run uses it. Without the module (NTPBENCH_WITH_XNNPACK=OFF), no instance: the registry
// says the backend is not part of this build.
#include "src/backends/module_backend.h"
#include "src/backends/xnnpack/xnnpack_backend.h"

namespace ntpb {

const Backend* XnnpackBackendInstance() {
#ifdef NTPBENCH_MODULE_XNNPACK
  static const std::unique_ptr<Backend> backend = MakeModuleBackend({"xnnpack", {}, false});
  return backend.get();
#else
  return nullptr;
#endif
}

}  // namespace ntpb
