#include "src/backends/xnnpack/xnnpack_backend.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <set>

#include "ntpbench/analysis.h"
#include "ntpbench/error.h"
#include "src/backends/common/post_op_fusion.h"
#include "src/backends/common/quantization.h"
#include "src/backends/random_data.h"
#include "src/backends/xnnpack/steps.h"

namespace ntpb {
namespace xnnb {

int8_t Quantization::Quantize(float real) const {
  const long q = std::lround(real / scale) + zero_point;
  return static_cast<int8_t>(std::clamp<long>(q, -128, 127));
}

Shape Buffer::StoredShape() const {
  if (layout != Layout::kNhwc) return shape;
  return {shape[0], shape[2], shape[3], shape[1]};
}

namespace {

std::string StatusText(xnn_status status) {
  switch (status) {
    case xnn_status_success:
      return "success";
    case xnn_status_uninitialized:
      return "XNNPACK is not initialised";
    case xnn_status_invalid_parameter:
      return "invalid parameter";
    case xnn_status_invalid_state:
      return "invalid state";
    case xnn_status_unsupported_parameter:
      return "unsupported parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported on this CPU";
    case xnn_status_out_of_memory:
      return "out of memory";
  }
  return "xnn_status " + std::to_string(static_cast<int>(status));
}

}  // namespace

void Check(xnn_status status, const ResolvedLayer& layer, const char* call) {
  if (status == xnn_status_success) return;
  throw Error("", layer.name, "op",
              std::string("XNNPACK's ") + call + " failed: " + StatusText(status));
}

std::string NoRefusal(const ResolvedLayer&) { return ""; }

std::string DimsRefusal(const ResolvedLayer& l) {
  for (const Shape& s : l.input_shapes) {
    if (s.size() > XNN_MAX_TENSOR_DIMS) {
      return "XNNPACK's operators take at most " + std::to_string(XNN_MAX_TENSOR_DIMS) + " dims";
    }
  }
  return "";
}

const OpTable& Ops() {
  static const OpTable table = [] {
    OpTable t;
    AddComputeOps(&t);
    AddElementwiseOps(&t);
    return t;
  }();
  return table;
}

namespace {

// xnn_initialize once per process (it reads the CPU's features and picks the microkernels).
xnn_status Initialized() {
  static const xnn_status status = xnn_initialize(nullptr);
  return status;
}

bool AbsorbsActivation(const ResolvedLayer& host) {
  static const std::set<std::string> hosts = {"conv2d", "dense", "add",      "sub",
                                              "mul",    "div",   "batchnorm"};
  if (!hosts.count(host.op)) return false;
  return !host.attrs.Has("activation") || host.attrs.Str("activation") == "none";
}

// The steps: a convolution with the batchnorm after it, and any host of an output clamp with
// the relu or clipped relu after that, each absorbed layer the sole reader of the one before.
std::vector<Chain> PlanChains(const ResolvedTopology& t) {
  const TensorUses uses = AnalyzeTensorUses(t);
  std::vector<Chain> chains;
  for (int i = 0; i < static_cast<int>(t.layers.size()); ++i) {
    Chain c;
    c.host = &t.layers[i];
    const bool activation_free = AbsorbsActivation(*c.host);
    if (c.host->op == "conv2d" && activation_free && JoinsPreviousStep(t, uses, i + 1) &&
        t.layers[i + 1].op == "batchnorm") {
      c.batchnorm = &t.layers[++i];
    }
    if (activation_free && JoinsPreviousStep(t, uses, i + 1) &&
        (t.layers[i + 1].op == "relu" || t.layers[i + 1].op == "clipped_relu")) {
      c.activation = &t.layers[++i];
    }
    chains.push_back(c);
  }
  return chains;
}

// An NCHW <-> NHWC conversion, one (image, row) per task: XNNPACK of this age has no transpose
// operator, so the loop is ntpbench's own, run on XNNPACK's thread pool.
template <typename T>
struct Permute {
  const T* from;
  T* to;
  int64_t n, c, h, w;
  bool to_nhwc;
  static void Row(void* context, size_t nh) {
    const Permute& p = *static_cast<const Permute*>(context);
    const int64_t n = static_cast<int64_t>(nh) / p.h, y = static_cast<int64_t>(nh) % p.h;
    for (int64_t x = 0; x < p.w; ++x) {
      for (int64_t ch = 0; ch < p.c; ++ch) {
        const int64_t nchw = ((n * p.c + ch) * p.h + y) * p.w + x;
        const int64_t nhwc = ((n * p.h + y) * p.w + x) * p.c + ch;
        if (p.to_nhwc) {
          p.to[nhwc] = p.from[nchw];
        } else {
          p.to[nchw] = p.from[nhwc];
        }
      }
    }
  }
  // On the pool's threads (null: this one).
  void Run(pthreadpool_t pool) {
    pthreadpool_parallelize_1d(pool, Row, this, static_cast<size_t>(n * h), 0);
  }
};

// The quantization of a calibrated range [min, max] (0 included), over all 256 levels.
Quantization QuantizationOf(const TensorRange& r) {
  const float lo = std::min(r.min, 0.0f), hi = std::max(r.max, 0.0f);
  Quantization q;
  q.scale = hi > lo ? (hi - lo) / 255.0f : 1.0f;
  q.zero_point =
      static_cast<int8_t>(std::clamp<long>(std::lround(-128.0f - lo / q.scale), -128, 127));
  return q;
}

struct ThreadpoolDeleter {
  void operator()(pthreadpool_t pool) const { pthreadpool_destroy(pool); }
};

class XnnpackExecutable : public Executable, private StepBuilder {
 public:
  XnnpackExecutable(const ResolvedTopology& t, const RunConfig& config)
      : config_(config), quantized_(config.precision == Precision::kI8) {
    const int threads = EffectiveThreads(config);
    // One thread: XNNPACK runs on the caller's (a null pool), as TFLite does.
    if (threads > 1) pool_.reset(pthreadpool_create(static_cast<size_t>(threads)));
    if (quantized_) calibration_ = CalibrateWithReference(t, config);
    for (const auto& [name, shape] : t.inputs) {
      const Buffer b = Allocate(shape, Layout::kLogical, DataType::kF32);
      const std::vector<float> values = GraphInputValues(config, t, name, shape);
      std::copy(values.begin(), values.end(), b.f32());
      tensors_[name] = b;
    }
    for (const Chain& chain : PlanChains(t)) {
      chain_ = &chain;
      host_index_ = static_cast<int>(chain.host - t.layers.data());
      Step step = Ops().at(OpTableKey(*chain.host)).make(*this);
      StepInfo info;
      info.name = chain.host->name;
      info.op = chain.host->op;
      info.layer = host_index_;
      info.fused = chain.fused();
      info.kernel = step.kernel;
      Add(info, std::move(step));
    }
    chain_ = nullptr;
  }

