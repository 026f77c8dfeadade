#include "src/backends/onednn/onednn_backend.h"

#include <cpuid.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "ntpbench/error.h"
#include "src/backends/common/attention_geometry.h"
#include "src/backends/onednn/bf16_dense.h"
#include "src/backends/onednn/builder.h"
#include "src/backends/onednn/inverted_residual.h"
#include "src/backends/onednn/quantization.h"
#include "src/backends/onednn/weight_only_dense.h"
#include "src/backends/random_data.h"

namespace ntpb {
namespace {

// AVX512-FP16 (CPUID leaf 7, EDX bit 23): what oneDNN's f16 kernels compute with.
bool CpuHasAvx512Fp16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (edx >> 23) & 1u;
}

}  // namespace

namespace onednn {
namespace {

// oneDNN's ISA after ONEDNN_MAX_CPU_ISA: what its kernels may use here.
const char* EffectiveIsaName() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

// Whether oneDNN has bf16 kernels at the effective ISA: a small bf16 matmul is asked for (oneDNN
// 2.6 has none below avx512_core; it answers "could not create a primitive descriptor").
bool HasBf16Kernels() {
  static const bool has = [] {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    const dnnl::memory::desc a({16, 16}, dt::bf16, tag::ab), c({16, 16}, dt::f32, tag::ab);
    try {
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, a, c), engine);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

const OpTable& Ops() {
  static const OpTable table = [] {
    OpTable t;
    AddDenseConvOps(&t);
    AddPoolingNormOps(&t);
    AddElementwiseOps(&t);
    AddShapeOps(&t);
    AddRecurrentOps(&t);
    AddReduceOps(&t);
    AddResizeOps(&t);
    AddEmbeddingOps(&t);
    AddInlayOps(&t);
    AddAttentionOps(&t);
    return t;
  }();
  return table;
}

class OnednnExecutable : public Executable {
 public:
  OnednnExecutable(const ResolvedTopology& t, const RunConfig& config)
      : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_), threads_(EffectiveThreads(config)) {
    omp_set_num_threads(threads_);  // primitives pick their kernels for this many threads
    Builder b(engine_, t, config);
    if (b.quantized()) b.SetCalibration(CalibrateWithReference(t, config));
    for (const auto& [name, shape] : t.inputs) {
      memory m(PlainDesc(shape), engine_);
      const std::vector<float> v = GraphInputValues(config, t, name, shape);
      std::memcpy(m.get_data_handle(), v.data(), 4 * v.size());
      b.SetTensor(name, m);
    }
    for (size_t i = 0; i < t.layers.size(); ++i) {
      const ResolvedLayer& l = t.layers[i];
      auto it = Ops().find(l.op);
      if (it == Ops().end()) {
        throw Error(t.file, l.name, "op",
                    "the onednn backend has no builder for op '" + l.op + "'");
      }
      const bool fuse = b.option("fusion") == "on";
      const std::optional<FusionPlan> block = PlanInvertedResidual(
          t, b.uses(), static_cast<int>(i), fuse, config.precision, b.option("inverted_residual"));
      const FusionPlan fusion = block ? *block : PlanFusion(t, b.uses(), static_cast<int>(i), fuse);
      b.Begin(l, static_cast<int>(i), fusion);
      try {
        it->second(b);
        b.End();
      } catch (const dnnl::error& e) {
        throw Error(t.file, l.name, "op", std::string("oneDNN refused the layer: ") + e.what());
      }
      // The builder may absorb fewer layers than planned (FusionPlan::DropResidual).
      const int fused = b.fusion().fused;
      for (int f = 1; f <= fused; ++f) {
        not_kept_[t.layers[i + f - 1].outputs[0]] = {
            l.name,
            "the step '" + l.name +
                "' computes it in registers (fusion; the option onednn.fusion=off keeps it)"};
      }
      i += fused;
    }
    steps_ = b.TakeSteps();
    for (const Step& s : steps_) {
      infos_.push_back(s.info);
      if (!s.info.overwrites.empty()) {
        not_kept_[s.info.overwrites] = {
            s.info.name, "the step '" + s.info.name +
                             "' writes its result over it (a residual sum; onednn.fusion=off "
                             "keeps it)"};
      }
    }
    tensors_ = b.tensors();
    for (const auto& [name, mem] : tensors_) {
      const std::string successor = b.pool().ReusedBy(name);
      if (successor.empty() || not_kept_.count(name)) continue;
      reused_.insert(name);
      not_kept_[name] = {"", "its memory holds '" + successor +
                                 "' after its last reader (onednn.reuse=off keeps every "
                                 "tensor)"};
    }
    activation_bytes_ = b.pool().bytes();
    arena_ = b.arena();
    stored_scales_ = b.stored_scales();
    workspace_ = b.scratchpad_bytes();
    scratch_ = b.TakeScratch();
    position_shift_ = b.TakePositionShift();
    reach_ = ShiftReach(t);
    shift_refused_ = b.shift_refused();
  }

  void SetPositionShift(int64_t shift) override {
    if (shift != 0 && !shift_refused_.empty())
      throw Error("", "", "position shift", shift_refused_);
    CheckPositionShift(shift, reach_);
    *position_shift_ = shift;
  }

  const std::vector<StepInfo>& steps() const override { return infos_; }

  void RunStep(std::size_t index) override {
    if (index == 0) omp_set_num_threads(threads_);
    Step& s = steps_[index];
    for (Work& w : s.work) {
      if (w.host) {
        stream_.wait();  // a no-op on the CPU engine with OpenMP, but host code must see results
        w.host();
      } else {
        w.primitive.execute(stream_, w.args);
      }
    }
  }

  void Wait() override { stream_.wait(); }

  void WriteTensor(const std::string& name, const std::vector<float>& values) override {
    memory m = Find(name);
    const memory::desc plain = PlainDesc(Shape(m.get_desc().dims()));
    if (static_cast<int64_t>(values.size()) != NumElements(Shape(m.get_desc().dims()))) {
      throw Error("", "", name,
                  "expected " + std::to_string(NumElements(Shape(m.get_desc().dims()))) +
                      " values, got " + std::to_string(values.size()));
    }
    memory src(plain, engine_, const_cast<float*>(values.data()));
    dnnl::primitive_attr attr;
    auto scaled = stored_scales_.find(name);
    if (scaled != stored_scales_.end()) attr.set_output_scales(0, {scaled->second});
    dnnl::reorder(dnnl::reorder::primitive_desc(src, m, attr)).execute(stream_, src, m);
    stream_.wait();
  }

  std::vector<float> ReadTensor(const std::string& name) const override {
    return Read(Find(name), name);
  }
  std::vector<float> ReadFreshTensor(const std::string& name) const override {
    return Read(Find(name, /*fresh=*/true), name);
  }

  int64_t workspace_bytes() const override { return workspace_; }
  int64_t activation_bytes() const override { return activation_bytes_; }

 private:
  std::vector<float> Read(memory m, const std::string& name) const {
    const Shape shape(m.get_desc().dims());
    std::vector<float> out(NumElements(shape));
    memory dst(PlainDesc(shape), engine_, out.data());
    dnnl::stream s(engine_);
    // A tensor stored as u8/s8 (i8 runs) reads back as the real values it stands for.
    dnnl::primitive_attr attr;
    auto scaled = stored_scales_.find(name);
    if (scaled != stored_scales_.end()) attr.set_output_scales(0, {1.0f / scaled->second});
    dnnl::reorder(dnnl::reorder::primitive_desc(m, dst, attr)).execute(s, m, dst);
    s.wait();
    return out;
  }

  // `fresh`: read right after the step writing it, when memory reused later still holds it.
  memory Find(const std::string& name, bool fresh = false) const {
    auto it = tensors_.find(name);
    if (it != tensors_.end() && (!not_kept_.count(name) || (fresh && reused_.count(name)))) {
      return it->second;
    }
    auto gone = not_kept_.find(name);
    if (gone != not_kept_.end()) {
      throw Error("", gone->second.first, name,
                  "tensor '" + name + "' is not kept: " + gone->second.second);
    }
    throw Error("", "", name, "no tensor named '" + name + "'");
  }

  // Where the weights, activations and workspace live (Builder::arena): first, so that it goes
  // last, after every memory and step that points into it.
  std::shared_ptr<HugePageArena> arena_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  int threads_;
  std::vector<Step> steps_;
  std::vector<memory> scratch_;              // the steps' own working memory (Builder::Scratch)
  std::shared_ptr<int64_t> position_shift_;  // read by the steps' host code
  int64_t reach_ = 0;                        // how far a shift may go (ShiftReach)
  std::string shift_refused_;
  std::vector<StepInfo> infos_;
  std::map<std::string, memory> tensors_;
  std::map<std::string, float> stored_scales_;  // tensors stored as u8/s8, and their scales
  // Tensors not readable after a run: the step responsible (if one), and why.
  std::map<std::string, std::pair<std::string, std::string>> not_kept_;
  std::set<std::string> reused_;  // not kept only because a later tensor reuses the memory
  int64_t workspace_ = 0, activation_bytes_ = 0;
};

class OnednnBackend : public Backend {
 public:
  std::string name() const override { return "onednn"; }
  std::string version() const override {
    const dnnl_version_t* v = dnnl_version();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch) +
           (v->cpu_runtime == DNNL_RUNTIME_OMP   ? ", OpenMP"
            : v->cpu_runtime == DNNL_RUNTIME_TBB ? ", TBB"
                                                 : "");
  }

  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    if (config.precision == Precision::kF16) {
      // oneDNN's f16 CPU kernels need AVX512-FP16 or AMX-FP16 and arrived in oneDNN 3.0; the
      // reason names what is missing here: the ISA, the library, or both.
      const dnnl_version_t* v = dnnl_version();
      const bool library = v->major >= 3;
      const bool isa = CpuHasAvx512Fp16();
      return {false, std::string("f16 on onednn needs AVX512-FP16 or AMX-FP16 and oneDNN 3.0 or "
                                 "later; here ") +
                         (isa ? "the CPU has AVX512-FP16" : "the CPU has neither") + " and " +
                         (library ? "oneDNN is " : "oneDNN is only ") + std::to_string(v->major) +
                         "." + std::to_string(v->minor) +
                         (library ? " (this backend has no f16 path yet)" : "")};
    }
    if (config.precision == Precision::kBf16 && !HasBf16Kernels()) {
      return {false, std::string("oneDNN has no bf16 kernels for ISA ") + EffectiveIsaName() +
                         " (oneDNN 2.6 needs AVX-512; see ONEDNN_MAX_CPU_ISA)"};
    }
    for (const ResolvedLayer& l : t.layers) {
      if (!Ops().count(l.op)) {
        return {false,
                "the onednn backend has no builder for op '" + l.op + "' (layer " + l.name + ")"};
      }
    }
    return {};
  }

