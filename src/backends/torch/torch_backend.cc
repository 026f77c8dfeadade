#include "src/backends/torch/torch_backend.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/version.h>

#include <memory>
#include <set>

#include "ntpbench/analysis.h"
#include "ntpbench/error.h"
#include "src/backends/common/attention_geometry.h"
#include "src/backends/random_data.h"
#include "src/backends/torch/steps.h"
#include "src/topology/numeric_outputs.h"

namespace ntpb {
namespace torchb {

const StepTable& Steps() {
  static const StepTable table = [] {
    StepTable t;
    AddComputeSteps(&t);
    AddElementwiseSteps(&t);
    AddLayoutSteps(&t);
    AddSequenceSteps(&t);
    return t;
  }();
  return table;
}

at::Tensor TensorFrom(const std::vector<float>& values, const Shape& shape, at::ScalarType type) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
  std::copy(values.begin(), values.end(), t.data_ptr<float>());
  return type == at::kFloat ? t : t.to(type);
}

namespace {

at::ScalarType TypeOf(Precision precision) {
  return precision == Precision::kBf16 ? at::kBFloat16 : at::kFloat;
}

constexpr const char* kReleaseOption = "release";

// Every tensor is made and used under inference mode (no autograd bookkeeping, as
// `torch.inference_mode()` runs a model); a tensor made there may be written only there.
class TorchExecutable : public Executable {
 public:
  TorchExecutable(const ResolvedTopology& t, const RunConfig& config, bool release)
      : threads_(EffectiveThreads(config)), type_(TypeOf(config.precision)), reach_(ShiftReach(t)) {
    c10::InferenceMode guard;
    for (const auto& [name, shape] : t.inputs) {
      // Token ids stay f32 in every precision (bf16 would round ids above 256).
      const at::ScalarType type = t.integer_inputs.count(name) ? at::kFloat : type_;
      tensors_[name] = TensorFrom(GraphInputValues(config, t, name, shape), shape, type);
    }
    for (const ResolvedLayer& l : t.layers) {
      auto it = Steps().find(l.op);
      if (it == Steps().end()) {
        throw Error(t.file, l.name, "op", "the torch backend has no step for op '" + l.op + "'");
      }
      StepArgs args{l, {}, nullptr, {}, {}, type_, &t, &position_shift_};
      for (const std::string& in : l.inputs) args.inputs.push_back(&tensors_.at(in));
      for (size_t o = 0; o < l.outputs.size(); ++o) {
        at::Tensor& out = tensors_[l.outputs[o]];
        out = at::zeros(l.output_shapes[o], at::TensorOptions().dtype(type_));
        if (!l.is_view) activation_bytes_ += static_cast<int64_t>(out.nbytes());
        args.outputs.push_back(&out);
      }
      args.output = args.outputs[0];
      for (size_t i = 0; i < l.weights.size(); ++i) {
        const bool given = i < l.weight_values.size() && l.weight_values[i];
        args.weights.push_back(TensorFrom(
            given ? *l.weight_values[i] : RandomWeight(config.seed, l.name, l.weights[i]),
            l.weights[i].shape, type_));
      }
      Step step = it->second(args);
      StepInfo info;
      info.name = l.name;
      info.op = l.op;
      info.layer = static_cast<int>(&l - t.layers.data());
      info.inlay = l.inlay;
      info.kernel = step.kernel;
      steps_.push_back(info);
      runs_.push_back(std::move(step.run));
      outputs_.push_back(args.output);
      output_types_.push_back(args.output->scalar_type());
    }
    release_after_.resize(steps_.size());
    if (release) PlanReleases(t);
  }

  const std::vector<StepInfo>& steps() const override { return steps_; }

  void RunStep(std::size_t index) override {
    // Only when it changes: ATen's set_num_threads also recreates its pthreadpool (QNNPACK's
    // and XNNPACK's), whose new threads spin beside the OpenMP ones; per inference that cost
    // 4-12 ms on an mlp of 0.4 ms (2-core AMD EPYC VM).
    if (index == 0 && at::get_num_threads() != threads_) at::set_num_threads(threads_);
    c10::InferenceMode guard;
    runs_[index]();
    // A step whose ATen call promoted its type (an f32 id compared with a bf16 value) or gave
    // booleans (a comparison) hands the next one the type its output was made with.
    at::Tensor& out = *outputs_[index];
    if (out.scalar_type() != output_types_[index]) out = out.to(output_types_[index]);
    for (at::Tensor* dead : release_after_[index]) *dead = at::Tensor();
  }

  void WriteTensor(const std::string& name, const std::vector<float>& values) override {
    c10::InferenceMode guard;
    at::Tensor& t = Find(name);
    if (!t.defined()) throw Error("", "", "", "tensor '" + name + "': freed after its last reader");
    if (static_cast<int64_t>(values.size()) != t.numel()) {
      throw Error("", "", name,
                  "expected " + std::to_string(t.numel()) + " values, got " +
                      std::to_string(values.size()));
    }
    // In place: the steps hold the slot, and a kv_cache's slot is the cache itself.
    t.copy_(TensorFrom(values, Shape(t.sizes().begin(), t.sizes().end()), at::kFloat));
  }

