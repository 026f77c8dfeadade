// A backend made outside ntpbench, added with one call (RegisterBackend): found by name like the
// built-in ones, planned, run step by step, and checked against the Eigen reference. The toy
// computes the MLP's ops with plain loops; everything it touches is this file. And the build's
// own list of backends, the one line each built-in backend costs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/topology_file.h"
#include "src/backends/random_data.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

class ToyExecutable : public Executable {
 public:
  ToyExecutable(const ResolvedTopology& t, const RunConfig& config) : t_(t) {
    for (const auto& [name, shape] : t.inputs) {
      tensors_[name] = GraphInputValues(config, t, name, shape);
    }
    for (size_t i = 0; i < t.layers.size(); ++i) {
      const ResolvedLayer& l = t.layers[i];
      std::vector<std::vector<float>> weights;
      for (size_t w = 0; w < l.weights.size(); ++w) {
        weights.push_back(l.weight_values[w] ? *l.weight_values[w]
                                             : RandomWeight(config.seed, l.name, l.weights[w]));
      }
      weights_.push_back(weights);
      StepInfo s;
      s.name = l.name;
      s.op = l.op;
      s.layer = static_cast<int>(i);
      s.kernel = "toy loops";
      steps_.push_back(s);
    }
  }
  const std::vector<StepInfo>& steps() const override { return steps_; }
  void RunStep(std::size_t index) override {
    const ResolvedLayer& l = t_.layers[index];
    const std::vector<float>& x = tensors_.at(l.inputs[0]);
    std::vector<float> y;
    if (l.op == "dense") {
      const int64_t k = l.input_shapes[0].back(), n = l.output_shapes[0].back();
      const int64_t m = static_cast<int64_t>(x.size()) / k;
      const std::vector<float>& w = weights_[index][0];
      y.assign(m * n, 0.0f);
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          float sum = weights_[index].size() > 1 ? weights_[index][1][c] : 0.0f;
          for (int64_t j = 0; j < k; ++j) sum += x[r * k + j] * w[j * n + c];
          const bool relu = l.attrs.Has("activation") && l.attrs.Str("activation") == "relu";
          y[r * n + c] = relu ? std::max(0.0f, sum) : sum;
        }
      }
    } else {  // softmax over the last axis
      const int64_t n = l.output_shapes[0].back();
      y = x;
      for (size_t r = 0; r < y.size(); r += n) {
        const float top = *std::max_element(y.begin() + r, y.begin() + r + n);
        float sum = 0;
        for (int64_t c = 0; c < n; ++c) sum += y[r + c] = std::exp(y[r + c] - top);
        for (int64_t c = 0; c < n; ++c) y[r + c] /= sum;
      }
    }
    tensors_[l.outputs[0]] = std::move(y);
  }
  void WriteTensor(const std::string& name, const std::vector<float>& values) override {
    tensors_[name] = values;
  }
  std::vector<float> ReadTensor(const std::string& name) const override {
    return tensors_.at(name);
  }

 private:
  const ResolvedTopology& t_;
  std::vector<StepInfo> steps_;
  std::vector<std::vector<std::vector<float>>> weights_;
  std::map<std::string, std::vector<float>> tensors_;
};

class ToyBackend : public Backend {
 public:
  std::string name() const override { return "toy"; }
  std::string version() const override { return "toy loops 1"; }
  // Two ops, not the catalogue: tests that run every backend skip it where Supports says no
  // (run in one process after this file's test registered it, one compiled an embedding here).
  bool RunsEveryOp() const override { return false; }
  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    if (config.precision != Precision::kF32) return {false, "the toy computes f32 only"};
    for (const ResolvedLayer& l : t.layers) {
      if (l.op != "dense" && l.op != "softmax") {
        return {false, "the toy has no op '" + l.op + "' (layer " + l.name + ")"};
      }
    }
    return {};
  }
  std::unique_ptr<Executable> Compile(const ResolvedTopology& t,
                                      const RunConfig& config) const override {
    return std::make_unique<ToyExecutable>(t, config);
  }
};

