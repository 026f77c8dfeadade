// What the oneDNN op builders share: the engine, every tensor's current memory (possibly in a
// blocked layout a primitive chose), the steps being assembled, and reorders.
//
// Layouts are negotiated: compute primitives are created with format_tag::any and keep the
// layout they choose for their output; a consumer that needs another layout gets a reorder
// step in front of it, named "<layer>.reorder.<tensor>" and shown in breakdowns as an inlay.
// Weights are converted to the chosen layouts once, here, outside the timed loop.
#pragma once

#include <cstring>
#include <dnnl.hpp>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/resolve.h"
#include "src/backends/onednn/activation_pool.h"
#include "src/backends/onednn/huge_page_arena.h"
#include "src/backends/onednn/onednn_backend.h"
#include "src/backends/onednn/quantization.h"

namespace ntpb::onednn {

using dnnl::memory;
using Args = std::unordered_map<int, memory>;

// Row-major format of a given rank (a, ab, abc, ...).
memory::format_tag PlainTag(size_t rank);
memory::desc PlainDesc(const Shape& shape, memory::data_type type = memory::data_type::f32);
memory::dims Dims(const Shape& shape);

// One piece of a step: a primitive with its arguments, or (`host` set) code run on the CPU
// between primitives, e.g. the gate math of a decomposed recurrence.
struct Work {
  dnnl::primitive primitive;
  Args args;
  std::function<void()> host;
};

// Layers the backend folds into a conv2d or dense in front of them (src/backends/onednn/fusion.cc):
// a batchnorm folded into the conv's weights and bias, an activation, then a residual add and
// its activation, run as post-ops.
struct FusionPlan {
  const ResolvedLayer* host = nullptr;
  const ResolvedLayer* batchnorm = nullptr;
  const ResolvedLayer* activation = nullptr;
  const ResolvedLayer* residual = nullptr;
  const ResolvedLayer* residual_activation = nullptr;
  // The rest of an inverted residual block run as one step (PlanInvertedResidual): its
  // depthwise convolution and 1x1 projection, each with the batchnorm and clamp after it; the
  // host is the block's 1x1 expansion, `residual` the add of the block's input.
  const ResolvedLayer* depthwise = nullptr;
  const ResolvedLayer* depthwise_batchnorm = nullptr;
  const ResolvedLayer* depthwise_activation = nullptr;
  const ResolvedLayer* project = nullptr;
  const ResolvedLayer* project_batchnorm = nullptr;
  const ResolvedLayer* project_activation = nullptr;
  int fused = 0;  // how many layers after the host the step absorbs
  // The builder could not fuse the add (the operand's layout differs from the result's): the
  // add and its activation become steps of their own.
  void DropResidual();
  // The add's operand that does not come from the chain.
  const std::string& ResidualOperand() const;
};

// What fusion may absorb after layers[index]. Only a layer that is the sole reader of the
// previous output (not a graph output) is absorbed, and never across a marker boundary, so a
// marker still times exactly its layers. With `enabled` false (option fusion=off) it absorbs
// nothing.
FusionPlan PlanFusion(const ResolvedTopology& t, const TensorUses& uses, int index, bool enabled);

// An inverted residual block from layers[index] as one step of ntpbench's own f32 kernel
// (inverted_residual.h) under the option inverted_residual=`mode` (fused, off; large: where its
// expanded tensor is large, fusion.cc says how large; auto: large where the kernel is built for
// AVX-512, else off), with fusion on: a 1x1 convolution, a 3x3
// depthwise one of stride 1 or 2 and padding 1, a 1x1 one, each with its batchnorm and relu or
// relu6 where they follow, then the add of the block's input where nothing follows it. The
// plan has `depthwise` set; nullopt where the layers are no such block or the option says no.
std::optional<FusionPlan> PlanInvertedResidual(const ResolvedTopology& t, const TensorUses& uses,
                                               int index, bool fusion, Precision precision,
                                               const std::string& mode);

// Whether the step of layers[index], which absorbs `residual` (an add, or none), may write its
// result over `tensor`: every other reader runs earlier, and it is no graph input or output,
// no state an inference appends to, and shares no storage with a view.
bool CanOverwrite(const ResolvedTopology& t, const std::string& tensor, int index,
                  const ResolvedLayer* residual);

// Which Winograd kernel, if any, runs a conv2d (dense_conv.cc says where each wins) at
// `precision`, with the layers `fusion` folds into it, under the options winograd=`mode` and
// winograd_kernel=`kernel`: what the compile builds, and what the plan of steps tells a latency
// prediction (a kind of step of its own). oneDNN's (oneDNN 2.6: from avx512_core) falls back to
// the direct algorithm where oneDNN has none for the post-ops, except for a residual add: its
// kernel adds one only as a sum written over the operand (CanOverwrite), else the add stays a
// step of its own. ntpbench's F(4x4, 3x3) or F(2x2, 3x3) (winograd_3x3.h) needs channels and
// filters in whole blocks of 8 and a relu, relu6 or no activation; it reads a residual operand
// in its own layout. `threads`: the run's, for winograd=auto's probe of this CPU.
enum class WinogradKernel { kNone, kOnednn, kNtpbench };
WinogradKernel WinogradFor(const ResolvedLayer& layer, Precision precision,
                           const FusionPlan& fusion, const std::string& mode,
                           const std::string& kernel, int threads);
constexpr int64_t kWinogradMinChannels = 64;
// Whether oneDNN has f32 Winograd kernels at the effective ISA (asked once, then kept).
bool HasWinogradKernels();
// winograd=auto on oneDNN's kernel, resolved: "medium" (outputs of 14x14 or more) where this
// CPU runs a 14x14 one on it in at most kMediumWinogradShare of its direct kernel's time on
// `threads` threads (a short probe of both, once per thread count), else "large" (28x28 or more).
std::string OnednnWinogradSizes(int threads);
constexpr double kMediumWinogradShare = 0.75;

// Whether a dense layer runs on ntpbench's bf16 panels (bf16_dense.h; dense_conv.cc says where)
// at `precision` under the option bf16_dense=`mode`, with the layers `fusion` folds into it, on
// `threads` threads: what the compile builds, and what the plan of steps tells a latency
// prediction (a kind of step of its own, as Winograd's).
bool StreamsBf16Dense(const ResolvedLayer& layer, Precision precision, const std::string& mode,
                      const FusionPlan& fusion, int threads);

// The last-level cache of the machine `config` names: RunConfig::last_level_cache_bytes (the
// calibrated machine's, or the one `ntpbench machine` saw by reads here), else the one this
// machine reports.
int64_t LastLevelCacheBytes(const RunConfig& config);

// Whether the weights `t` reads per inference (f32) are more than half LastLevelCacheBytes(config):
// read from memory at every inference (at least in part), not kept in the cache from the one
// before.
bool WeightsOutgrowLastLevelCache(const ResolvedTopology& t, const RunConfig& config);

// Whether a dense layer of `t` runs on ntpbench's f32 panels (f32_dense.h; dense_conv.cc says
// where) at `config`'s precision, on the machine it names (RunConfig::last_level_cache_bytes),
// under the option f32_dense=`mode` on `threads` threads: what the compile builds and what the
// plan of steps tells a latency prediction (dense.panels, as the bf16 ones).
bool StreamsF32Dense(const ResolvedTopology& t, const ResolvedLayer& layer, const RunConfig& config,
                     const std::string& mode, int threads);

// Whether a conv2d runs on ntpbench's streamed f32 convolution (streamed_conv.h; dense_conv.cc
// says where) under the option streamed_conv=`mode` (auto, on: wherever it can, off), with the
// layers `fusion` folds into it, on `threads` threads, on the machine `config` names: what the
// compile builds and what the plan of steps tells a latency prediction (conv2d.streamed).
bool StreamsConv(const ResolvedTopology& t, const ResolvedLayer& layer, const RunConfig& config,
                 const FusionPlan& fusion, const std::string& mode, int threads);

// Whether a conv2d runs on ntpbench's bf16 depthwise kernel (bf16_depthwise.h; dense_conv.cc says
// where) at `precision` under the option bf16_depthwise=`mode`, with the layers `fusion` folds
// into it: what the compile builds and what the plan of steps tells a latency prediction.
bool WidensBf16Depthwise(const ResolvedLayer& layer, Precision precision, const std::string& mode,
                         const FusionPlan& fusion);

struct Step {
  StepInfo info;
  std::vector<Work> work;
};

class Builder {
 public:
  Builder(const dnnl::engine& engine, const ResolvedTopology& topology, const RunConfig& config)
      : engine_(engine),
        topology_(&topology),
        config_(config),
        options_(BackendOptionValues(*OnednnBackendInstance(), config)),
        arena_(std::make_shared<HugePageArena>(options_.at("huge_pages") == "on")),
        uses_(AnalyzeTensorUses(topology)),
        pool_(uses_, options_.at("reuse") == "on", arena_.get()),
        act_(config.precision == Precision::kBf16 ? memory::data_type::bf16
                                                  : memory::data_type::f32) {}