  const std::vector<StepInfo>& steps() const override { return infos_; }

  void RunStep(std::size_t index) override {
    Step& step = steps_[index];
    for (const Operator& op : step.operators) {
      const xnn_status s = xnn_run_operator(op.get(), pool_.get());
      if (s != xnn_status_success) {
        throw Error("", infos_[index].name, "op",
                    "XNNPACK's xnn_run_operator failed: " + StatusText(s));
      }
    }
    if (step.run) step.run();
  }

  void WriteTensor(const std::string& name, const std::vector<float>& values) override {
    const Buffer& b = Find(name);
    if (static_cast<int64_t>(values.size()) != NumElements(b.shape)) {
      throw Error("", "", name,
                  "expected " + std::to_string(NumElements(b.shape)) + " values, got " +
                      std::to_string(values.size()));
    }
    // Straight into the buffer: hetero's transfer steps write graph inputs in its timed loop.
    if (b.type == DataType::kF32) {
      if (b.layout == Layout::kNhwc) {
        Permute<float>{values.data(), b.f32(), b.shape[0], b.shape[1], b.shape[2], b.shape[3], true}
            .Run(nullptr);
      } else {
        std::copy(values.begin(), values.end(), b.f32());
      }
      return;
    }
    // A qs8 tensor (one an i8 step wrote; graph inputs are f32): in memory order, then quantized.
    std::vector<float> stored = values;
    if (b.layout == Layout::kNhwc) {
      Permute<float>{values.data(), stored.data(), b.shape[0], b.shape[1],
                     b.shape[2],    b.shape[3],    true}
          .Run(nullptr);
    }
    for (size_t i = 0; i < stored.size(); ++i) b.qs8()[i] = b.quantization.Quantize(stored[i]);
  }

