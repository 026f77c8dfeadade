#include "src/backends/xnnpack/xnnpack_backend.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <deque>
#include <memory>
#include <set>

#include "ntpbench/analysis.h"
#include "ntpbench/error.h"
#include "src/backends/common/post_op_fusion.h"
#include "src/backends/random_data.h"
#include "src/backends/xnnpack/steps.h"

namespace ntpb {
namespace xnnb {

Shape Buffer::StoredShape() const {
  if (layout != Layout::kNhwc) return shape;
  return {shape[0], shape[2], shape[3], shape[1]};
}

void Check(xnn_status status, const ResolvedLayer& layer, const char* call) {
  if (status == xnn_status_success) return;
  throw Error("", layer.name, "op",
              std::string("XNNPACK's ") + call + " failed (xnn_status " +
                  std::to_string(static_cast<int>(status)) + ")");
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
struct Permute {
  const float* from;
  float* to;
  int64_t c, h, w;
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
};

struct ThreadpoolDeleter {
  void operator()(pthreadpool_t pool) const { pthreadpool_destroy(pool); }
};

class XnnpackExecutable : public Executable, private StepBuilder {
 public:
  XnnpackExecutable(const ResolvedTopology& t, const RunConfig& config) : config_(config) {
    const int threads = EffectiveThreads(config);
    // One thread: XNNPACK runs on the caller's (a null pool), as TFLite does.
    if (threads > 1) pool_.reset(pthreadpool_create(static_cast<size_t>(threads)));
    for (const auto& [name, shape] : t.inputs) {
      const Buffer b = Allocate(shape, Layout::kLogical);
      const std::vector<float> values = GraphInputValues(config, t, name, shape);
      std::copy(values.begin(), values.end(), b.data);
      tensors_[name] = b;
    }
    for (const Chain& chain : PlanChains(t)) {
      chain_ = &chain;
      host_index_ = static_cast<int>(chain.host - t.layers.data());
      Step step = Ops().at(chain.host->op).make(*this);
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
                    "XNNPACK's xnn_run_operator failed (xnn_status " +
                        std::to_string(static_cast<int>(s)) + ")");
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
    if (b.layout == Layout::kNhwc) {
      Permute p{values.data(), b.data, b.shape[1], b.shape[2], b.shape[3], true};
      for (int64_t nh = 0; nh < b.shape[0] * b.shape[2]; ++nh) Permute::Row(&p, nh);
    } else {
      std::copy(values.begin(), values.end(), b.data);
    }
  }

  std::vector<float> ReadTensor(const std::string& name) const override {
    const Buffer& b = Find(name);
    std::vector<float> values(NumElements(b.shape));
    if (b.layout == Layout::kNhwc) {
      Permute p{b.data, values.data(), b.shape[1], b.shape[2], b.shape[3], false};
      for (int64_t nh = 0; nh < b.shape[0] * b.shape[2]; ++nh) Permute::Row(&p, nh);
    } else {
      std::copy(b.data, b.data + values.size(), values.begin());
    }
    return values;
  }

  int64_t activation_bytes() const override { return activation_bytes_; }

 private:
  // StepBuilder, for the op factories.
  const Chain& chain() const override { return *chain_; }

  Buffer Input(int index, Layout layout) override {
    const std::string& name = chain_->host->inputs[static_cast<size_t>(index)];
    const Buffer have = Find(name);
    if (layout == Layout::kAsStored || have.layout == layout || have.shape.size() != 4) {
      return have;
    }
    // One conversion per (tensor, layout), shared by every reader that wants it.
    const std::string key = name + (layout == Layout::kNhwc ? "@nhwc" : "@nchw");
    if (auto it = converted_.find(key); it != converted_.end()) return it->second;
    const Buffer out = Allocate(have.shape, layout);
    converted_[key] = out;
    Step step;
    auto permute = std::make_shared<Permute>(Permute{
        have.data, out.data, have.shape[1], have.shape[2], have.shape[3], layout == Layout::kNhwc});
    const size_t rows = static_cast<size_t>(have.shape[0] * have.shape[2]);
    pthreadpool_t pool = pool_.get();
    step.run = [permute, rows, pool] {
      pthreadpool_parallelize_1d(pool, Permute::Row, permute.get(), rows, 0);
    };
    StepInfo info;
    info.name = chain_->host->name + ".reorder." + name;
    info.op = "reorder";
    info.inlay = true;
    info.feeds = host_index_;
    info.kernel = layout == Layout::kNhwc ? "NCHW to NHWC (ntpbench loop on pthreadpool)"
                                          : "NHWC to NCHW (ntpbench loop on pthreadpool)";
    Add(info, std::move(step));
    return out;
  }

  Buffer Output(Layout layout) override {
    const ResolvedLayer& last = chain_->last();
    const Buffer b = Allocate(last.output_shapes[0], layout);
    tensors_[last.outputs[0]] = b;
    return b;
  }

  void OutputIsView(const Buffer& input) override {
    const ResolvedLayer& last = chain_->last();
    tensors_[last.outputs[0]] = Buffer{input.data, last.output_shapes[0], Layout::kLogical};
  }

  std::vector<float> Weight(const ResolvedLayer& l, int index) const override {
    const size_t i = static_cast<size_t>(index);
    if (i < l.weight_values.size() && l.weight_values[i]) return *l.weight_values[i];
    return RandomWeight(config_.seed, l.name, l.weights[i]);
  }

  pthreadpool_t threadpool() const override { return pool_.get(); }

  Buffer Allocate(const Shape& shape, Layout layout) {
    // XNNPACK's kernels may read XNN_EXTRA_BYTES past an operand's end.
    std::vector<float>& v =
        storage_.emplace_back(NumElements(shape) + XNN_EXTRA_BYTES / sizeof(float), 0.0f);
    activation_bytes_ += NumElements(shape) * static_cast<int64_t>(sizeof(float));
    return Buffer{v.data(), shape, shape.size() == 4 ? layout : Layout::kLogical};
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
  // Declared first so that it goes last: operators are deleted before their thread pool.
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
           " (operator API, f32, NHWC; pthreadpool)";
  }

  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    if (Initialized() != xnn_status_success) {
      return {false, "xnn_initialize failed (xnn_status " +
                         std::to_string(static_cast<int>(Initialized())) + ")"};
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
        return {false,
                "the xnnpack backend runs f32: XNNPACK's qs8 operators are not used yet (i8 "
                "runs on onednn and opencl)"};
    }
    for (const ResolvedLayer& l : t.layers) {
      auto it = Ops().find(l.op);
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

  std::vector<PlannedStep> PlanSteps(const ResolvedTopology& t,
                                     const RunConfig& config) const override {
    (void)config;
    std::vector<PlannedStep> steps;
    for (const Chain& c : PlanChains(t)) {
      steps.push_back({static_cast<int>(c.host - t.layers.data()), c.fused()});
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