  const dnnl::engine& engine() const { return engine_; }
  const ResolvedTopology& topology() const { return *topology_; }
  const RunConfig& config() const { return config_; }
  // The value of one of the backend's options for this run (onednn_backend.cc declares them).
  const std::string& option(const std::string& name) const { return options_.at(name); }
  // The data type activations are computed in (the run's precision; weights are converted to
  // it once, at compile time). Graph inputs stay f32: their first consumer converts them.
  memory::data_type act() const { return act_; }
  memory::desc Plain(const Shape& shape) const { return PlainDesc(shape, act_); }

  // The layer being built, its index, and the layers fused into it.
  void Begin(const ResolvedLayer& layer, int index, const FusionPlan& fusion = {});
  const ResolvedLayer& layer() const { return *layer_; }
  const FusionPlan& fusion() const { return fusion_; }
  void DropResidual() {
    fusion_.DropResidual();
    current_.info.fused = fusion_.fused;
  }
  // The tensor the step writes: the layer's output, or the last fused layer's.
  const std::string& output_name() const;

  // i8 runs: every tensor's range in the f32 reference run, and whether this run quantizes.
  void SetCalibration(Calibration calibration) { calibration_ = std::move(calibration); }
  bool quantized() const { return config_.precision == Precision::kI8; }
  const TensorRange& range(const std::string& tensor) const;
  // The scale of a tensor quantized to u8/s8 (quantization.h).
  float scale(const std::string& tensor) const { return QuantizationScale(range(tensor)); }
  // Whether the step's output is stored quantized (u8/s8 at scale(output_name())): in i8 runs,
  // when every reader quantizes it anyway (conv2d, dense, lstm, gru), or adds it as the
  // residual of a fused conv chain (which sums it scaled back to real values, or dequantizes
  // it), and it is not a graph output. The producer then requantizes in its epilogue and no
  // quantize step is needed.
  bool StoreOutputQuantized() const;
  // Tensors stored quantized, and their scales (reading them back dequantizes).
  const std::map<std::string, float>& stored_scales() const { return stored_scales_; }