  std::vector<BackendOption> Options() const override {
    return {
        {"fusion",
         {"on", "off"},
         "NTPB_ONEDNN_FUSION",
         "post-op fusion (conv + batchnorm + activation, dense + activation, residual adds)"},
        {"reuse",
         {"on", "off"},
         "NTPB_ONEDNN_REUSE",
         "activation buffers reused once a tensor's last reader has run"},
        {"huge_pages",
         {"on", "off"},
         "NTPB_ONEDNN_HUGE_PAGES",
         "weights, activations and workspace in blocks the kernel is asked to back by 2 MiB pages "
         "(transparent huge pages: madvise); off: ordinary pages"},
        {"winograd",
         {"auto", "off", "large", "medium", "all"},
         "NTPB_ONEDNN_WINOGRAD",
         "Winograd for f32 3x3 stride-1 convolutions: large (oneDNN's kernel at outputs of 28x28 "
         "or more and 64 channels or more), medium (oneDNN's from 14x14), auto (medium where "
         "oneDNN's Winograd runs a 14x14 one of 256 channels in 0.75x its direct kernel's time "
         "or less on this CPU: a short probe of both, else large); ntpbench's kernel under each "
         "of these at 32 output tiles of 2x2 or more over the batch and 32 channels or more; off, "
         "all",
         /*before=*/"",
         /*recorded_before=*/{{"auto", "large"}}},
        {"winograd_kernel",
         {"auto", "onednn", "ntpbench"},
         "NTPB_ONEDNN_WINOGRAD_KERNEL",
         "which Winograd: onednn (oneDNN's, which 2.6 has from AVX-512 on; none below), ntpbench "
         "(F(4x4,3x3) where the output has 32 tiles of 4x4, else F(2x2,3x3): transforms and "
         "products on panels of its own, channels in blocks of 8); auto: oneDNN's where it has "
         "one, else ntpbench's",
         "onednn"},
        {"streamed_conv",
         {"auto", "small", "on", "off"},
         "NTPB_ONEDNN_STREAMED_CONV",
         "f32 convolutions (not grouped or dilated; filters in whole panels of 64 in an AVX-512 "
         "build, 32 in an AVX2 one) on ntpbench's streamed kernel, which reads the next block of "
         "weights while it multiplies the last: on (wherever it can), off; small: where the "
         "kernel is built for AVX-512, the convolution has more than one tap (a 1x1 only where "
         "reading its weights from memory takes a third of its arithmetic's time at `ntpbench "
         "machine`'s ceilings), the output has 64 pixels or fewer over the batch and each thread "
         "gets 64 filters "
         "(ResNet-50's last stage's 3x3s at batch 1); auto: small where the network's weights "
         "outgrow half the last-level cache (read from memory at every inference; "
         "the cache `ntpbench machine` saw by reads, where it measured, else the reported one)",
         "off"},
        {"dense",
         {"auto", "matmul", "conv1x1"},
         "NTPB_ONEDNN_DENSE",
         "f32 and i8 dense layers (and recurrent layers' f32 input projections): matmul, or a "
         "1x1 convolution (weights packed once); auto: the convolution where oneDNN's matmul "
         "has only gemm:jit (no AVX-512), from 4 rows in f32, at every row in i8"},
        {"bf16_dense",
         {"streamed", "matmul"},
         "NTPB_ONEDNN_BF16_DENSE",
         "bf16 dense layers at 1-4 rows (a decode step, batch 1): streamed (ntpbench's panel "
         "kernel, f32 sums), matmul (oneDNN's)"},
        {"f32_dense",
         {"auto", "streamed", "matmul"},
         "NTPB_ONEDNN_F32_DENSE",
         "f32 dense layers at 1-4 rows: streamed (ntpbench's panel kernel), matmul (oneDNN's); "
         "auto: streamed, and at 5-8 rows too where the network's weights outgrow half the "
         "last-level cache (read from memory at every inference)"},
        {"inverted_residual",
         {"auto", "large", "fused", "off"},
         "NTPB_ONEDNN_INVERTED_RESIDUAL",
         "f32 inverted residual blocks (MobileNet v2's 1x1 expansion, 3x3 depthwise, 1x1 "
         "projection, + the input) with fusion on: fused (one step of ntpbench's kernel, a row at "
         "a time, the expanded tensor kept in the cache), off (three convolutions), large (fused "
         "where the block expands its input 4x or more and an image's expanded tensor is 512 KiB "
         "or more); auto: large where the kernel is built for AVX-512, else off",
         "off"},
        {"grouped_layout",
         {"auto", "onednn"},
         "NTPB_ONEDNN_GROUPED_LAYOUT",
         "grouped (not depthwise) convolutions' activations: auto (NHWC where their input is NHWC, "
         "as oneDNN's convolutions around them write it under AVX-512, and oneDNN has a JIT kernel "
         "for it), onednn (oneDNN's pick: a blocked layout or, at few channels a group, its gemm "
         "kernel, with reorders around them)"},
        {"bf16_depthwise",
         {"auto", "widened", "onednn"},
         "NTPB_ONEDNN_BF16_DEPTHWISE",
         "bf16 depthwise convolutions with a relu/relu6 or none: widened (ntpbench's kernel, bf16 "
         "widened to f32 multiply-adds), onednn (oneDNN's); auto: oneDNN's where oneDNN runs bf16 "
         "natively and this CPU's bf16 dot products do at least its f32 FMAs' FLOPs a second (a "
         "short register loop of each says), else widened"},
        {"weight_only",
         {"auto", "int-dot", "widened"},
         "NTPB_ONEDNN_WEIGHT_ONLY",
         "w8/w4 dense layers (and an i8 run's streamed recurrence): int-dot (u8 x s8 dot "
         "products; each group of 32 inputs quantized to 16-bit integers), widened (weights "
         "widened to f32, f32 inputs); auto: int-dot where the build has AVX512-VNNI"},
        {"rnn",
         {"auto", "streamed", "decomposed", "fused"},
         "NTPB_ONEDNN_RNN",
         "LSTM/GRU recurrence: streamed (ntpbench's kernel, f32/bf16 at batch 1-4), decomposed "
         "(a oneDNN matmul plus gate math per step), fused (oneDNN's RNN primitives, f32); auto: "
         "streamed where it applies, else decomposed"},
    };
  }