  std::vector<float> ReadTensor(const std::string& name) const override {
    const Buffer& b = Find(name);
    std::vector<float> stored(NumElements(b.shape));
    for (size_t i = 0; i < stored.size(); ++i) {
      stored[i] = b.type == DataType::kQs8
                      ? b.quantization.scale * (b.qs8()[i] - b.quantization.zero_point)
                      : b.f32()[i];
    }
    if (b.layout != Layout::kNhwc) return stored;
    std::vector<float> values(stored.size());
    Permute<float>{stored.data(), values.data(), b.shape[0], b.shape[1],
                   b.shape[2],    b.shape[3],    false}
        .Run(nullptr);
    return values;
  }

  int64_t activation_bytes() const override { return activation_bytes_; }

 private:
  // StepBuilder, for the op factories.
  const Chain& chain() const override { return *chain_; }
  bool quantized() const override { return quantized_; }

  Buffer Stored(int index) const override {
    return Find(chain_->host->inputs[static_cast<size_t>(index)]);
  }

  Buffer Input(int index, Layout layout, DataType type) override {
    const std::string& name = chain_->host->inputs[static_cast<size_t>(index)];
    Buffer have = Find(name);
    // The layout first (in the type it is stored in), then the type: one conversion each per
    // (tensor, form), shared by every reader that wants that form.
    if (layout != Layout::kAsStored && have.layout != layout && have.shape.size() == 4) {
      have = Converted(name, have, layout, have.type);
    }
    if (have.type != type) have = Converted(name, have, have.layout, type);
    return have;
  }

  Buffer Converted(const std::string& name, const Buffer& from, Layout layout, DataType type) {
    const std::string key = name + (layout == Layout::kNhwc ? "@nhwc" : "@logical") +
                            (type == DataType::kQs8 ? "@qs8" : "@f32");
    if (auto it = converted_.find(key); it != converted_.end()) return it->second;
    const Buffer out = Allocate(from.shape, layout, type,
                                type == DataType::kQs8 ? QuantizationOf(name) : Quantization{});
    converted_[key] = out;
    StepInfo info;
    info.inlay = true;
    info.feeds = host_index_;
    Step step;
    if (from.type != type) {
      const size_t count = static_cast<size_t>(NumElements(from.shape));
      xnn_operator_t op = nullptr;
      if (type == DataType::kQs8) {
        info.op = "quantize";
        info.kernel = "xnn_convert_nc_f32_qs8";
        Check(xnn_create_convert_nc_f32_qs8(1, 1, 1, out.quantization.scale,
                                            out.quantization.zero_point, -128, 127, 0, &op),
              *chain_->host, info.kernel.c_str());
        step.operators.emplace_back(op);
        Check(xnn_setup_convert_nc_f32_qs8(op, count, from.f32(), out.qs8(), pool_.get()),
              *chain_->host, info.kernel.c_str());
      } else {
        info.op = "dequantize";
        info.kernel = "xnn_convert_nc_qs8_f32";
        Check(xnn_create_convert_nc_qs8_f32(1, 1, 1, from.quantization.scale,
                                            from.quantization.zero_point, 0, &op),
              *chain_->host, info.kernel.c_str());
        step.operators.emplace_back(op);
        Check(xnn_setup_convert_nc_qs8_f32(op, count, from.qs8(), out.f32(), pool_.get()),
              *chain_->host, info.kernel.c_str());
      }
    } else {
      info.op = "reorder";
      const bool to_nhwc = layout == Layout::kNhwc;
      info.kernel = std::string(to_nhwc ? "NCHW to NHWC" : "NHWC to NCHW") +
                    (type == DataType::kQs8 ? " qs8" : "") + " (ntpbench loop on pthreadpool)";
      const Shape& d = from.shape;
      pthreadpool_t pool = pool_.get();
      if (type == DataType::kQs8) {
        auto p = std::make_shared<Permute<int8_t>>(
            Permute<int8_t>{from.qs8(), out.qs8(), d[0], d[1], d[2], d[3], to_nhwc});
        step.run = [p, pool] { p->Run(pool); };
      } else {
        auto p = std::make_shared<Permute<float>>(
            Permute<float>{from.f32(), out.f32(), d[0], d[1], d[2], d[3], to_nhwc});
        step.run = [p, pool] { p->Run(pool); };
      }
    }
    info.name = chain_->host->name + "." + info.op + "." + name;
    Add(info, std::move(step));
    return out;
  }

