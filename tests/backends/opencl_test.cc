// The OpenCL backend on whatever device the machine has (PoCL's CPU device in CI): every tensor
// of every shipped topology against the Eigen reference, the transfers as copy steps, device
// times from profiling events, the device spec, and a bad id named after the run. Each op alone
// is checked in every_backend_test.cc. A machine with no OpenCL device skips, saying why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "src/backends/opencl/cl_runtime.h"
#include "src/backends/opencl/program_cache.h"
#include "src/topology/numeric_outputs.h"
#include "tests/backends/op_cases.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

constexpr double kF32Tolerance = 1e-4;

// The reason to skip when this build or machine has no OpenCL device; "" when it has one.
std::string NoDevice() {
  const Backend* b = FindBackend("opencl");
  if (!b) return BackendUnavailableReason("opencl");
  std::string why;
  if (b->Devices(&why).empty()) return why;
  return "";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}
// Contexts of the cache test, alive until the process ends (the cache keeps their programs).
std::vector<opencl::Context> contexts;

#define SKIP_WITHOUT_OPENCL()                             \
  if (const std::string why = NoDevice(); !why.empty()) { \
    GTEST_SKIP() << "no OpenCL device: " << why;          \
  }

class OpenclTopology : public ::testing::TestWithParam<TopologyCase> {};

