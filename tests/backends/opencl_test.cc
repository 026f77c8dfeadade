// The OpenCL backend on whatever device the machine has (PoCL's CPU device in CI): every tensor
// of every shipped topology against the Eigen reference, the transfers as copy steps, device
// times from profiling events, the device spec, and a bad id named after the run. Each op alone
// is checked in every_backend_test.cc. A machine with no OpenCL device skips, saying why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "src/backends/common/quantization.h"
#include "src/backends/opencl/cl_runtime.h"
#include "src/backends/opencl/program_cache.h"
#include "src/bench/accuracy.h"
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

// The GEMM kernels auto does not pick on this device (the tiled one and the skinny ones for GPUs
// on a CPU device, and the other way round): every op case that runs a GEMM, against the
// reference.
TEST(OpenclBackend, EveryGemmKernelMatchesTheEigenReference) {
  SKIP_WITHOUT_OPENCL();
  std::map<std::string, int> split_steps, column_steps;  // per skinny option
  for (const auto& [kernel, skinny] :
       {std::pair{"tiled", "column"}, std::pair{"tiled", "split"}, std::pair{"vector", "column"}}) {
    for (const OpCase& c : OpCases()) {
      if (c.op != "dense" && c.op != "matmul" && c.op != "conv2d" && c.op != "conv_transpose" &&
          c.op != "lstm" && c.op != "gru") {
        continue;
      }
      const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
      RunConfig config;
      config.seed = 7;
      config.options["gemm"] = kernel;
      config.options["skinny"] = skinny;
      const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
      const std::unique_ptr<Executable> exe = FindBackend("opencl")->Compile(t, config);
      reference->Run();
      exe->Run();
      for (const std::string& y : OpCaseOutputs(c)) {
        EXPECT_LT(MaxRelativeError(exe->ReadTensor(y), reference->ReadTensor(y)), kF32Tolerance)
            << kernel << " " << skinny << " " << c.label << " " << y;
      }
      for (const StepInfo& s : exe->steps()) {
        const bool split = s.kernel.find("gemm_skinny_split") != std::string::npos;
        (split ? split_steps : column_steps)[skinny] += s.kernel.find("gemm_skinny") == 0;
      }
    }
  }
  // The split kernel ran where asked for (a group of 256 work-items: PoCL runs 4096), the
  // column one otherwise.
  EXPECT_GT(split_steps["split"], 0);
  EXPECT_EQ(split_steps["column"], 0);
  EXPECT_GT(column_steps["column"], 0);
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
  RunConfig config;
  config.precision = Precision::kBf16;
  const Support s = FindBackend("opencl")->Supports(t, config);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("bf16"), std::string::npos) << s.reason;
  config.precision = Precision::kF16;
  EXPECT_TRUE(FindBackend("opencl")->Supports(t, config).ok);
}

// f16 keeps integers past 2048 (token ids) exact as f32 buffers, which only an embedding's ids
// read: such an input anything else reads is refused with the layer named, not read as halves.
// Smaller integers (masks, positions) are exact in f16 and stored so.
TEST(OpenclBackend, InF16LargeIntegerInputsFeedEmbeddingsOnly) {
  SKIP_WITHOUT_OPENCL();
  Topology small = SingleLayer("relu", {{2, 3}}, {});
  small.inputs.at(0).integers = IntegerBounds{"0", "2049"};
  RunConfig f16;
  f16.precision = Precision::kF16;
  EXPECT_TRUE(FindBackend("opencl")->Supports(Resolve(small, {}), f16).ok);
  Topology topology = SingleLayer("relu", {{2, 3}}, {});
  topology.inputs.at(0).integers = IntegerBounds{"0", "2050"};
  const ResolvedTopology t = Resolve(topology, {});
  RunConfig config;
  config.precision = Precision::kF16;
  const Support s = FindBackend("opencl")->Supports(t, config);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("layer " + t.layers[0].name + " reads 'x0'"), std::string::npos)
      << s.reason;
}