  Buffer Output(Layout layout, DataType type, const Quantization* same_as) override {
    const ResolvedLayer& last = chain_->last();
    Quantization q;
    if (type == DataType::kQs8) q = same_as ? *same_as : QuantizationOf(last.outputs[0]);
    const Buffer b = Allocate(last.output_shapes[0], layout, type, q);
    tensors_[last.outputs[0]] = b;
    return b;
  }

  void OutputIsView(const Buffer& input) override {
    const ResolvedLayer& last = chain_->last();
    Buffer view = input;
    // A view of the same shape keeps the layout; a reshape reads the IR's order.
    if (view.shape != last.output_shapes[0]) view.layout = Layout::kLogical;
    view.shape = last.output_shapes[0];
    tensors_[last.outputs[0]] = view;
  }

  std::vector<float> Weight(const ResolvedLayer& l, int index) const override {
    const size_t i = static_cast<size_t>(index);
    if (i < l.weight_values.size() && l.weight_values[i]) return *l.weight_values[i];
    return RandomWeight(config_.seed, l.name, l.weights[i]);
  }

  pthreadpool_t threadpool() const override { return pool_.get(); }

  // The quantization of a tensor's calibrated range (an i8 run's reference f32 run).
  Quantization QuantizationOf(const std::string& tensor) const {
    auto it = calibration_.find(tensor);
    if (it == calibration_.end()) {
      throw Error("", chain_->host->name, tensor, "no calibrated range for this tensor");
    }
    return xnnb::QuantizationOf(it->second);
  }

  Buffer Allocate(const Shape& shape, Layout layout, DataType type = DataType::kF32,
                  Quantization q = {}) {
    const int64_t bytes = NumElements(shape) * (type == DataType::kQs8 ? 1 : 4);
    // XNNPACK's kernels may read XNN_EXTRA_BYTES past an operand's end.
    std::vector<float>& v = storage_.emplace_back((bytes + XNN_EXTRA_BYTES + 3) / 4, 0.0f);
    activation_bytes_ += bytes;
    return Buffer{v.data(), shape, shape.size() == 4 ? layout : Layout::kLogical, type, q};
  }

  void Add(const StepInfo& info, Step step) {
    infos_.push_back(info);
    steps_.push_back(std::move(step));
  }

  const Buffer& Find(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) {
      throw Error("", "", name,
                  "the xnnpack backend has no tensor '" + name +
                      "' (a layer it folded into the step before it has no output of its own)");
    }
    return it->second;
  }