  // A tensor's memory as it is; or in `wanted` layout and type (a reorder step is added when
  // it differs: a "quantize" step, scaled by the tensor's calibration, when `wanted` is u8/s8);
  // or plain row-major in act().
  memory Input(const std::string& tensor) const;
  memory Input(const std::string& tensor, const memory::desc& wanted);
  memory PlainInput(const std::string& tensor);

  // Memory for the layer's output (a buffer of the activation pool), and registering it; or
  // registering an existing memory (views).
  memory NewOutput(const memory::desc& desc);
  // The layer's further output `index` (lstm's final cell state), never fused or quantized.
  memory NewOutput(const memory::desc& desc, size_t index);
  // Host code computes in f32: its output is the layer's output when the run is f32, else f32
  // memory of its own that ConvertHostOutput then reorders into the layer's output.
  memory HostOutputF32(const Shape& shape);
  void ConvertHostOutput(const memory& host_output, const Shape& shape);
  // Whether the step may write its result over `tensor`: every other reader runs earlier, and
  // it is no graph input or output and shares no storage with a view.
  bool CanOverwrite(const std::string& tensor) const;
  // The step's result, of `desc` (which may differ from `tensor`'s in type: u8 over s8),
  // written over `tensor` (CanOverwrite).
  memory OutputOver(const std::string& tensor, const memory::desc& desc);
  void SetTensor(const std::string& tensor, const memory& mem) {
    tensors_[tensor] = mem;
    pool_.Share(tensor, mem);
  }