// i8: u8/s8 activations (per-tensor scales from the calibration run) and s8 weights (per output
// channel, 127 levels), summed exactly in 32-bit integers: the same scheme as oneDNN's with VNNI,
// so the same tolerance (tests/backends/onednn_test.cc). Ops that do not quantize run f32.
constexpr double kI8Tolerance = 2e-2;

// The reference and the opencl executable at `precision`, from one config, each run once.
struct RanBoth {
  std::unique_ptr<Executable> reference, opencl;
};
RanBoth RunBoth(const ResolvedTopology& t, RunConfig config, Precision precision) {
  RanBoth r;
  r.reference = FindBackend("eigen")->Compile(t, config);
  config.precision = precision;
  r.opencl = FindBackend("opencl")->Compile(t, config);
  r.reference->Run();
  r.opencl->Run();
  return r;
}
void ExpectClose(const RanBoth& r, const std::string& tensor, double tolerance, double min_cosine,
                 const std::string& what) {
  const AccuracyDelta d =
      CompareOutputs(r.opencl->ReadTensor(tensor), r.reference->ReadTensor(tensor));
  EXPECT_LT(d.max_rel_err, tolerance) << what;
  EXPECT_GT(d.cosine, min_cosine) << what;
}

class OpenclOpTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(OpenclOpTest, InI8StaysCloseToTheEigenF32Reference) {
  SKIP_WITHOUT_OPENCL();
  const OpCase& c = GetParam();
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  RunConfig config;
  config.seed = 7;
  const RanBoth r = RunBoth(t, config, Precision::kI8);
  for (const std::string& y : OpCaseOutputs(c)) ExpectClose(r, y, kI8Tolerance, 0.999, c.label);
  // A quantized layer computes from an 8-bit copy of its input, made by a quantize step.
  int quantize_steps = 0;
  for (const StepInfo& s : r.opencl->steps()) {
    if (s.op != "quantize") continue;
    ++quantize_steps;
    EXPECT_TRUE(s.inlay && s.layer < 0 && s.feeds >= 0) << s.name;
  }
  EXPECT_EQ(quantize_steps, c.op == "dense" || c.op == "conv2d" ? 1 : 0) << c.label;
}

// f16: tensors stored as half (vload_half / vstore_half, any device), arithmetic f32, as the
// Eigen reference's f16 (each stored value rounded to nearest even). Both round the same stored
// values; they differ where a sum runs in another order, and where the opencl backend keeps an
// intermediate inside a step (im2col columns, a recurrence's gates and cell state) as half too.
constexpr double kF16Tolerance = 1e-2;