  // Those PlanSteps reads; bf16_depthwise=auto asks the CPU (WidensBf16Depthwise),
  // winograd_kernel=auto is oneDNN's where it has Winograd kernels at the effective ISA
  // (AVX-512), else ntpbench's (winograd is off where the kernel is oneDNN's and it has none),
  // winograd=auto on oneDNN's kernel medium or large as its probe says (OnednnWinogradSizes),
  // and inverted_residual=auto large where its kernel is built for AVX-512, else off.
  std::map<std::string, std::string> PlanChoices(const RunConfig& config) const override {
    const std::map<std::string, std::string> options = BackendOptionValues(*this, config);
    std::map<std::string, std::string> choices;
    for (const char* name : {"fusion", "winograd", "winograd_kernel", "bf16_dense", "f32_dense",
                             "bf16_depthwise", "inverted_residual", "streamed_conv"}) {
      choices[name] = options.at(name);
    }
    if (choices.at("bf16_depthwise") == "auto") {
      choices["bf16_depthwise"] = AutoTakesOnednnBf16Depthwise() ? "onednn" : "widened";
    }
    if (choices.at("winograd_kernel") == "auto") {
      choices["winograd_kernel"] = HasWinogradKernels() ? "onednn" : "ntpbench";
    }
    if (choices.at("winograd_kernel") == "onednn" && !HasWinogradKernels()) {
      choices["winograd"] = "off";
    }
    if (choices.at("winograd") == "auto" && choices.at("winograd_kernel") == "onednn") {
      choices["winograd"] = OnednnWinogradSizes(EffectiveThreads(config));
    }
    if (choices.at("inverted_residual") == "auto") {
      choices["inverted_residual"] = InvertedResidualBuiltForAvx512() ? "large" : "off";
    }
    return choices;
  }