  // The layer's i-th weight as f32 values in the IR's layout (op_catalog.h), from the model or
  // random; then in the layout a primitive wants, reordered once now.
  std::vector<float> WeightValues(size_t i) const { return WeightValues(*layer_, i); }
  std::vector<float> WeightValues(const ResolvedLayer& layer, size_t i) const;
  memory WeightMemory(const std::vector<float>& values, const memory::desc& user,
                      const memory::desc& wanted) {
    return WeightMemory(values.data(), user, wanted);
  }
  memory WeightMemory(const std::vector<int8_t>& values, const memory::desc& user,
                      const memory::desc& wanted) {
    return WeightMemory(values.data(), user, wanted);
  }

  // Adds a primitive to the layer's step, with its scratchpad allocated now (primitives are
  // created with UserScratchpad(), so nothing allocates inside the timed loop).
  void AddPrimitive(const dnnl::primitive_desc_base& pd, const dnnl::primitive& p, Args args);
  // Adds a primitive to the layer's step.
  void Add(const dnnl::primitive& p, Args args) {
    current_.work.push_back({p, std::move(args), nullptr});
  }
  // Adds code run on the CPU, in order with the step's primitives.
  void AddHost(std::function<void()> fn) { current_.work.push_back({{}, {}, std::move(fn)}); }
  // Names the step's implementation where it is not (only) the first primitive's.
  void SetKernel(std::string kernel) { current_.info.kernel = std::move(kernel); }
  // The layer needs no work per inference (a view, a constant).
  void NoStep() { no_step_ = true; }
  // Closes the layer's step.
  void End();

  std::vector<Step> TakeSteps() { return std::move(steps_); }
  const std::map<std::string, memory>& tensors() const { return tensors_; }
  int64_t scratchpad_bytes() const { return scratchpad_bytes_; }
  const ActivationPool& pool() const { return pool_; }
  // Readers and last uses of every tensor (analysis.h), computed once per network.
  const TensorUses& uses() const { return uses_; }
  void CountScratchpad(int64_t bytes) { scratchpad_bytes_ += bytes; }
  // Working memory of a step's own (attention's scores), allocated now, counted as workspace
  // and owned by the executable: views made over it (memories over its pointer) stay valid.
  memory Scratch(const memory::desc& desc) {
    scratch_.push_back(ArenaMemory(desc));
    scratchpad_bytes_ += static_cast<int64_t>(desc.get_size());
    return scratch_.back();
  }
  // Working memory a step needs only while it runs (Winograd's transformed tiles), `offset`
  // bytes into one buffer every such step shares (steps run one at a time), as large as the
  // largest asks: the same bytes stay in the cache from one such step to the next. The memory
  // points into it from TakeScratch on; host code reads the pointer from the memory as it runs.
  memory SharedScratch(const memory::desc& desc, size_t offset);
  std::vector<memory> TakeScratch();
  // The memory the weights, activations and workspace live in: whoever runs the steps keeps it.
  std::shared_ptr<HugePageArena> arena() const { return arena_; }
  // Memory of `desc` in the arena.
  memory ArenaMemory(const memory::desc& desc) {
    return memory(desc, engine_, arena_->Allocate(desc.get_size()));
  }
  // Memory kept between inferences (a kv_cache's rows), of its own: never pooled, never written
  // over by another step; counted as workspace.
  // Starts as zeros, as every backend's cache does.
  memory State(const memory::desc& desc) {
    memory m = Scratch(desc);
    std::memset(m.get_data_handle(), 0, desc.get_size());
    return m;
  }

