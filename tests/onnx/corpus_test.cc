// The ONNX corpus (tools/onnx_corpus.py): models exported by torch.onnx.export, each with a
// seeded input and PyTorch's own output. Every model must load, run on every backend built in
// (f32, the model's own weights) and match PyTorch's output; its parameter count must match
// PyTorch's. The small models are committed (tests/onnx/corpus); the large ones are generated
// when torch is installed and their folder given in NTPB_ONNX_CORPUS (CTest label onnx-corpus).
//
// Tolerance: the largest absolute difference over the largest absolute value of PyTorch's
// output (a norm-wise relative error) at most 1e-4.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/onnx_format.h"
#include "ntpbench/precision.h"
#include "ntpbench/resolve.h"
#include "src/bench/accuracy.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

constexpr double kTolerance = 1e-4;

std::vector<float> ReadTensorFile(const std::string& path, std::vector<int64_t>* dims) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes.str())) throw std::runtime_error("cannot parse " + path);
  dims->assign(t.dims().begin(), t.dims().end());
  std::vector<float> out;
  const std::string& raw = t.raw_data();
  if (t.data_type() == onnx::TensorProto::FLOAT) {
    out.resize(raw.size() / 4);
    std::memcpy(out.data(), raw.data(), raw.size());
  } else if (t.data_type() == onnx::TensorProto::INT64) {
    for (size_t k = 0; k + 8 <= raw.size(); k += 8) {
      int64_t v;
      std::memcpy(&v, raw.data() + k, 8);
      out.push_back(static_cast<float>(v));
    }
  } else {
    throw std::runtime_error(path + ": unexpected data type");
  }
  return out;
}

// Norm-wise relative error of `got` against `want`.
double RelativeError(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0, scale = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  return std::isfinite(diff) ? diff / std::max(scale, 1e-30) : INFINITY;
}

// The IR merges what PyTorch keeps as two recurrent biases (b_ih + b_hh per gate; GRU keeps
// the new gate's recurrent bias apart): PyTorch's count minus these is the IR's.
int64_t MergedRecurrentBiases(const ResolvedTopology& t) {
  int64_t merged = 0;
  for (const ResolvedLayer& l : t.layers) {
    if (l.op != "lstm" && l.op != "gru") continue;
    const int64_t dirs = l.attrs.Str("direction") == "bidirectional" ? 2 : 1;
    merged += dirs * (l.op == "lstm" ? 4 : 2) * l.attrs.Int("units");
  }
  return merged;
}

// A data set's inputs (input_0.pb, input_1.pb, ...: the graph inputs in order), by name.
using GraphInputs = std::map<std::string, std::vector<float>>;

void WriteInputs(Executable& exe, const GraphInputs& inputs) {
  for (const auto& [name, values] : inputs) exe.WriteTensor(name, values);
}

// Where a backend's result first leaves Eigen's: the first layer whose output differs by more
// than the tolerance (a diagnostic for a failed match).
std::string FirstDivergence(const ResolvedTopology& t, const std::string& backend,
                            const GraphInputs& inputs) {
  RunConfig keep_every_tensor;
  keep_every_tensor.options = {{"fusion", "off"}};
  auto eigen = FindBackend("eigen")->Compile(t, RunConfig{});
  WriteInputs(*eigen, inputs);
  eigen->Run();
  auto other =
      FindBackend(backend)->Compile(t, backend == "onednn" ? keep_every_tensor : RunConfig{});
  WriteInputs(*other, inputs);
  other->Run();
  other->Wait();
  Executable& exe = *other;
  for (const ResolvedLayer& l : t.layers) {
    for (const std::string& out : l.outputs) {
      const double e = RelativeError(exe.ReadTensor(out), eigen->ReadTensor(out));
      if (e > kTolerance) {
        return "; first differs from eigen at layer '" + l.name + "' (" + l.op + "), error " +
               std::to_string(e);
      }
    }
  }
  return "";
}

// bf16 and i8 on the onednn backend, against PyTorch's f32 output: the accuracy a user trades
// for speed, i8 calibrated on the model's own input. Bounds (cosine similarity) below the worst
// measured (docs/onnx.md: bf16 0.99885 MobileNet v2, i8 0.98298 MobileNet v3 small) with room
// for another machine's kernels; a precision the machine lacks is skipped with the reason. i8's
// bound is the path's: without VNNI oneDNN's u8 x s8 products go through 16-bit pair sums with
// 7-bit weights, which costs MobileNet v3 small a cosine of 0.943 (ONEDNN_MAX_CPU_ISA=AVX2 on an
// AVX-512 VNNI machine): a property of that path, reported, not a failure.
constexpr double kMinCosine[] = {0.998, 0.97};  // bf16, i8 with VNNI dot products
constexpr double kMinCosineI8WithoutVnni = 0.90;

