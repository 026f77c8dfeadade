// Backends built as modules (module_backend.h): listed with their options before anything is
// loaded, loaded from the first folder holding a module of this build, and refused with the
// reason when none is found or the module is from another build.
#include "src/backends/module_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "ntpbench/error.h"
#include "ntpbench/topology_file.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

using ::testing::HasSubstr;

// The stub modules tests/CMakeLists.txt builds: one of this build, one of another.
const std::string kThisBuild = NTPBENCH_TEST_MODULES "/this_build";
const std::string kOtherBuild = NTPBENCH_TEST_MODULES "/other_build";

class ModuleBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    topology_ = Resolve(ReadTopologyFile(SourcePath("topologies/mlp.json")), {{"N", 1}});
  }
  void TearDown() override { unsetenv("NTPB_BACKEND_MODULE_PATH"); }
  static void SearchIn(const std::string& folders) {
    setenv("NTPB_BACKEND_MODULE_PATH", folders.c_str(), 1);
  }
  ResolvedTopology topology_;
};

TEST_F(ModuleBackendTest, NameAndOptionsNeedNoModule) {
  const BackendOption option{"mode", {"a", "b"}, "NTPB_STUB_MODE", "a or b"};
  const std::unique_ptr<Backend> b = MakeModuleBackend({"absent", {option}});
  EXPECT_EQ(b->name(), "absent");
  ASSERT_EQ(b->Options().size(), 1u);
  EXPECT_EQ(b->Options()[0].env, "NTPB_STUB_MODE");
  // A module is loaded only by a run that uses it, as a driver is started (DetectMachineClass).
  EXPECT_TRUE(b->StartsADriver());
  EXPECT_FALSE(b->HasDevices());
}

TEST_F(ModuleBackendTest, MissingModuleRefusesEveryRunWithWhereItLooked) {
  const std::string folder = MissingPath("modules");
  SearchIn(folder);
  const std::unique_ptr<Backend> b = MakeModuleBackend({"absent", {}});
  const Support s = b->Supports(topology_, RunConfig{});
  EXPECT_FALSE(s.ok);
  EXPECT_THAT(s.reason, HasSubstr("libntpbench_absent.so"));
  EXPECT_THAT(s.reason, HasSubstr(folder));
  EXPECT_THAT(b->version(), HasSubstr("not loaded"));
  EXPECT_THROW(b->Compile(topology_, RunConfig{}), Error);
  // Planning without the module is still one step per layer.
  EXPECT_EQ(b->PlanSteps(topology_, RunConfig{}).size(), topology_.layers.size());
}

TEST_F(ModuleBackendTest, ModuleOfThisBuildIsLoadedOnFirstUse) {
  SearchIn(kThisBuild);
  const std::unique_ptr<Backend> b = MakeModuleBackend({"stubmod", {}});
  const Support s = b->Supports(topology_, RunConfig{});
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.reason, "the stub module runs nothing");
  EXPECT_THAT(b->version(), HasSubstr("stub module"));
}

TEST_F(ModuleBackendTest, ModuleOfAnotherBuildIsRefusedAndTheNextFolderTried) {
  SearchIn(kOtherBuild);
  const Support refused = MakeModuleBackend({"stubmod", {}})->Supports(topology_, RunConfig{});
  EXPECT_FALSE(refused.ok);
  EXPECT_THAT(refused.reason, HasSubstr("is from another build of ntpbench (another-build"));

  SearchIn(kOtherBuild + ":" + kThisBuild);
  EXPECT_EQ(MakeModuleBackend({"stubmod", {}})->Supports(topology_, RunConfig{}).reason,
            "the stub module runs nothing");
}

TEST_F(ModuleBackendTest, AFileThatIsNoModuleIsNamed) {
  const std::string folder = ::testing::TempDir() + "/not_a_module";
  ASSERT_EQ(std::system(("mkdir -p " + folder).c_str()), 0);
  std::ofstream(folder + "/libntpbench_stubmod.so") << "not an ELF file";
  SearchIn(folder);
  const Support s = MakeModuleBackend({"stubmod", {}})->Supports(topology_, RunConfig{});
  EXPECT_FALSE(s.ok);
  EXPECT_THAT(s.reason, HasSubstr("does not load"));
}

}  // namespace
}  // namespace ntpb::testing