  std::vector<float> ReadTensor(const std::string& name) const override {
    c10::InferenceMode guard;
    const at::Tensor& held = const_cast<TorchExecutable*>(this)->Find(name);
    if (!held.defined()) {
      throw Error("", "", "",
                  "tensor '" + name +
                      "': the torch backend freed it after its last reader, as eager PyTorch "
                      "does (torch.release=keep keeps every tensor)");
    }
    const at::Tensor t = held.to(at::kFloat).contiguous();
    return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
  }

  int64_t activation_bytes() const override { return activation_bytes_; }

  void SetPositionShift(int64_t shift) override {
    CheckPositionShift(shift, reach_);
    position_shift_ = shift;
  }

 private:
  // Eager PyTorch frees a tensor when its last reader is done with it, so the next layer's
  // output may take its memory while it is still in cache; every tensor kept until the next
  // inference instead held mobilenet_v2's 30 MiB of activations and cost it 1.5x (2-core AMD
  // EPYC VM). Kept: graph inputs and outputs (and the numbers behind a discrete one), constants,
  // caches, and tensors nothing reads (a per-step accuracy read takes them after their step).
  void PlanReleases(const ResolvedTopology& t) {
    std::set<std::string> kept(t.outputs.begin(), t.outputs.end());
    for (const std::string& out : NumericOutputs(t)) kept.insert(out);  // accuracy reads them
    for (const auto& input : t.inputs) kept.insert(input.first);
    for (const ResolvedLayer& l : t.layers) {
      if (l.op == "constant" || l.op == "kv_cache") kept.insert(l.outputs[0]);
    }
    // Each slot after its own last reader (analysis.h's reads, as the other backends plan
    // buffers): a view's slot is an ATen view that keeps its source's storage alive by itself.
    for (const auto& [name, reads] : AnalyzeTensorUses(t).readers) {
      if (!kept.count(name)) release_after_[reads.back().layer].push_back(&tensors_.at(name));
    }
  }

  at::Tensor& Find(const std::string& name) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error("", "", name, "no tensor named '" + name + "'");
    return it->second;
  }

  int threads_;
  at::ScalarType type_;
  int64_t position_shift_ = 0;
  int64_t reach_ = 0;  // how far a shift may go (ShiftReach)
  int64_t activation_bytes_ = 0;
  std::map<std::string, at::Tensor> tensors_;  // nodes stay put: steps hold their addresses
  std::vector<StepInfo> steps_;
  std::vector<std::function<void()>> runs_;
  std::vector<at::Tensor*> outputs_;
  std::vector<at::ScalarType> output_types_;
  std::vector<std::vector<at::Tensor*>> release_after_;  // per step, the tensors it read last
};

class TorchBackend : public Backend {
 public:
  std::string name() const override { return "torch"; }
  std::string version() const override {
    return "PyTorch " + std::to_string(TORCH_VERSION_MAJOR) + "." +
           std::to_string(TORCH_VERSION_MINOR) + "." + std::to_string(TORCH_VERSION_PATCH) +
           " (ATen, eager, inference mode)";
  }

  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    if (config.precision == Precision::kI8) {
      return {false,
              "the torch backend runs f32 and bf16: PyTorch's quantized CPU kernels need FBGEMM, "
              "which Debian's libtorch is built without"};
    }
    if (config.precision == Precision::kF16) {
      return {false,
              "the torch backend runs f32 and bf16: PyTorch 1.13 has no f16 convolution or "
              "matrix product on the CPU"};
    }
    if (IsWeightOnly(config.precision)) {
      return {false, std::string("the torch backend runs f32 and bf16: PyTorch 1.13 has no ") +
                         PrecisionName(config.precision) +
                         " (int8/int4 weights, f32 activations) kernels on the CPU"};
    }
    for (const ResolvedLayer& l : t.layers) {
      if (!Steps().count(l.op)) {
        return {false,
                "the torch backend has no step for op '" + l.op + "' (layer " + l.name + ")"};
      }
    }
    return {};
  }

  std::vector<BackendOption> Options() const override { return TorchBackendOptions(); }

  // ATen picks oneDNN or its own kernels by the CPU.
  bool MemoryPlanIsPortable() const override { return false; }

  std::string PrecisionPath(Precision precision) const override {
    if (precision != Precision::kBf16) return "";
    return "bf16 tensors and ATen's bf16 kernels (oneDNN's for convolutions and matrix products "
           "where the CPU has AVX-512)";
  }

  std::unique_ptr<Executable> Compile(const ResolvedTopology& t,
                                      const RunConfig& config) const override {
    const Support s = Supports(t, config);
    if (!s.ok) throw Error(t.file, "", "backend", s.reason);
    const bool release = BackendOptionValues(*this, config).at(kReleaseOption) == "eager";
    return std::make_unique<TorchExecutable>(t, config, release);
  }
};

}  // namespace
}  // namespace torchb

}  // namespace ntpb

// The module's entry points (module_backend.h).
extern "C" const char* ntpbench_module_build() { return NTPBENCH_MODULE_BUILD; }

extern "C" const ntpb::Backend* ntpbench_module_backend() {
  static const ntpb::torchb::TorchBackend backend;
  return &backend;
}