TEST(RegisteredBackend, OneCallMakesItABackendLikeTheBuiltInOnes) {
  if (!FindBackend("toy")) RegisterBackend(std::make_unique<ToyBackend>());
  const Backend* toy = FindBackend("toy");
  ASSERT_NE(toy, nullptr);
  const std::vector<std::string> names = BackendNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "toy"), names.end());
  EXPECT_EQ(UnknownBackendProblem("toy"), "");
  // A name is taken once; a name must fit into benchmark names.
  EXPECT_THROW(RegisterBackend(std::make_unique<ToyBackend>()), Error);
  class Badly : public ToyBackend {
    std::string name() const override { return "Toy/2"; }
  };
  EXPECT_THROW(RegisterBackend(std::make_unique<Badly>()), Error);

  const ResolvedTopology mlp =
      Resolve(ReadTopologyFile(SourcePath("topologies/mlp.json")), {{"N", 3}, {"n_hidden", 64}});
  RunConfig config;
  EXPECT_TRUE(toy->Supports(mlp, config).ok);
  const ResolvedTopology cnn =
      Resolve(ReadTopologyFile(SourcePath("topologies/tiny_cnn.json")), {{"N", 1}});
  EXPECT_NE(toy->Supports(cnn, config).reason.find("no op 'conv2d'"), std::string::npos);
  EXPECT_EQ(toy->PlanSteps(mlp, config).size(), mlp.layers.size()) << "the default plan";

  // Number for number against the reference: the same weights and inputs from the seed.
  const std::unique_ptr<Executable> mine = toy->Compile(mlp, config);
  const std::unique_ptr<Executable> reference = FindBackend("eigen")->Compile(mlp, config);
  mine->Run();
  reference->Run();
  const std::string out = mlp.outputs.front();
  EXPECT_LT(MaxRelativeError(mine->ReadTensor(out), reference->ReadTensor(out)), 1e-5);
}

// The built-in backends and the listed modules come from one list the build writes, a line per
// ntpbench_builtin_backend() or ntpbench_backend_module() call (CMakeLists.txt): each backend
// the build has is found by its name, and each it left out says which option builds it.
TEST(BuiltinBackends, TheBuildsListIsWhatTheRegistryKnows) {
  struct Listed {
    std::string name;
    bool built;
    std::string option;
  };
  const std::vector<Listed> listed = {
#define NTPB_BUILT_BACKEND(name, instance) {#name, true, ""},
#define NTPB_LEFT_OUT_BACKEND(name, option) {#name, false, #option},
#include "src/backends/builtin_backends.inc"
#undef NTPB_BUILT_BACKEND
#undef NTPB_LEFT_OUT_BACKEND
  };
  ASSERT_GE(listed.size(), 2u) << "eigen and hetero are always built";
  EXPECT_EQ(listed.front().name, "eigen");
  const std::vector<std::string> names = BackendNames();
  for (const Listed& l : listed) {
    const Backend* b = FindBackend(l.name);
    if (l.built) {
      ASSERT_NE(b, nullptr) << l.name;
      EXPECT_EQ(b->name(), l.name);
      EXPECT_EQ(BackendUnavailableReason(l.name), "");
    } else {
      EXPECT_EQ(b, nullptr) << l.name;
      EXPECT_NE(BackendUnavailableReason(l.name).find("-D" + l.option + "=ON"), std::string::npos)
          << BackendUnavailableReason(l.name);
    }
    EXPECT_EQ(std::count(names.begin(), names.end(), l.name), l.built ? 1 : 0) << l.name;
  }
  // The built ones come first, in the list's order.
  std::vector<std::string> built;
  for (const Listed& l : listed) {
    if (l.built) built.push_back(l.name);
  }
  ASSERT_LE(built.size(), names.size());
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + built.size()), built);
}

}  // namespace
}  // namespace ntpb::testing