TEST_P(OpenclTopology, EveryTensorMatchesTheEigenReference) {
  SKIP_WITHOUT_OPENCL();
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/" + GetParam().file)), GetParam().params);
  RunConfig config;
  config.seed = 3;
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
  const std::unique_ptr<Executable> exe = FindBackend("opencl")->Compile(t, config);
  reference->Run();
  exe->Run();
  for (const ResolvedLayer& l : t.layers) {
    const std::string out = NumericStandIn(t, l.outputs[0]);
    EXPECT_LT(MaxRelativeError(exe->ReadTensor(out), reference->ReadTensor(out)), kF32Tolerance)
        << "layer " << l.name;
  }
  // Discrete outputs (a CTC decoder's labels) too: the decoder runs the reference's host code on
  // the same probabilities, so the labels agree wherever no two prefixes tie within 1e-4.
  for (const std::string& out : t.outputs) {
    EXPECT_EQ(exe->ReadTensor(out).size(), reference->ReadTensor(out).size()) << out;
  }
  // Every step the backend added is a transfer, shown as a copy inlay.
  for (const StepInfo& s : exe->steps()) {
    if (s.layer < 0) {
      EXPECT_TRUE(s.inlay && s.op == "copy") << s.name;
      EXPECT_TRUE(s.kernel == "host to device" || s.kernel == "device to host") << s.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, OpenclTopology, ::testing::ValuesIn(ShippedTopologyCases()),
                         [](const ::testing::TestParamInfo<TopologyCase>& info) {
                           return TopologyCaseName(info.param);
                         });

// The GEMM kernel auto does not pick on this device (the tiled one for GPUs on a CPU device,
// and the other way round): every op case that runs a GEMM, against the reference.
TEST(OpenclBackend, BothGemmKernelsMatchTheEigenReference) {
  SKIP_WITHOUT_OPENCL();
  for (const char* kernel : {"tiled", "vector"}) {
    for (const OpCase& c : OpCases()) {
      if (c.op != "dense" && c.op != "matmul" && c.op != "conv2d" && c.op != "conv_transpose" &&
          c.op != "lstm" && c.op != "gru") {
        continue;
      }
      const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
      RunConfig config;
      config.seed = 7;
      config.options["gemm"] = kernel;
      const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
      const std::unique_ptr<Executable> exe = FindBackend("opencl")->Compile(t, config);
      reference->Run();
      exe->Run();
      EXPECT_LT(MaxRelativeError(exe->ReadTensor("y"), reference->ReadTensor("y")), kF32Tolerance)
          << kernel << " " << c.label;
    }
  }
}

ResolvedTopology Speech() {
  return Resolve(ReadTopologyJsonFile(SourcePath("topologies/deepspeech_e2e.json")),
                 {{"N", 1}, {"seconds", 1}, {"n_hidden", 16}, {"beam", 4}});
}

TEST(OpenclBackend, TransfersAreCopyStepsBesideTheLayersTheyFeed) {
  SKIP_WITHOUT_OPENCL();
  const ResolvedTopology t = Speech();
  const std::unique_ptr<Executable> exe = FindBackend("opencl")->Compile(t, {});
  std::vector<std::string> copies;
  for (const StepInfo& s : exe->steps()) {
    if (s.op == "copy" && s.layer < 0) copies.push_back(s.name);
  }
  // MFCC runs on the host from the recording (no transfer in), its features go to the device;
  // the network's probabilities come back for the host's beam search, whose labels stay there.
  const int mfcc = t.LayerIndex("mfcc"), decoder = t.LayerIndex("decode");
  ASSERT_GE(mfcc, 0);
  ASSERT_GE(decoder, 0);
  bool to_device = false, to_host = false;
  for (const StepInfo& s : exe->steps()) {
    if (s.name == t.layers[mfcc].outputs[0] + ".to_device") to_device = true;
    if (s.name == t.layers[decoder].inputs[0] + ".to_host") {
      to_host = true;
      EXPECT_EQ(s.feeds, decoder);
    }
  }
  EXPECT_TRUE(to_device) << ::testing::PrintToString(copies);
  EXPECT_TRUE(to_host) << ::testing::PrintToString(copies);
  EXPECT_EQ(copies.size(), 2u) << ::testing::PrintToString(copies);
}

TEST(OpenclBackend, EveryDeviceStepHasADeviceTimeAndHostStepsNone) {
  SKIP_WITHOUT_OPENCL();
  const ResolvedTopology t = Speech();
  const std::unique_ptr<Executable> exe = FindBackend("opencl")->Compile(t, {});
  EXPECT_TRUE(exe->DeviceStepNanoseconds().empty() ||
              exe->DeviceStepNanoseconds() == std::vector<int64_t>(exe->steps().size(), 0));
  exe->Run();
  const std::vector<int64_t> ns = exe->DeviceStepNanoseconds();
  ASSERT_EQ(ns.size(), exe->steps().size());
  for (size_t i = 0; i < ns.size(); ++i) {
    const StepInfo& s = exe->steps()[i];
    if (s.kernel == "host") {
      EXPECT_EQ(ns[i], 0) << s.name;  // the host's work has no device events
    } else if (s.op != "reshape" && s.op != "flatten" && s.op != "constant") {
      EXPECT_GT(ns[i], 0) << s.name;
    }
  }
  EXPECT_TRUE(FindBackend("eigen")->Compile(t, {})->DeviceStepNanoseconds().empty());
}

TEST(OpenclBackend, ADeviceSpecPicksByIndexOrNameAndABadOneIsNamed) {
  SKIP_WITHOUT_OPENCL();
  std::string why;
  const std::vector<DeviceDescription> devices = FindBackend("opencl")->Devices(&why);
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {{"N", 1}, {"n_hidden", 8}});
  RunConfig config;
  config.device = devices[0].spec;
  EXPECT_NO_THROW(FindBackend("opencl")->Compile(t, config)->Run());
  config.device = "opencl:" + devices[0].platform.substr(0, 4) + ":" + devices[0].name.substr(0, 4);
  EXPECT_NO_THROW(FindBackend("opencl")->Compile(t, config)->Run()) << config.device;
  config.device = "opencl:0:99";
  const Support s = FindBackend("opencl")->Supports(t, config);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("no OpenCL device matches 'opencl:0:99'"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find(devices[0].spec), std::string::npos) << s.reason;  // lists them
  try {
    FindBackend("opencl")->Compile(t, config);
    ADD_FAILURE() << "compiled on a device that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "backend");
  }
}

TEST(OpenclBackend, RefusesPrecisionsItHasNoKernelsFor) {
  SKIP_WITHOUT_OPENCL();
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {{"N", 1}, {"n_hidden", 8}});
  for (Precision p : {Precision::kBf16, Precision::kF16, Precision::kI8}) {
    RunConfig config;
    config.precision = p;
    const Support s = FindBackend("opencl")->Supports(t, config);
    EXPECT_FALSE(s.ok) << PrecisionName(p);
    EXPECT_NE(s.reason.find(PrecisionName(p)), std::string::npos) << s.reason;
  }
}

