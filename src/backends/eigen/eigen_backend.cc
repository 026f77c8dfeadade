#include "src/backends/eigen/eigen_backend.h"

#include <Eigen/Core>
#include <cstring>
#include <memory>
#include <set>

#include "ntpbench/error.h"
#include "src/backends/common/attention_geometry.h"
#include "src/backends/common/quantization.h"
#include "src/backends/eigen/kernels.h"
#include "src/backends/random_data.h"

namespace ntpb {
namespace eigen {

const KernelTable& Kernels() {
  static const KernelTable table = [] {
    KernelTable t;
    AddDenseKernels(&t);
    AddConvKernels(&t);
    AddPoolingKernels(&t);
    AddNormalizationKernels(&t);
    AddElementwiseKernels(&t);
    AddShapeKernels(&t);
    AddReduceKernels(&t);
    AddResizeKernels(&t);
    AddEmbeddingKernels(&t);
    AddInlayKernels(&t);
    AddRecurrentKernels(&t);
    AddAttentionKernels(&t);
    return t;
  }();
  return table;
}

namespace {

// bf16 and f16 are stored, not computed: every value is rounded to the format (round to nearest
// even) where it is stored — weights, graph inputs, each step's output — and the arithmetic is
// f32, as a framework's f16 storage with f32 accumulation. The other backends' reference for
// accuracy, not for speed (the rounding costs time an f32 run does not spend).
void RoundToStorage(Precision precision, float* data, int64_t n) {
  Eigen::Map<Eigen::ArrayXf> values(data, n);
  if (precision == Precision::kF16) {
    values = values.cast<Eigen::half>().cast<float>();
  } else if (precision == Precision::kBf16) {
    values = values.cast<Eigen::bfloat16>().cast<float>();
  }
}

class EigenExecutable : public Executable {
 public:
  EigenExecutable(const ResolvedTopology& t, const RunConfig& config)
      : threads_(EffectiveThreads(config)), precision_(config.precision), reach_(ShiftReach(t)) {
    for (const auto& [name, shape] : t.inputs) {
      float* p = Allocate(name, NumElements(shape));
      const std::vector<float> v = GraphInputValues(config, t, name, shape);
      std::copy(v.begin(), v.end(), p);
      // Token ids stay exact: a framework keeps them as integers whatever the precision (f16
      // holds integers exactly up to 2048 only, bf16 up to 256).
      if (t.integer_inputs.count(name)) continue;
      RoundToStorage(precision_, p, static_cast<int64_t>(v.size()));
      inputs_.insert(name);
    }
    for (const ResolvedLayer& l : t.layers) {
      const int index = static_cast<int>(&l - t.layers.data());
      StepInfo step;
      step.name = l.name;
      step.op = l.op;
      step.layer = index;
      step.inlay = l.inlay;
      steps_.push_back(step);
      if (l.is_view) {  // shares the input's storage
        tensors_[l.outputs[0]] = tensors_.at(l.inputs[0]);
        kernels_.push_back([] {});
        stored_.push_back({});
        continue;
      }
      KernelArgs args{l, {}, nullptr, {}, {}, threads_, &scratch_, &t, &position_shift_};
      for (const std::string& in : l.inputs) args.inputs.push_back(tensors_.at(in).data);
      stored_.emplace_back();
      for (size_t o = 0; o < l.outputs.size(); ++o) {
        args.outputs.push_back(Allocate(l.outputs[o], NumElements(l.output_shapes[o])));
        stored_.back().push_back(tensors_.at(l.outputs[o]));
      }
      args.output = args.outputs[0];
      for (size_t i = 0; i < l.weights.size(); ++i) {
        const bool given = i < l.weight_values.size() && l.weight_values[i];
        const std::vector<float> v =
            given ? *l.weight_values[i] : RandomWeight(config.seed, l.name, l.weights[i]);
        float* p = NewBuffer(v.size());
        if (IsWeightOnly(precision_) && l.weights[i].weight_only_quantized) {
          const std::vector<float> q = Dequantized(
              QuantizeByGroups(v, l.weights[i].shape[0], l.weights[i].shape[1], precision_));
          std::copy(q.begin(), q.end(), p);
        } else {
          std::copy(v.begin(), v.end(), p);
        }
        RoundToStorage(precision_, p, static_cast<int64_t>(v.size()));
        args.weights.push_back(p);
      }
      auto it = Kernels().find(l.op);
      if (it == Kernels().end()) {
        throw Error(t.file, l.name, "op", "the eigen backend has no kernel for op '" + l.op + "'");
      }
      kernels_.push_back(it->second(args));
    }
    scratch_.Allocate();
  }