TEST_P(OpenclOpTest, InF16MatchesTheEigenF16Reference) {
  SKIP_WITHOUT_OPENCL();
  const OpCase& c = GetParam();
  const ResolvedTopology t = Resolve(OpCaseTopology(c), {});
  RunConfig config;
  config.seed = 7;
  config.precision = Precision::kF16;
  const RanBoth r = RunBoth(t, config, Precision::kF16);
  for (const std::string& y : OpCaseOutputs(c)) ExpectClose(r, y, kF16Tolerance, 0.9999, c.label);
  for (const StepInfo& s : r.opencl->steps()) {
    if (s.layer >= 0) continue;
    EXPECT_TRUE(s.kernel == "host to device, f32 to f16" ||
                s.kernel == "device to host, f16 to f32" ||
                s.kernel == "host to device")  // token ids stay f32
        << s.name << ": " << s.kernel;
  }
  // A GPU's GEMM kernels (tiled, and split for a few rows) store half too; a CPU device's auto
  // picks neither.
  if (c.op == "dense" || c.op == "matmul" || c.op == "lstm" || c.op == "gru") {
    config.options["gemm"] = "tiled";
    config.options["skinny"] = "split";
    const RanBoth gpu = RunBoth(t, config, Precision::kF16);
    for (const std::string& y : OpCaseOutputs(c)) {
      ExpectClose(gpu, y, kF16Tolerance, 0.9999, c.label + " tiled, split");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpenclOpTest, ::testing::ValuesIn(OpCases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           return info.param.label;
                         });

// Every layer's result of every shipped topology in i8 (convolutions of every kind: standard,
// pointwise, depthwise, grouped, strided), against the reference.
TEST_P(OpenclTopology, InI8EveryTensorStaysCloseToTheEigenF32Reference) {
  SKIP_WITHOUT_OPENCL();
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/" + GetParam().file)), GetParam().params);
  RunConfig config;
  config.seed = 3;
  const RanBoth r = RunBoth(t, config, Precision::kI8);
  const double tolerance = GetParam().i8_error_factor * kI8Tolerance;
  for (const ResolvedLayer& l : t.layers) {
    ExpectClose(r, NumericStandIn(t, l.outputs[0]), tolerance, 0.99, "layer " + l.name);
  }
  // Each tensor is quantized once however many layers read it.
  std::set<std::string> quantized;
  for (const StepInfo& s : r.opencl->steps()) {
    if (s.op != "quantize") continue;
    const std::string marker = ".quantize.";  // the step is "<layer>.quantize.<tensor>"
    const std::string tensor = s.name.substr(s.name.find(marker) + marker.size());
    EXPECT_TRUE(quantized.insert(tensor).second) << s.name;
  }
}

// Both attention kernels (a work-item per query for CPU devices, a work-group per query for
// GPUs), whichever auto picks here, on every attention op case (masks, causal, grouped heads)
// and on the shipped decoders, in f32 and f16.
TEST(OpenclBackend, BothAttentionKernelsMatchTheEigenReference) {
  SKIP_WITHOUT_OPENCL();
  std::vector<std::pair<std::string, ResolvedTopology>> cases;
  for (const OpCase& c : OpCases()) {
    if (c.op == "attention") cases.emplace_back(c.label, Resolve(OpCaseTopology(c), {}));
  }
  ASSERT_GE(cases.size(), 3u);
  cases.emplace_back(
      "gpt2 decode",
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/gpt2.json")), {{"N", 2},
                                                                         {"prompt", 1},
                                                                         {"past", 70},
                                                                         {"layers", 1},
                                                                         {"hidden", 64},
                                                                         {"heads", 4},
                                                                         {"ffn", 128},
                                                                         {"vocab", 100},
                                                                         {"context", 128}}));
  std::string why;
  const int64_t local_memory =
      FindBackend("opencl")->Devices(&why).front().local_memory_bytes;  // the default device
  for (const char* kernel : {"query", "group"}) {
    for (const auto& [label, t] : cases) {
      for (const Precision precision : {Precision::kF32, Precision::kF16}) {
        RunConfig config;
        config.seed = 11;
        config.precision = precision;
        config.options["attention"] = kernel;
        const RanBoth r = RunBoth(t, config, precision);
        const std::string out = NumericStandIn(t, t.outputs[0]);
        ExpectClose(r, out, precision == Precision::kF32 ? kF32Tolerance : kF16Tolerance, 0.9999,
                    std::string(kernel) + " " + label + " " + PrecisionName(precision));
        // The kernel asked for ran (the group one needs 18 KiB of local memory; PoCL has 512).
        const bool group = std::string(kernel) == "group" && local_memory >= (18 << 10);
        for (const StepInfo& s : r.opencl->steps()) {
          if (s.op == "attention") {
            EXPECT_EQ(s.kernel, group ? "attention_group" : "attention") << label;
          }
        }
      }
    }
  }
}

// Every layer of every shipped topology in f16 against the Eigen f16 reference (the same
// rounding of weights, inputs and each layer's output).
TEST_P(OpenclTopology, InF16EveryTensorMatchesTheEigenF16Reference) {
  SKIP_WITHOUT_OPENCL();
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/" + GetParam().file)), GetParam().params);
  RunConfig config;
  config.seed = 3;
  config.precision = Precision::kF16;
  const RanBoth r = RunBoth(t, config, Precision::kF16);
  for (const ResolvedLayer& l : t.layers) {
    ExpectClose(r, NumericStandIn(t, l.outputs[0]), kF16Tolerance, 0.999, "layer " + l.name);
  }
}

