// A backend module as module_backend.h describes it, built twice by tests/CMakeLists.txt: once
// for this build of ntpbench and once claiming another build (STUB_MODULE_BUILD).
#include "ntpbench/backend.h"
#include "ntpbench/error.h"

namespace {

class StubBackend : public ntpb::Backend {
 public:
  std::string name() const override { return "stubmod"; }
  std::string version() const override { return "stub module " STUB_MODULE_BUILD; }
  ntpb::Support Supports(const ntpb::ResolvedTopology&, const ntpb::RunConfig&) const override {
    return {false, "the stub module runs nothing"};
  }
  std::unique_ptr<ntpb::Executable> Compile(const ntpb::ResolvedTopology& t,
                                            const ntpb::RunConfig&) const override {
    throw ntpb::Error(t.file, "", "backend", "the stub module runs nothing");
  }
};

}  // namespace

extern "C" const char* ntpbench_module_build() { return STUB_MODULE_BUILD; }

extern "C" const ntpb::Backend* ntpbench_module_backend() {
  static const StubBackend backend;
  return &backend;
}