std::string LowPrecisionColumn(const ResolvedTopology& t, Precision p, const GraphInputs& inputs,
                               const std::vector<float>& want) {
  const Backend* onednn = FindBackend("onednn");
  if (!onednn) return "-";
  RunConfig config;
  config.precision = p;
  for (const auto& [name, values] : inputs) config.inputs[name] = values;  // i8 calibrates on them
  const Support support = onednn->Supports(t, config);
  if (!support.ok) {
    std::printf("  (%s skipped: %s)\n", PrecisionName(p), support.reason.c_str());
    return "skip";
  }
  auto exe = onednn->Compile(t, config);
  WriteInputs(*exe, inputs);
  exe->Run();
  exe->Wait();
  const AccuracyDelta d = CompareOutputs(exe->ReadTensor(t.outputs[0]), want);
  const std::string path = onednn->PrecisionPath(p);
  const double bound = p == Precision::kBf16                         ? kMinCosine[0]
                       : path.find("with VNNI") != std::string::npos ? kMinCosine[1]
                                                                     : kMinCosineI8WithoutVnni;
  EXPECT_GE(d.cosine, bound) << PrecisionName(p) << " (" << path << "): max relative error "
                             << d.max_rel_err;
  if (d.cosine < kMinCosine[1]) {
    std::printf("  (%s cosine %.4f on this path: %s)\n", PrecisionName(p), d.cosine, path.c_str());
  }
  char s[32];
  std::snprintf(s, sizeof s, "%.6f", d.cosine);
  return s;
}

// One test_data_set_<set> of a corpus model, the model's symbolic dims bound to the sizes the
// set was made at (by their ONNX names: `batch`, `seq`, `T`), every output compared.
void CheckDataSet(const nlohmann::json& m, const Topology& topology, const std::string& dir,
                  int set, const nlohmann::json& bind) {
  const std::string data = dir + "/test_data_set_" + std::to_string(set);
  SCOPED_TRACE(data);
  ParamEnv env;
  for (const auto& [dim, value] : bind.items()) env[dim] = value.get<int64_t>();
  const ResolvedTopology t = Resolve(topology, env);
  GraphInputs inputs;
  std::vector<int64_t> in_dims;  // the first input's, for the table
  for (size_t i = 0; i < t.inputs.size(); ++i) {
    std::vector<int64_t> dims;
    inputs[t.inputs[i].first] = ReadTensorFile(data + "/input_" + std::to_string(i) + ".pb", &dims);
    EXPECT_EQ(t.inputs[i].second, dims) << "input " << i;
    if (i == 0) in_dims = dims;
  }
  EXPECT_FALSE(std::ifstream(data + "/input_" + std::to_string(t.inputs.size()) + ".pb"))
      << "the data set has more inputs than the model";
  std::vector<std::vector<float>> want(t.outputs.size());
  for (size_t o = 0; o < t.outputs.size(); ++o) {
    std::vector<int64_t> out_dims;
    want[o] = ReadTensorFile(data + "/output_" + std::to_string(o) + ".pb", &out_dims);
    EXPECT_EQ(t.shapes.at(t.outputs[o]), out_dims) << "output " << o;
  }
  const TopologyAnalysis a = Analyze(t, Precision::kF32);
  // PyTorch's count, less what the exporter folded away (a batchnorm merged into a conv) and
  // the recurrent biases the IR merges (b_x + b_h is one bias).
  const int64_t framework = m["params"].get<int64_t>();
  const int64_t expected =
      framework - m.value("params_folded_by_exporter", int64_t{0}) - MergedRecurrentBiases(t);
  const int64_t tables = m.value("tables_folded_by_exporter", int64_t{0}),
                tied = m.value("params_tied", int64_t{0});
  if (tables == 0 && tied == 0) {
    EXPECT_EQ(a.total.params, expected);
  } else {
    // An embedding table the exporter folded into the rows it looked up, a tied weight it wrote
    // twice: the file's count lies between these (tools/onnx_corpus.py).
    EXPECT_GE(a.total.params, expected - tables);
    EXPECT_LE(a.total.params, expected + tied);
  }
  // An output that ignores its input would show nothing (tools/onnx_corpus.py checks this).
  EXPECT_GE(m.value("input_sensitivity", 0.0), 10 * kTolerance);
  std::smatch folded;
  const bool has_folded =
      std::regex_search(topology.description, folded, std::regex("(\\d+) of \\d+ nodes folded"));
  EXPECT_TRUE(has_folded) << topology.description;
  std::map<std::string, double> error;
  for (const std::string& backend : BackendNames()) {
    if (FindBackend(backend)->UsesPlacement()) continue;  // hetero: by a placement only
    RunConfig config;
    const Support support = FindBackend(backend)->Supports(t, config);
    // An engine of a fixed operator set (xnnpack) checks the models it has every operator for.
    if (!support.ok && !FindBackend(backend)->RunsEveryOp()) continue;
    if (!support.ok) {
      ADD_FAILURE() << backend << " cannot run it: " << support.reason;
      continue;
    }
    auto exe = FindBackend(backend)->Compile(t, config);
    WriteInputs(*exe, inputs);
    exe->Run();
    exe->Wait();
    for (size_t o = 0; o < t.outputs.size(); ++o) {
      const double e = RelativeError(exe->ReadTensor(t.outputs[o]), want[o]);
      error[backend] = std::max(error[backend], e);
      EXPECT_LE(e, kTolerance) << backend << " output " << o << FirstDivergence(t, backend, inputs);
    }
  }
  auto shown = [&](const std::string& b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1e", error.count(b) ? error[b] : NAN);
    return std::string(error.count(b) ? s : "-");
  };
  const std::string bf16 = LowPrecisionColumn(t, Precision::kBf16, inputs, want[0]);
  const std::string i8 = LowPrecisionColumn(t, Precision::kI8, inputs, want[0]);
  const std::string shape = ShapeToString(in_dims);
  std::printf(
      "%-30s %5d %-7s %-15s %9lld %9lld %8lld %6s %9s %9s %9s %9s %9s %9s\n",
      m["folder"].get<std::string>().c_str(), m["opset"].get<int>(),
      m.value("dynamic_axes", nlohmann::json::object()).empty() ? "static" : "dynamic",
      shape.c_str(), static_cast<long long>(a.total.params), static_cast<long long>(framework),
      static_cast<long long>(m.value("params_folded_by_exporter", int64_t{0})),
      has_folded ? folded[1].str().c_str() : "?", shown("eigen").c_str(), shown("onednn").c_str(),
      shown("torch").c_str(), shown("xnnpack").c_str(), bf16.c_str(), i8.c_str());
}