  // The executable's position shift (Executable::SetPositionShift), read by host code as it runs.
  const int64_t* position_shift() const { return position_shift_.get(); }
  std::shared_ptr<int64_t> TakePositionShift() { return position_shift_; }
  // A step built for the resolved positions only (primitives over a whole cache): why a shift
  // other than 0 is refused.
  void RefuseShift(std::string why) {
    if (shift_refused_.empty()) shift_refused_ = std::move(why);
  }
  const std::string& shift_refused() const { return shift_refused_; }

 private:
  dnnl::engine engine_;
  const ResolvedTopology* topology_;
  RunConfig config_;
  std::map<std::string, std::string> options_;
  // What the executable keeps (weights, activations, workspace) on 2 MiB pages where it can
  // (huge_page_arena.h); before pool_, which allocates from it.
  std::shared_ptr<HugePageArena> arena_;
  TensorUses uses_;  // before pool_, which reads it
  ActivationPool pool_;
  memory::data_type act_;
  const ResolvedLayer* layer_ = nullptr;
  int index_ = -1;
  FusionPlan fusion_;
  Step current_;
  bool no_step_ = false;
  std::vector<Step> steps_;
  std::vector<memory> scratch_;
  std::vector<std::pair<memory, size_t>> shared_scratch_users_;  // each at its offset
  size_t shared_scratch_bytes_ = 0;
  std::shared_ptr<int64_t> position_shift_ = std::make_shared<int64_t>(0);
  std::string shift_refused_;
  memory WeightMemory(const void* values, const memory::desc& user, const memory::desc& wanted);
  // Whether layers[add] is an add that a conv chain absorbs with `tensor` as its other operand.
  bool AddsAsQuantizedResidual(int add, const std::string& tensor) const;