// The i8 kernels' integer arithmetic, exactly: a layer whose weights are exact in 8 bits (every
// output channel's largest is 1, every weight a multiple of 1/127) fed an input exact at the
// scale the calibration gives (multiples of 1/scale, positive and negative), so quantizing loses
// nothing and the i8 result equals the f32 one up to f32 rounding of the sums. A wrong sign
// extension, panel packing or channel offset is off by far more than 1e-5.
void ExpectI8ExactOn(const std::string& op, const Shape& input, const nlohmann::json& attrs) {
  Topology topology = SingleLayer(op, {input}, attrs);
  const ResolvedTopology plain = Resolve(topology, {});
  const Shape w_shape = plain.layers[0].weights[0].shape;
  // Channels: a dense kernel's [K, units] columns, a conv kernel's [filters, ...] rows.
  const bool dense = op == "dense";
  const int64_t channels = dense ? w_shape[1] : w_shape[0];
  const int64_t per_channel = NumElements(w_shape) / channels;
  auto w = std::make_shared<std::vector<float>>(NumElements(w_shape));
  for (int64_t i = 0; i < static_cast<int64_t>(w->size()); ++i) {
    const int64_t c = dense ? i % channels : i / per_channel;
    const int64_t within = dense ? i / channels : i % per_channel;
    const int q = within == 0 ? 127 : static_cast<int>((i * 37 + c * 11) % 255) - 127;
    (*w)[i] = static_cast<float>(q) / 127.0f;
  }
  topology.layers[0].weights["kernel"] = {w_shape, w};
  const ResolvedTopology t = Resolve(topology, {});
  RunConfig config;
  config.seed = 5;
  const TensorRange range = CalibrateWithReference(t, config).at("x0");
  ASSERT_FALSE(range.unsigned_8bit());  // the seed's input is normal: s8
  const float scale = QuantizationScale(range);
  std::vector<float> x(NumElements(input));
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(static_cast<int>((i * 53) % 255) - 127) / scale;
  }
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(t, config);
  config.precision = Precision::kI8;
  const std::unique_ptr<Executable> exe = FindBackend("opencl")->Compile(t, config);
  reference->WriteTensor("x0", x);
  exe->WriteTensor("x0", x);
  reference->Run();
  exe->Run();
  EXPECT_LT(MaxRelativeError(exe->ReadTensor("y"), reference->ReadTensor("y")), 1e-5) << op;
}

TEST(OpenclBackend, I8KernelsSumExactlyInIntegers) {
  SKIP_WITHOUT_OPENCL();
  // 37 units: a full and a partial panel of 32; 9 rows: a full and a partial block of 8.
  ExpectI8ExactOn("dense", {9, 40}, {{"units", 37}, {"bias", false}});
  // Standard (im2col + gemm_i8 with a partial 16-column tail: 5x5 outputs), pointwise, grouped,
  // depthwise.
  ExpectI8ExactOn("conv2d", {2, 6, 7, 7}, {{"filters", 11}, {"kernel", {3, 3}}, {"bias", false}});
  ExpectI8ExactOn("conv2d", {1, 6, 5, 6}, {{"filters", 10}, {"kernel", {1, 1}}, {"bias", false}});
  ExpectI8ExactOn("conv2d", {1, 8, 6, 6},
                  {{"filters", 8}, {"kernel", {3, 3}}, {"groups", 2}, {"bias", false}});
  ExpectI8ExactOn("conv2d", {1, 4, 6, 6},
                  {{"filters", 8}, {"kernel", {3, 3}}, {"groups", 4}, {"bias", false}});
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
  const std::string dir = TestDir() + "/ntpb_opencl_cache_" + std::to_string(getpid());
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