  const std::vector<StepInfo>& steps() const override { return steps_; }

  void RunStep(std::size_t index) override {
    if (index == 0) Eigen::setNbThreads(threads_);
    kernels_[index]();
    if (precision_ != Precision::kF32) {
      for (const Buffer& out : stored_[index]) RoundToStorage(precision_, out.data, out.size);
    }
  }

  void WriteTensor(const std::string& name, const std::vector<float>& values) override {
    const Buffer& b = Find(name);
    if (static_cast<int64_t>(values.size()) != b.size) {
      throw Error(
          "", "", name,
          "expected " + std::to_string(b.size) + " values, got " + std::to_string(values.size()));
    }
    std::copy(values.begin(), values.end(), b.data);
    if (inputs_.count(name)) RoundToStorage(precision_, b.data, b.size);
  }

  std::vector<float> ReadTensor(const std::string& name) const override {
    const Buffer& b = Find(name);
    return std::vector<float>(b.data, b.data + b.size);
  }

  int64_t workspace_bytes() const override { return scratch_.bytes(); }

  void SetPositionShift(int64_t shift) override {
    CheckPositionShift(shift, reach_);
    position_shift_ = shift;
  }

 private:
  struct Buffer {
    float* data = nullptr;
    int64_t size = 0;
  };

  float* Allocate(const std::string& name, int64_t n) {
    float* p = NewBuffer(static_cast<size_t>(n));
    tensors_[name] = {p, n};
    return p;
  }
  float* NewBuffer(size_t n) {
    storage_.emplace_back(n, 0.0f);  // moving the outer vector keeps each buffer where it is
    return storage_.back().data();
  }
  const Buffer& Find(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error("", "", name, "no tensor named '" + name + "'");
    return it->second;
  }

  int threads_;
  Precision precision_;
  int64_t position_shift_ = 0;
  int64_t reach_ = 0;             // how far a shift may go (ShiftReach)
  std::set<std::string> inputs_;  // graph inputs of reals: rounded where they are written
  std::vector<std::vector<Buffer>> stored_;  // per step, its outputs (none for a view)
  Scratchpad scratch_;
  std::vector<AlignedFloats> storage_;
  std::map<std::string, Buffer> tensors_;
  std::vector<StepInfo> steps_;
  std::vector<Kernel> kernels_;
};

class EigenBackend : public Backend {
 public:
  std::string name() const override { return "eigen"; }
  std::string version() const override {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
  }

  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    if (config.precision == Precision::kI8) {
      return {false,
              "the eigen reference backend runs f32, bf16 and f16 as stored values, and w8/w4 "
              "as their dequantized weights, not i8"};
    }
    for (const ResolvedLayer& l : t.layers) {
      if (!l.is_view && !Kernels().count(l.op)) {
        return {false,
                "the eigen backend has no kernel for op '" + l.op + "' (layer " + l.name + ")"};
      }
    }
    return {};
  }

  std::string PrecisionPath(Precision precision) const override {
    if (IsWeightOnly(precision)) {
      return std::string("dense weights as int") + std::to_string(WeightOnlyBits(precision)) +
             " in groups of " + std::to_string(kWeightGroup) +
             " inputs, multiplied dequantized in f32 (for accuracy, not speed)";
    }
    if (precision != Precision::kF16 && precision != Precision::kBf16) return "";
    return std::string(PrecisionName(precision)) +
           " storage, f32 arithmetic (values rounded where " + "stored; for accuracy, not speed)";
  }

  std::unique_ptr<Executable> Compile(const ResolvedTopology& t,
                                      const RunConfig& config) const override {
    const Support s = Supports(t, config);
    if (!s.ok) throw Error(t.file, "", "backend", s.reason);
    return std::make_unique<EigenExecutable>(t, config);
  }
};

}  // namespace
}  // namespace eigen

const Backend* EigenBackendInstance() {
  static const eigen::EigenBackend backend;
  return &backend;
}

}  // namespace ntpb