  Calibration calibration_;
  std::map<std::string, float> stored_scales_;
  std::map<std::string, memory> tensors_;
  std::map<std::pair<std::string, std::string>, memory> reordered_;  // (tensor, layout) cache
  int64_t scratchpad_bytes_ = 0;
};

// Whether an f32 (or i8) dense product of `rows` rows (a dense layer, a recurrent layer's input
// projection) runs as a 1x1 convolution over a [1, k, rows, 1] NHWC image (the same bytes as the
// [rows, k] matrix) instead of a matmul whose implementation is `matmul_kernel`. oneDNN 2.6 has
// brgemm matmul kernels only for AVX-512; elsewhere its matmul and inner product call gemm:jit,
// which packs the weights again at every call, while the 1x1 convolution (jit_1x1) packs them
// once, when the layer is built. On a 2-core Zen 3 VM (AVX2), 2 threads: [64 x 784] x
// [784 x 1024] 1.48 ms as a matmul, 0.58 as a convolution; [100 x 2048] x [2048 x 2048]
// 12.8 and 5.7 ms; DeepSpeech's LSTM input projection at H 512, [100 x 512] x [512 x 4096],
// 5.9-6.0 ms as a matmul; from 4 rows up the convolution was faster, at 1 row slower (a GEMV).
// In i8 at any row: gemm:jit's s8 product took mlp's batch-1 layers ~28x longer (0.75-0.86 ms
// against 26-31 us for the network on that VM; jit_uni_int8_1x1:avx2).
// Option onednn.dense: auto (as said), matmul, conv1x1 (wherever the product is f32 or i8).
bool DenseAsConvolution(const Builder& b, int64_t rows, const std::string& matmul_kernel);
// That convolution: [rows, k] x [k, units] over an NHWC [1, k, rows, 1] source into an NHWC
// [1, units, rows, 1] destination (the matrices' bytes), weights {units, k, 1, 1} in the layout
// oneDNN picks (the [k, units] matrix is their iohw), an f32 bias of `units` where `bias`.
dnnl::convolution_forward::desc DenseAsConvolutionDesc(int64_t rows, int64_t k, int64_t units,
                                                       memory::data_type src,
                                                       memory::data_type weights,
                                                       memory::data_type dst, bool bias);

// One builder per IR op; adding an op adds one entry (see the op family files).
using OpBuilder = void (*)(Builder&);
using OpTable = std::map<std::string, OpBuilder>;
void AddDenseConvOps(OpTable* table);
void AddPoolingNormOps(OpTable* table);
void AddElementwiseOps(OpTable* table);
void AddShapeOps(OpTable* table);
void AddRecurrentOps(OpTable* table);
void AddReduceOps(OpTable* table);
void AddResizeOps(OpTable* table);
void AddEmbeddingOps(OpTable* table);
void AddInlayOps(OpTable* table);
void AddAttentionOps(OpTable* table);

// Whether oneDNN runs bf16 arithmetic natively here (avx512_bf16 or AMX, after
// ONEDNN_MAX_CPU_ISA); elsewhere it emulates bf16 with f32 arithmetic, slower than f32 itself.
bool HasNativeBf16Arithmetic();

// Whether this CPU's bf16 dot products (vdpbf16ps) do at least as many FLOPs a second as its f32
// FMAs: twice as many on a Zen 4 VM, half as many on an Intel Xeon guest (Sapphire Rapids
// class), where they issue at a quarter of the FMA's rate. A short register loop of each, on
// one thread, interleaved 5 times, measured once per process (a few ms); false without
// avx512_bf16.
bool Bf16DotProductsOutrunF32Fmas();

// What bf16_depthwise=auto comes to here: oneDNN's kernel where oneDNN runs bf16 natively and
// its dot products keep up with the f32 FMAs (both above), else ntpbench's widened one.
bool AutoTakesOnednnBf16Depthwise();

// Attributes with a user-managed scratchpad (see Builder::AddPrimitive).
dnnl::primitive_attr UserScratchpad();

// The fused activation of dense/conv2d ("activation" attribute) as a post-op; false if none.
bool ActivationPostOps(const Attrs& attrs, dnnl::post_ops* ops);

// An activation layer (relu, clipped_relu, ...) as a oneDNN eltwise; nullopt for other ops.
struct Eltwise {
  dnnl::algorithm algorithm;
  float alpha, beta;
};
std::optional<Eltwise> EltwiseOf(const ResolvedLayer& layer);

// The attributes of a conv2d or dense: user scratchpad, then as post-ops its own activation or
// the fused activation layer, and (`residual`: the other operand's memory) the fused residual
// add and its activation.
// `out_scale` (not 1: the result is stored quantized) multiplies the result after every post-op.
// `residual_in_place`: the result is written over the residual operand, added as a sum post-op.
dnnl::primitive_attr HostAttr(const Builder& b, const memory::desc* residual = nullptr,
                              float out_scale = 1.0f, bool residual_in_place = false);
// The position of the residual add among the post-ops (for DNNL_ARG_ATTR_MULTIPLE_POST_OP).
int ResidualPostOpIndex(const Builder& b);

}  // namespace ntpb::onednn
