#include "src/backends/onednn/builder.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "ntpbench/error.h"
#include "ntpbench/machine.h"
#include "src/backends/onednn/layout_copy.h"
#include "src/backends/random_data.h"
#include "src/machine/ceiling_kernels.h"
#include "src/ops/activations.h"

namespace ntpb::onednn {

memory::format_tag PlainTag(size_t rank) {
  using tag = memory::format_tag;
  static const tag tags[] = {tag::a, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
  if (rank > 6) throw Error("", "", "shape", "the onednn backend handles tensors up to rank 6");
  return tags[rank];
}

memory::dims Dims(const Shape& shape) {
  if (shape.empty()) return {1};
  return memory::dims(shape.begin(), shape.end());
}

memory::desc PlainDesc(const Shape& shape, memory::data_type type) {
  return memory::desc(Dims(shape), type, PlainTag(shape.empty() ? 1 : shape.size()));
}

void Builder::Begin(const ResolvedLayer& layer, int index, const FusionPlan& fusion) {
  layer_ = &layer;
  index_ = index;
  fusion_ = fusion;
  current_ = Step{};
  current_.info.name = layer.name;
  current_.info.op = layer.op;
  current_.info.layer = index;
  current_.info.inlay = layer.inlay;
  current_.info.fused = fusion.fused;
  no_step_ = false;
}

const std::string& Builder::output_name() const {
  for (const ResolvedLayer* l :
       {fusion_.residual_activation, fusion_.residual, fusion_.project_activation,
        fusion_.project_batchnorm, fusion_.project, fusion_.activation, fusion_.batchnorm}) {
    if (l) return l->outputs[0];
  }
  return layer_->outputs[0];
}

void Builder::End() {
  if (!no_step_) steps_.push_back(std::move(current_));
  current_ = Step{};
}

memory Builder::Input(const std::string& tensor) const {
  auto it = tensors_.find(tensor);
  if (it == tensors_.end()) throw Error("", layer_ ? layer_->name : "", tensor, "no such tensor");
  return it->second;
}

const TensorRange& Builder::range(const std::string& tensor) const {
  auto it = calibration_.find(tensor);
  if (it == calibration_.end()) {
    throw Error("", layer_ ? layer_->name : "", tensor,
                "no calibrated range for tensor '" + tensor + "' (i8 needs the reference run)");
  }
  return it->second;
}

namespace {
bool IsInt8(memory::data_type t) {
  return t == memory::data_type::u8 || t == memory::data_type::s8;
}
}  // namespace

bool Builder::StoreOutputQuantized() const {
  if (!quantized()) return false;
  const std::string& out = output_name();
  if (uses_.IsGraphOutput(out)) return false;
  const std::vector<TensorUses::Read>& readers = uses_.ReadersOf(out);
  for (const TensorUses::Read& r : readers) {
    const ResolvedLayer& l = topology_->layers[r.layer];
    const bool quantizes = (r.input == 0 && (l.op == "conv2d" || l.op == "dense" ||
                                             l.op == "lstm" || l.op == "gru")) ||
                           AddsAsQuantizedResidual(r.layer, out);
    if (!quantizes) return false;
  }
  return !readers.empty();
}

bool Builder::AddsAsQuantizedResidual(int add, const std::string& tensor) const {
  const auto& layers = topology_->layers;
  if (layers[add].op != "add") return false;
  // The conv chain that would absorb the add starts at most three layers before it (conv,
  // batchnorm, activation).
  for (int host = std::max(0, add - 3); host < add; ++host) {
    if (layers[host].op != "conv2d") continue;
    const FusionPlan plan = PlanFusion(*topology_, uses_, host, option("fusion") == "on");
    if (plan.residual == &layers[add]) return plan.ResidualOperand() == tensor;
  }
  return false;
}

bool CanOverwrite(const ResolvedTopology& t, const std::string& tensor, int index,
                  const ResolvedLayer* residual) {
  for (const ResolvedLayer& l : t.layers) {  // state an inference appends to (kv_cache)
    if (l.cache_elements_per_token > 0 && l.outputs[0] == tensor) return false;
  }
  if (std::find(t.outputs.begin(), t.outputs.end(), tensor) != t.outputs.end()) return false;
  for (const auto& input : t.inputs) {
    if (input.first == tensor) return false;
  }
  for (size_t i = 0; i < t.layers.size(); ++i) {
    const ResolvedLayer& l = t.layers[i];
    const bool reads = std::count(l.inputs.begin(), l.inputs.end(), tensor) > 0;
    if (l.is_view && (reads || l.outputs[0] == tensor)) return false;  // shared storage
    if (reads && &l != residual && static_cast<int>(i) >= index) return false;
  }
  return true;
}

bool DenseAsConvolution(const Builder& b, int64_t rows, const std::string& matmul_kernel) {
  // Rows from which the convolution wins where the matmul is gemm:jit.
  constexpr int64_t kConvolutionRows = 4;
  const std::string& mode = b.option("dense");
  if (mode == "matmul" || (b.act() != memory::data_type::f32 && !b.quantized())) return false;
  if (mode == "conv1x1") return true;
  if (matmul_kernel.rfind("gemm", 0) != 0) return false;
  return rows >= kConvolutionRows || b.quantized();
}

dnnl::convolution_forward::desc DenseAsConvolutionDesc(int64_t rows, int64_t k, int64_t units,
                                                       memory::data_type src,
                                                       memory::data_type weights,
                                                       memory::data_type dst, bool bias) {
  using tag = memory::format_tag;
  return dnnl::convolution_forward::desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      memory::desc({1, k, rows, 1}, src, tag::nhwc),
      memory::desc({units, k, 1, 1}, weights, tag::any),
      bias ? memory::desc({units}, memory::data_type::f32, tag::x) : memory::desc(),
      memory::desc({1, units, rows, 1}, dst, tag::nhwc), {1, 1}, {0, 0}, {0, 0});
}

int64_t LastLevelCacheBytes(const RunConfig& config) {
  return config.last_level_cache_bytes > 0 ? config.last_level_cache_bytes
                                           : ThisMachine().last_level_cache_bytes();
}

bool WeightsOutgrowLastLevelCache(const ResolvedTopology& t, const RunConfig& config) {
  const int64_t bytes = Analyze(t, Precision::kF32).total.weight_traffic_bytes;
  const int64_t cache = LastLevelCacheBytes(config);
  // Half: the cache also holds the activations, and reads the size of the cache already come
  // partly from memory (an Intel Xeon guest with AMX read 64 MiB at 57 GB/s, 128 MiB at 39-55,
  // memory at 31: `ntpbench machine` saw 64 or 128 MiB). There ResNet-50's 98 MB, with 128 MiB
  // seen, ran its last stage's 3x3s 0.45 ms faster on the streamed kernel (3.36 against 3.81 ms,
  // alternating 4 times, p50).
  return cache > 0 && 2 * bytes > cache;
}

bool Builder::CanOverwrite(const std::string& tensor) const {
  return onednn::CanOverwrite(*topology_, tensor, index_, fusion_.residual);
}

memory Builder::OutputOver(const std::string& tensor, const memory::desc& desc) {
  memory out(desc, engine_, Input(tensor).get_data_handle());
  SetTensor(output_name(), out);
  if (IsInt8(desc.data_type())) stored_scales_[output_name()] = scale(output_name());
  current_.info.overwrites = tensor;
  return out;
}

namespace {

// The copy of layout_copy.h from `have`'s layout to `out`'s, where one does it (f32, 4-d, the
// same dims); else none, and oneDNN's reorder runs. An image's few channels to NHWC: for
// 3x224x224 on a 2-core Zen 5 VM, 2 threads, oneDNN 2.6's jit:uni reorder took 17.7 us alone and
// warm, the copy 3.4 us (in MobileNet v2 17.7 against 6.8). NHWC to and from nChw16c around
// ResNet-50's Winograd convolutions (f32, batch 1, 2 threads, a 2-core Zen 5 VM): alone and warm
// both ran 10-30 us; in the network oneDNN's took 25-140 us, its threads reading what the other
// core had written (the guest's cores were 215 ns apart).
std::function<void()> LayoutCopy(const memory& have, const memory& out, int threads,
                                 std::string* kernel) {
  using tag = memory::format_tag;
  const memory::desc from = have.get_desc(), to = out.get_desc();
  const memory::dims dims = to.dims();
  const auto f32 = memory::data_type::f32;
  if (dims.size() != 4 || from.dims() != dims || from.data_type() != f32 || to.data_type() != f32) {
    return nullptr;
  }
  // The addresses are read when the step runs, as a primitive's arguments are.
  auto x = [have] { return static_cast<const float*>(have.get_data_handle()); };
  auto y = [out] { return static_cast<float*>(out.get_data_handle()); };
  auto is = [&](const memory::desc& d, tag t) { return d == memory::desc(dims, f32, t); };
  const int64_t batch = dims[0], channels = dims[1], pixels = dims[2] * dims[3];
  if (channels <= 4 && is(from, tag::nchw) && is(to, tag::nhwc)) {
    *kernel = "ntpbench planar to NHWC copy";
    return [=] { PlanarToNhwc(x(), batch, channels, pixels, threads, y()); };
  }
  for (const int block : {8, 16}) {
    const tag blocked = block == 8 ? tag::nChw8c : tag::nChw16c;
    if (channels % block != 0) continue;
    const std::string name = "nChw" + std::to_string(block) + "c";
    if (is(from, tag::nhwc) && is(to, blocked)) {
      *kernel = "ntpbench NHWC to " + name + " copy";
      return [=] { NhwcToBlocked(x(), batch, channels, pixels, block, threads, y()); };
    }
    if (is(from, blocked) && is(to, tag::nhwc)) {
      *kernel = "ntpbench " + name + " to NHWC copy";
      return [=] { BlockedToNhwc(x(), batch, channels, pixels, block, threads, y()); };
    }
  }
  return nullptr;
}

}  // namespace

memory Builder::Input(const std::string& tensor, const memory::desc& wanted) {
  memory have = Input(tensor);
  if (have.get_desc() == wanted) return have;
  // One reorder per (tensor, layout), shared by every consumer that wants that layout.
  const std::string key(reinterpret_cast<const char*>(&wanted.data), sizeof(wanted.data));
  auto cached = reordered_.find({tensor, key});
  if (cached != reordered_.end()) return cached->second;
  // Between real values and u8/s8: a quantize or dequantize step, scaled by the calibration.
  const bool from_int8 = IsInt8(have.get_desc().data_type()), to_int8 = IsInt8(wanted.data_type());
  const char* kind = from_int8 == to_int8 ? "reorder" : to_int8 ? "quantize" : "dequantize";
  const std::string step_name = layer_->name + "." + kind + "." + tensor;
  // The copy lives as long as the tensor.
  memory out = pool_.Allocate(wanted, step_name, tensor, index_, engine_);
  dnnl::primitive_attr attr;
  if (to_int8 && !from_int8) attr.set_output_scales(0, {scale(tensor)});
  if (from_int8 && !to_int8) attr.set_output_scales(0, {1.0f / scale(tensor)});
  Step step;
  step.info.name = step_name;
  step.info.op = kind;
  step.info.inlay = true;
  step.info.feeds = index_;
  if (std::function<void()> copy =
          LayoutCopy(have, out, EffectiveThreads(config_), &step.info.kernel)) {
    step.work.push_back({{}, {}, std::move(copy)});
  } else {
    step.work.push_back({dnnl::reorder(dnnl::reorder::primitive_desc(have, out, attr)),
                         {{DNNL_ARG_FROM, have}, {DNNL_ARG_TO, out}},
                         nullptr});
  }
  steps_.push_back(std::move(step));
  reordered_[{tensor, key}] = out;
  return out;
}

memory Builder::PlainInput(const std::string& tensor) {
  const memory have = Input(tensor);
  const memory::desc& d = have.get_desc();
  const memory::dims dims = d.dims();
  return Input(tensor, memory::desc(dims, act_, PlainTag(dims.size())));
}

memory Builder::HostOutputF32(const Shape& shape) {
  if (act_ == memory::data_type::f32) return NewOutput(Plain(shape));
  return memory(PlainDesc(shape), engine_);
}

void Builder::ConvertHostOutput(const memory& host_output, const Shape& shape) {
  if (act_ == memory::data_type::f32) return;
  const memory converted = NewOutput(Plain(shape));
  Add(dnnl::reorder(host_output, converted),
      {{DNNL_ARG_FROM, host_output}, {DNNL_ARG_TO, converted}});
}

memory Builder::SharedScratch(const memory::desc& desc, size_t offset) {
  const size_t end = offset + desc.get_size();
  if (end > shared_scratch_bytes_) {
    scratchpad_bytes_ += static_cast<int64_t>(end - shared_scratch_bytes_);
    shared_scratch_bytes_ = end;
  }
  memory m(desc, engine_, DNNL_MEMORY_NONE);
  shared_scratch_users_.emplace_back(m, offset);
  return m;
}

std::vector<memory> Builder::TakeScratch() {
  if (shared_scratch_bytes_ > 0) {
    const memory shared =
        ArenaMemory(memory::desc({static_cast<memory::dim>(shared_scratch_bytes_)},
                                 memory::data_type::u8, memory::format_tag::a));
    auto* base = static_cast<uint8_t*>(shared.get_data_handle());
    for (auto& [m, offset] : shared_scratch_users_) m.set_data_handle(base + offset);
    scratch_.push_back(shared);
    shared_scratch_users_.clear();
    shared_scratch_bytes_ = 0;
  }
  return std::move(scratch_);
}

memory Builder::NewOutput(const memory::desc& desc) {
  memory out = pool_.Allocate(desc, output_name(), output_name(), index_, engine_);
  tensors_[output_name()] = out;
  if (IsInt8(desc.data_type())) stored_scales_[output_name()] = scale(output_name());
  return out;
}

memory Builder::NewOutput(const memory::desc& desc, size_t index) {
  if (index == 0) return NewOutput(desc);
  const std::string& name = layer_->outputs.at(index);
  memory out = pool_.Allocate(desc, name, name, index_, engine_);
  tensors_[name] = out;
  return out;
}

std::vector<float> Builder::WeightValues(const ResolvedLayer& l, size_t i) const {
  if (i < l.weight_values.size() && l.weight_values[i]) return *l.weight_values[i];
  return RandomWeight(config_.seed, l.name, l.weights[i]);
}

memory Builder::WeightMemory(const void* values, const memory::desc& user,
                             const memory::desc& wanted) {
  memory src(user, engine_, const_cast<void*>(values));
  memory dst = ArenaMemory(wanted);
  dnnl::stream s(engine_);
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
  return dst;
}

void Builder::AddPrimitive(const dnnl::primitive_desc_base& pd, const dnnl::primitive& p,
                           Args args) {
  const memory::desc sd = pd.scratchpad_desc();
  if (sd.get_size() > 0) {
    args[DNNL_ARG_SCRATCHPAD] = ArenaMemory(sd);
    scratchpad_bytes_ += static_cast<int64_t>(sd.get_size());
  }
  if (current_.info.kernel.empty()) current_.info.kernel = pd.impl_info_str();
  Add(p, std::move(args));
}

bool HasNativeBf16Arithmetic() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
}

