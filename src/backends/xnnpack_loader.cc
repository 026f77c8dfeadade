// What the library holds of the xnnpack backend, which is built as a module of its own
// (src/backends/xnnpack/ -> libntpbench_xnnpack.so): its name, and the module loaded the first
// time a run uses it. Compiled only with the module (NTPBENCH_WITH_XNNPACK=ON); the registry
// lists it from the build's backend list (CMakeLists.txt, ntpbench_backend_module).
#include "src/backends/module_backend.h"
#include "src/backends/xnnpack/xnnpack_backend.h"

namespace ntpb {

const Backend* XnnpackBackendInstance() {
  static const std::unique_ptr<Backend> backend = MakeModuleBackend({"xnnpack", {}, false});
  return backend.get();
}

}  // namespace ntpb