  // The tensors the compile will hold in a plain layout, as far as a plan can tell: the graph's
  // inputs, the outputs of ops whose builders write plain ones (dense, matmul, attention, norms
  // over the last axis, embedding, slices, recurrences), of views of plain tensors, and of
  // elementwise ops and softmax over plain inputs only. A convolution's or pooling's output may
  // be blocked (oneDNN picks), and a view of it is then a reorder step.
  static std::set<std::string> PlainTensors(const ResolvedTopology& t) {
    static const std::set<std::string> writes_plain = {
        "dense",    "matmul", "attention", "rotary",    "kv_cache", "embedding", "layernorm",
        "rms_norm", "swiglu", "slice",     "transpose", "lstm",     "gru",       "constant"};
    static const std::set<std::string> keeps_layout = {
        "reshape", "flatten",      "relu",    "leaky_relu", "clipped_relu", "sigmoid", "tanh",
        "gelu",    "hard_sigmoid", "softmax", "add",        "sub",          "mul",     "div"};
    std::set<std::string> plain;
    for (const auto& [name, shape] : t.inputs) plain.insert(name);
    for (const ResolvedLayer& l : t.layers) {
      const bool inputs_plain = std::all_of(l.inputs.begin(), l.inputs.end(),
                                            [&](const std::string& in) { return plain.count(in); });
      if (writes_plain.count(l.op) || (keeps_layout.count(l.op) && inputs_plain)) {
        plain.insert(l.outputs.begin(), l.outputs.end());
      }
    }
    return plain;
  }

