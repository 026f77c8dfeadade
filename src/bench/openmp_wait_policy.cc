#include "src/bench/openmp_wait_policy.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace ntpb::bench {
namespace {

constexpr const char* kSpinCount = "10000";
constexpr const char* kMarker = "NTPB_OPENMP_WAIT";  // "set": ntpbench set it; "keep": leave it

bool Set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

}  // namespace

void ApplyOpenMpWaitPolicy(char** argv) {
  if (Set("GOMP_SPINCOUNT") || Set("OMP_WAIT_POLICY") || Set(kMarker)) return;
  // Under valgrind an exec would leave the tool behind.
  if (const char* preload = std::getenv("LD_PRELOAD");
      preload && std::strstr(preload, "vgpreload")) {
    return;
  }
  setenv("GOMP_SPINCOUNT", kSpinCount, 1);
  setenv(kMarker, "set", 1);
  execv("/proc/self/exe", argv);
  // The exec failed (no /proc): run on with libgomp's default, and say so in the context.
  unsetenv("GOMP_SPINCOUNT");
  setenv(kMarker, "failed", 1);
}

std::string OpenMpWaitPolicy() {
  const char* marker = std::getenv(kMarker);
  const bool ours = marker && std::strcmp(marker, "set") == 0;
  for (const char* name : {"GOMP_SPINCOUNT", "OMP_WAIT_POLICY"}) {
    if (Set(name)) {
      return std::string(name) + "=" + std::getenv(name) +
             (ours ? " (ntpbench)" : " (environment)");
    }
  }
  return "libgomp default";
}

}  // namespace ntpb::bench
