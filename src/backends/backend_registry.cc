// The one place that lists the backends: adding a backend adds a line here.
#include <thread>

#include "ntpbench/backend.h"
#include "src/backends/eigen/eigen_backend.h"
#include "src/backends/onednn/onednn_backend.h"

namespace ntpb {
namespace {

const std::vector<const Backend*>& Builtin() {
  static const std::vector<const Backend*> backends = {EigenBackendInstance(),
                                                       OnednnBackendInstance()};
  return backends;
}

}  // namespace

int EffectiveThreads(const RunConfig& config) {
  if (config.threads > 0) return config.threads;
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

const Backend* FindBackend(const std::string& name) {
  for (const Backend* b : Builtin()) {
    if (b->name() == name) return b;
  }
  return nullptr;
}

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const Backend* b : Builtin()) names.push_back(b->name());
  return names;
}

std::string BackendUnavailableReason(const std::string& name) {
  if (FindBackend(name)) return "";
  if (name == "opencl") return "the opencl backend is not part of this build yet";
  return "";
}

}  // namespace ntpb