  // PlanFusion as Compile calls it. A residual add stays a step of its own where the builder
  // drops it (dense_conv.cc): after a bf16 convolution, which fuses the add as a binary post-op
  // reading an f32 operand, or as a sum written over an operand stored u8/s8 in i8 (a bf16
  // operand is neither), after a Winograd convolution whose operand is read again later (its
  // kernel takes the add only as a sum written over it), and after an i8 dense layer (its
  // operand's scale differs). Planned fused, bf16 MobileNet v2 was predicted without its 10
  // adds (13 µs each on a Zen 5 VM); planned apart, i8 was predicted with adds its convolutions
  // had absorbed, and a bf16 transformer with adds its projections had absorbed.
  std::vector<PlannedStep> PlanSteps(const ResolvedTopology& t,
                                     const RunConfig& config) const override {
    const std::map<std::string, std::string> options = BackendOptionValues(*this, config);
    const bool fusion = options.at("fusion") == "on";
    const TensorUses uses = AnalyzeTensorUses(t);
    const int threads = EffectiveThreads(config);
    const Precision precision = config.precision;
    const std::set<std::string> plain = PlainTensors(t);
    std::vector<PlannedStep> steps;
    for (size_t i = 0; i < t.layers.size(); ++i) {
      const ResolvedLayer& l = t.layers[i];
      // No step: a constant is written once, a view of a plain tensor is the same bytes.
      const bool view = l.is_view;
      if (l.op == "constant" || (view && plain.count(l.inputs[0]))) continue;
      if (const std::optional<FusionPlan> block = PlanInvertedResidual(
              t, uses, static_cast<int>(i), fusion, precision, options.at("inverted_residual"))) {
        steps.push_back({static_cast<int>(i), block->fused, "inverted_residual"});
        i += block->fused;
        continue;
      }
      FusionPlan plan = PlanFusion(t, uses, static_cast<int>(i), fusion);
      const bool panels = StreamsBf16Dense(l, precision, options.at("bf16_dense"), plan, threads) ||
                          StreamsF32Dense(t, l, config, options.at("f32_dense"), threads);
      if ((l.op == "conv2d" && precision == Precision::kBf16) ||
          (l.op == "dense" && precision == Precision::kI8)) {
        plan.DropResidual();
      }
      const bool streamed = StreamsConv(t, l, config, plan, options.at("streamed_conv"), threads);
      const WinogradKernel kernel = streamed
                                        ? WinogradKernel::kNone
                                        : WinogradFor(l, precision, plan, options.at("winograd"),
                                                      options.at("winograd_kernel"), threads);
      const bool winograd = kernel != WinogradKernel::kNone;
      if (kernel == WinogradKernel::kOnednn && plan.residual &&
          !CanOverwrite(t, plan.ResidualOperand(), static_cast<int>(i), plan.residual)) {
        plan.DropResidual();
      }
      const bool widened = WidensBf16Depthwise(l, precision, options.at("bf16_depthwise"), plan);
      steps.push_back({static_cast<int>(i), plan.fused,
                       winograd   ? "winograd"
                       : streamed ? "streamed"
                       : panels   ? "panels"
                       : widened  ? "widened"
                                  : ""});
      // ntpbench's streamed convolution is a direct one, at about oneDNN's direct rate.
      steps.back().priced_as_usual = streamed;
      i += plan.fused;
    }
    return steps;
  }