  RunConfig config_;
  bool quantized_;
  Calibration calibration_;
  // Declared before the steps so that it goes after them: operators are deleted first.
  std::unique_ptr<pthreadpool, ThreadpoolDeleter> pool_;
  std::deque<std::vector<float>> storage_;  // every buffer, never moved
  std::map<std::string, Buffer> tensors_, converted_;
  std::vector<StepInfo> infos_;
  std::vector<Step> steps_;
  int64_t activation_bytes_ = 0;
  const Chain* chain_ = nullptr;  // the chain being built
  int host_index_ = 0;
};

// Whether XNNPACK has f16 kernels here: this version initialises them only where the CPU does
// f16 arithmetic (ARM's FP16); elsewhere creating an f16 operator says unsupported hardware.
bool HasF16Kernels() {
  const uint16_t zero[1] = {0};
  xnn_operator_t op = nullptr;
  const xnn_status s =
      xnn_create_fully_connected_nc_f16(1, 1, 1, 1, zero, nullptr, -INFINITY, INFINITY, 0, &op);
  if (op) xnn_delete_operator(op);
  return s == xnn_status_success;
}

class XnnpackBackend : public Backend {
 public:
  std::string name() const override { return "xnnpack"; }
  bool RunsEveryOp() const override { return false; }
  std::string version() const override {
    return std::string("XNNPACK ") + NTPBENCH_XNNPACK_VERSION +
           " (operator API, NHWC, f32 and qs8; pthreadpool)";
  }

  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    if (Initialized() != xnn_status_success) {
      return {false, "xnn_initialize failed: " + StatusText(Initialized())};
    }
    switch (config.precision) {
      case Precision::kF32:
        break;
      case Precision::kBf16:
        return {false, "XNNPACK has no bf16 operators"};
      case Precision::kF16:
        if (!HasF16Kernels()) {
          return {false,
                  "this XNNPACK (" + std::string(NTPBENCH_XNNPACK_VERSION) +
                      ") has f16 kernels only on CPUs with f16 arithmetic (ARM FP16): on this "
                      "CPU it initialised none"};
        }
        return {false, "the xnnpack backend runs f32: XNNPACK's f16 operators are not used yet"};
      case Precision::kI8:
        break;
      case Precision::kW8:
      case Precision::kW4:
        return {false, std::string("this XNNPACK has no ") + PrecisionName(config.precision) +
                           " operators (int8/int4 weights with f32 activations)"};
    }
    for (const ResolvedLayer& l : t.layers) {
      auto it = Ops().find(OpTableKey(l));
      std::string why = it == Ops().end() ? "XNNPACK has no operator for op '" + l.op + "'"
                                          : it->second.refusal(l);
      if (!why.empty()) {
        return {false, why + " (layer " + l.name +
                           "); --backend hetero --place default=xnnpack,fallback=onednn runs "
                           "such layers elsewhere"};
      }
    }
    return {};
  }

  std::string PrecisionPath(Precision precision) const override {
    if (precision != Precision::kI8) return "";
    return "XNNPACK's qs8 operators (activations per tensor with zero points; convolution "
           "weights per channel, qc8; fully connected per tensor): conv2d, dense, add, mul, max "
           "and global pooling; other layers f32 between dequantize and quantize steps";
  }

  std::vector<PlannedStep> PlanSteps(const ResolvedTopology& t,
                                     const RunConfig& config) const override {
    (void)config;
    std::vector<PlannedStep> steps;
    for (const Chain& c : PlanChains(t)) {
      steps.push_back({static_cast<int>(c.host - t.layers.data()), c.fused(), ""});
    }
    return steps;
  }

  std::unique_ptr<Executable> Compile(const ResolvedTopology& t,
                                      const RunConfig& config) const override {
    const Support s = Supports(t, config);
    if (!s.ok) throw Error(t.file, "", "backend", s.reason);
    return std::make_unique<XnnpackExecutable>(t, config);
  }
};

}  // namespace
}  // namespace xnnb
}  // namespace ntpb

// The module's entry points (module_backend.h).
extern "C" const char* ntpbench_module_build() { return NTPBENCH_MODULE_BUILD; }

extern "C" const ntpb::Backend* ntpbench_module_backend() {
  static const ntpb::xnnb::XnnpackBackend backend;
  return &backend;
}