void CheckCorpus(const std::string& folder) {
  std::ifstream manifest_in(folder + "/corpus.json");
  ASSERT_TRUE(manifest_in) << folder << "/corpus.json is missing";
  const nlohmann::json manifest = nlohmann::json::parse(manifest_in);
  std::printf("%-30s %5s %-7s %-15s %9s %9s %8s %6s %9s %9s %9s %9s %9s %9s\n", "model", "opset",
              "axes", "input", "params", "PyTorch", "exp.fold", "folded", "eigen err", "onednn err",
              "torch err", "xnnpack", "bf16 cos", "i8 cos");
  int checked = 0;
  for (const nlohmann::json& m : manifest["models"]) {
    const std::string dir = folder + "/" + m["folder"].get<std::string>();
    SCOPED_TRACE(dir);
    Topology topology;
    try {
      topology = ReadOnnxFile(dir + "/model.onnx");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "does not load: " << e.what();
      continue;
    }
    const nlohmann::json data_sets =
        m.value("data_sets", nlohmann::json::array({{{"bind", nlohmann::json::object()}}}));
    for (size_t set = 0; set < data_sets.size(); ++set) {
      CheckDataSet(m, topology, dir, static_cast<int>(set), data_sets[set]["bind"]);
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(manifest["models"].size()));
}

TEST(OnnxCorpus, CommittedModelsLoadRunAndMatchPyTorch) {
  CheckCorpus(SourcePath("tests/onnx/corpus"));
}

TEST(OnnxCorpus, GeneratedModelsLoadRunAndMatchPyTorch) {
  const char* folder = std::getenv("NTPB_ONNX_CORPUS");
  if (!folder || !*folder) {
    GTEST_SKIP() << "NTPB_ONNX_CORPUS is not set: the large models are generated by "
                    "tools/onnx_corpus.py --set all when torch is installed (ctest -L onnx-corpus)";
  }
  CheckCorpus(folder);
}

}  // namespace
}  // namespace ntpb::testing