  // Measured: tiny_cnn's scratchpad is 46336 bytes with AVX-512 kernels and 0 with
  // ONEDNN_MAX_CPU_ISA=AVX2, its activations 19456 and 24576 bytes, 64 and 58 allocations.
  bool MemoryPlanIsPortable() const override { return false; }

  int VectorLanes() const override {
    switch (dnnl::get_effective_cpu_isa()) {
      case dnnl::cpu_isa::sse41:
        return 4;
      case dnnl::cpu_isa::avx:
      case dnnl::cpu_isa::avx2:
      case dnnl::cpu_isa::avx2_vnni:
        return 8;
      case dnnl::cpu_isa::avx512_core:
      case dnnl::cpu_isa::avx512_core_vnni:
      case dnnl::cpu_isa::avx512_core_bf16:
      case dnnl::cpu_isa::avx512_core_amx:
        return 16;
      default:
        return 0;
    }
  }

  std::string PrecisionPath(Precision precision) const override {
    const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    const std::string oneDNN = std::string("oneDNN ISA ") + EffectiveIsaName();
    switch (precision) {
      case Precision::kBf16: {
        // Under onednn.bf16_depthwise=auto (the default).
        const std::string depthwise =
            AutoTakesOnednnBf16Depthwise()
                ? "; depthwise convolutions: oneDNN's (bf16 dot products at least as fast as f32 "
                  "FMAs here)"
                : "; depthwise convolutions: ntpbench's, widened to f32";
        if (HasNativeBf16Arithmetic()) {
          return "native bf16 arithmetic (" + oneDNN + ")" +
                 (Bf16DenseHasDotProducts() ? "; dense layers at 1-4 rows: ntpbench's bf16 panels"
                                            : "") +
                 depthwise;
        }
        if (isa == dnnl::cpu_isa::avx512_core || isa == dnnl::cpu_isa::avx512_core_vnni) {
          return "bf16 emulated with AVX-512 f32 arithmetic: no avx512_bf16 here, or "
                 "ONEDNN_MAX_CPU_ISA caps it (" +
                 oneDNN + ")" + depthwise;
        }
        return HasBf16Kernels() ? "bf16 (" + oneDNN + ")" + depthwise
                                : "none: oneDNN has no bf16 kernels for this ISA (" + oneDNN + ")";
      }
      case Precision::kI8:
        if (HasVnniDotProducts()) return "u8 x s8 dot products with VNNI (" + oneDNN + ")";
        return "u8 x s8 without VNNI: multiply, add and widen, 7-bit weights (" + oneDNN + ")";
      case Precision::kF32:
        return "f32 (" + oneDNN + ")";
      case Precision::kW8:
      case Precision::kW4:
        // Unless onednn.weight_only=widened.
        return std::string("dense weights int") + std::to_string(WeightOnlyBits(precision)) +
               " in groups of " + std::to_string(kWeightGroup) + " inputs, " +
               (HasIntegerDotKernel()
                    ? "multiplied by the inputs quantized to 16-bit integers per group (VNNI "
                      "dot products, ntpbench's panel kernel)"
                    : "widened to f32 in registers by ntpbench's panel kernel") +
               "; the rest f32 (" + oneDNN + ")";
      default:
        return "";
    }
  }

  std::unique_ptr<Executable> Compile(const ResolvedTopology& t,
                                      const RunConfig& config) const override {
    const Support s = Supports(t, config);
    if (!s.ok) throw Error(t.file, "", "backend", s.reason);
    return std::make_unique<OnednnExecutable>(t, config);
  }
};

}  // namespace
}  // namespace onednn

const Backend* OnednnBackendInstance() {
  static const onednn::OnednnBackend backend;
  return &backend;
}

}  // namespace ntpb