TEST(OpenclBackend, AnIdOutsideTheTableIsNamedAfterTheRun) {
  SKIP_WITHOUT_OPENCL();
  OpCase c;
  for (const OpCase& k : OpCases()) {
    if (k.op == "embedding") c = k;
  }
  ASSERT_EQ(c.op, "embedding");
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  const std::unique_ptr<Executable> exe = FindBackend("opencl")->Compile(t, {});
  std::vector<float> ids = exe->ReadTensor("x0");
  ids[1] = 1e6f;
  exe->WriteTensor("x0", ids);
  try {
    exe->Run();
    ADD_FAILURE() << "a bad id ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.layer(), t.layers.back().name);
    EXPECT_NE(e.message().find("at position 1"), std::string::npos) << e.what();
  }
  ids[1] = 0;
  exe->WriteTensor("x0", ids);
  EXPECT_NO_THROW(exe->Run());  // the flag was cleared
}

// A new context misses the in-memory cache as a new process would; the disk entry serves it,
// and an entry the driver refuses is rebuilt from source and replaced.
TEST(OpenclProgramCache, ANewContextLoadsTheBinaryFromDiskAndABadEntryIsRebuilt) {
  SKIP_WITHOUT_OPENCL();
  const std::string dir = ::testing::TempDir() + "ntpb_opencl_cache_" + std::to_string(getpid());
  setenv("NTPB_CACHE_DIR", dir.c_str(), 1);
  const opencl::DeviceInfo device = opencl::SelectDevice("");
  const std::string source = "kernel void one(global float* x) { x[get_global_id(0)] = 1.0f; }";
  auto build = [&] {
    cl_int status = CL_SUCCESS;
    opencl::Context context(clCreateContext(nullptr, 1, &device.device, nullptr, nullptr, &status));
    opencl::Check(status, "clCreateContext");
    const opencl::BuiltProgram p = opencl::BuildProgram(device, context.get(), source, "");
    contexts.push_back(std::move(context));  // programs live as long as the process's cache
    return p;
  };
  const opencl::BuiltProgram first = build();
  EXPECT_EQ(first.origin, opencl::ProgramOrigin::kSource);
  ASSERT_FALSE(first.cache_file.empty());
  EXPECT_EQ(first.cache_file.rfind(dir + "/opencl/", 0), 0u) << first.cache_file;
  const std::string binary = ReadFile(first.cache_file);
  EXPECT_FALSE(binary.empty());
  EXPECT_EQ(build().origin, opencl::ProgramOrigin::kDisk);
  WriteFile(first.cache_file, "not a binary");
  EXPECT_EQ(build().origin, opencl::ProgramOrigin::kSource);
  EXPECT_EQ(ReadFile(first.cache_file), binary);
  setenv("NTPB_OPENCL_CACHE", "off", 1);
  const opencl::BuiltProgram off = build();
  EXPECT_EQ(off.origin, opencl::ProgramOrigin::kSource);
  EXPECT_TRUE(off.cache_file.empty());
  unsetenv("NTPB_OPENCL_CACHE");
  unsetenv("NTPB_CACHE_DIR");
}

}  // namespace
}  // namespace ntpb::testing