bool Bf16DotProductsOutrunF32Fmas() {
  static const bool outrun = [] {
    const RegisterKernel *f32 = nullptr, *bf16 = nullptr;
    const std::vector<RegisterKernel> kernels = RegisterKernelsFor(ThisMachine().cpu_flags);
    for (const RegisterKernel& k : kernels) {
      if (k.precision == "f32") f32 = &k;
      if (k.precision == "bf16") bf16 = &k;
    }
    if (!f32 || !bf16) return false;
    double f32_gflops = 0, bf16_gflops = 0;
    for (int round = 0; round < 6; ++round) {  // the first warms the vector units up
      const double a = QuickRegisterGflops(*f32), b = QuickRegisterGflops(*bf16);
      if (round == 0) continue;
      f32_gflops = std::max(f32_gflops, a);
      bf16_gflops = std::max(bf16_gflops, b);
    }
    return bf16_gflops >= f32_gflops;
  }();
  return outrun;
}

bool AutoTakesOnednnBf16Depthwise() {
  return HasNativeBf16Arithmetic() && Bf16DotProductsOutrunF32Fmas();
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

bool ActivationPostOps(const Attrs& attrs, dnnl::post_ops* ops) {
  const ActivationChoice a = FusedActivation(attrs);  // src/ops/activations.h
  using alg = dnnl::algorithm;
  switch (a.kind) {
    case ActivationKind::kNone:
      return false;
    case ActivationKind::kRelu:
      ops->append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
      break;
    case ActivationKind::kClippedRelu:
      ops->append_eltwise(1.0f, alg::eltwise_clip, 0.0f, a.clip);
      break;
    case ActivationKind::kSigmoid:
      ops->append_eltwise(1.0f, alg::eltwise_logistic, 0.0f, 0.0f);
      break;
    case ActivationKind::kTanh:
      ops->append_eltwise(1.0f, alg::eltwise_tanh, 0.0f, 0.0f);
      break;
    case ActivationKind::kGelu:
      ops->append_eltwise(1.0f, alg::eltwise_gelu_erf, 0.0f, 0.0f);
      break;
    case ActivationKind::kGeluTanh:
      ops->append_eltwise(1.0f, alg::eltwise_gelu_tanh, 0.0f, 0.0f);
      break;
  }
  return true;
}

dnnl::primitive_attr HostAttr(const Builder& b, const memory::desc* residual, float out_scale,
                              bool residual_in_place) {
  dnnl::primitive_attr attr = UserScratchpad();
  dnnl::post_ops ops;
  ActivationPostOps(b.layer().attrs, &ops);
  auto eltwise = [&](const ResolvedLayer* l) {
    if (l) {
      const Eltwise e = *EltwiseOf(*l);
      ops.append_eltwise(1.0f, e.algorithm, e.alpha, e.beta);
    }
  };
  eltwise(b.fusion().activation);
  if (residual) {
    if (residual_in_place) {
      // An operand stored u8/s8 is scaled back to real values as it is added.
      const std::string& operand = b.fusion().ResidualOperand();
      const memory::data_type type = b.Input(operand).get_desc().data_type();
      if (IsInt8(type)) {
        ops.append_sum(1.0f / b.scale(operand), 0, type);
      } else {
        ops.append_sum(1.0f);
      }
    } else {
      ops.append_binary(dnnl::algorithm::binary_add, *residual);
    }
    eltwise(b.fusion().residual_activation);
  }
  // Requantization comes after everything (a clip at 6 must clip the real value).
  if (out_scale != 1.0f) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, out_scale, 0);
  if (ops.len() > 0) attr.set_post_ops(ops);
  return attr;
}

int ResidualPostOpIndex(const Builder& b) {
  // A host with an activation of its own fuses nothing after it (PlanFusion).
  return b.fusion().activation ? 1 : 0;
}

}  // namespace ntpb::onednn
