#include "src/backends/opencl/opencl_backend.h"

#include <cstdlib>
#include <limits>
#include <memory>
#include <set>

#include "ntpbench/error.h"
#include "src/backends/common/attention_geometry.h"
#include "src/backends/common/quantization.h"
#include "src/backends/eigen/kernels.h"
#include "src/backends/opencl/half_storage.h"
#include "src/backends/opencl/op_builder.h"
#include "src/backends/random_data.h"

namespace ntpb {
const Backend* OpenclBackendInstance();
namespace opencl {
namespace {

// Inlays that stay on the host, as deployed speech pipelines keep them: the MFCC front end
// (an FFT per frame) and the CTC beam search (a sequential, branching search). They run the
// reference's host kernels; the data they read and write crosses as copy steps.
bool RunsOnHost(const std::string& op) { return op == "mfcc" || op == "ctc_beam_decoder"; }

// f16 runs store tensors as half. An integer graph input whose range f16 holds exactly (|id| <=
// 2048: masks, positions, small vocabularies) is stored so too; a larger one (token ids) as float,
// which only an embedding's ids (kernels.cl's embedding) and host steps read.
bool HoldsExactlyInHalf(const ResolvedTopology& t, const std::string& input) {
  const auto range = t.integer_inputs.find(input);
  return range == t.integer_inputs.end() ||
         (range->second.low >= -2048 && range->second.high <= 2049);
}

// Why `t` cannot run in f16 here ("" when it can): a float-stored integer input read by
// anything but an embedding's ids or a host step.
std::string HalfStorageProblem(const ResolvedTopology& t) {
  std::set<std::string> f32;
  for (const auto& [name, range] : t.integer_inputs) {
    if (!HoldsExactlyInHalf(t, name)) f32.insert(name);
  }
  for (const ResolvedLayer& l : t.layers) {
    if (l.is_view) {
      if (f32.count(l.inputs[0])) f32.insert(l.outputs[0]);
      continue;
    }
    for (size_t i = 0; i < l.inputs.size(); ++i) {
      if (f32.count(l.inputs[i]) && !(l.op == "embedding" && i == 0) && !RunsOnHost(l.op)) {
        return "f16 on opencl keeps integers past 2048 exact as f32, which only an embedding's "
               "ids read; layer " +
               l.name + " reads '" + l.inputs[i] + "' as " + l.op + " input " + std::to_string(i);
      }
    }
  }
  return "";
}

std::string DeviceSpec(const RunConfig& config) {
  if (!config.device.empty()) return config.device;
  if (const char* env = std::getenv("NTPB_OPENCL_DEVICE"); env && *env) return env;
  return "opencl";
}

// Weight i of `l`: the source's values, else drawn from the seed as every backend draws them.
std::vector<float> WeightValues(const ResolvedLayer& l, size_t i, const RunConfig& config) {
  const bool given = i < l.weight_values.size() && l.weight_values[i];
  return given ? *l.weight_values[i] : RandomWeight(config.seed, l.name, l.weights[i]);
}

// Where a tensor is: its device buffer, its host copy, or both (views share their source's).
struct Tensor {
  cl_mem device = nullptr;
  std::shared_ptr<eigen::AlignedFloats> host;
  int64_t elements = 0;
  // Stored as float whatever the run's precision: token ids (an integer graph input and its
  // views), exact where f16 would not be.
  bool f32 = false;
};

class OpenclExecutable : public Executable {
 public:
  OpenclExecutable(const ResolvedTopology& t, const RunConfig& config)
      : session_(SessionFor(DeviceSpec(config), config.precision == Precision::kF16)),
        threads_(EffectiveThreads(config)) {
    if (config.precision == Precision::kI8) calibration_ = CalibrateWithReference(t, config);
    reach_ = ShiftReach(t);
    const std::map<std::string, std::string> options =
        BackendOptionValues(*OpenclBackendInstance(), config);
    vector_gemm_ =
        options.at("gemm") == "vector" || (options.at("gemm") == "auto" && session_.vector_gemm);
    const bool cpu = session_.info.type == "cpu";
    group_attention_ =
        options.at("attention") == "group" || (options.at("attention") == "auto" && !cpu);
    split_skinny_ = options.at("skinny") == "split" || (options.at("skinny") == "auto" && !cpu);
    cl_int status = CL_SUCCESS;
    queue_ = Queue(clCreateCommandQueue(session_.context.get(), session_.info.device,
                                        CL_QUEUE_PROFILING_ENABLE, &status));
    Check(status, "clCreateCommandQueue");
    for (const auto& [name, shape] : t.inputs) {
      Tensor& in = tensors_[name];
      in.elements = NumElements(shape);
      in.host = std::make_shared<eigen::AlignedFloats>();
      const std::vector<float> v = GraphInputValues(config, t, name, shape);
      in.host->assign(v.begin(), v.end());
      in.f32 = !HoldsExactlyInHalf(t, name);
      graph_inputs_.insert(name);
    }
    for (const ResolvedLayer& l : t.layers) {
      const int index = static_cast<int>(&l - t.layers.data());
      if (l.is_view) {  // shares the input's storage
        Tensor view = tensors_.at(l.inputs[0]);
        tensors_[l.outputs[0]] = view;
        AddStep(l, index, [](Enqueuer&) {});
        continue;
      }
      if (RunsOnHost(l.op)) {
        AddHostStep(t, l, index, config);
      } else {
        AddDeviceStep(t, l, index, config);
      }
    }
    for (const std::string& out : t.outputs) {
      Tensor& tensor = tensors_.at(out);
      if (!tensor.host) Download(out, -1);
    }
    if (scratch_bytes_ > 0) {
      scratch_ = Memory(clCreateBuffer(session_.context.get(), CL_MEM_READ_WRITE,
                                       static_cast<size_t>(scratch_bytes_), nullptr, &status));
      Check(status, "clCreateBuffer (scratch)");
    }
    host_scratch_.Allocate();
    events_.resize(steps_.size());
    Check(clFinish(queue_.get()), "clFinish");
  }

  ~OpenclExecutable() override {
    if (queue_.get()) clFinish(queue_.get());
    for (auto& step_events : events_) ReleaseEvents(step_events);
  }

  const std::vector<StepInfo>& steps() const override { return steps_; }

  void RunStep(std::size_t index) override {
    ReleaseEvents(events_[index]);
    Enqueuer e(queue_.get(), &events_[index], session_.elementwise_local,
               session_.elementwise_chunk);
    e.scratch = scratch_.get();
    runs_[index](e);
  }

  void Wait() override {
    Check(clFinish(queue_.get()), "clFinish");
    for (const AfterRun& check : after_run_) check(queue_.get());
  }

  std::vector<int64_t> DeviceStepNanoseconds() const override {
    std::vector<int64_t> ns(events_.size(), 0);
    for (size_t i = 0; i < events_.size(); ++i) {
      for (cl_event ev : events_[i]) {
        cl_ulong start = 0, end = 0;
        if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    nullptr) == CL_SUCCESS &&
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
                CL_SUCCESS &&
            end >= start) {
          ns[i] += static_cast<int64_t>(end - start);
        }
      }
    }
    return ns;
  }

  void WriteTensor(const std::string& name, const std::vector<float>& values) override {
    Tensor& tensor = Find(name);
    if (static_cast<int64_t>(values.size()) != tensor.elements) {
      throw Error("", "", name,
                  "expected " + std::to_string(tensor.elements) + " values, got " +
                      std::to_string(values.size()));
    }
    if (tensor.host) std::copy(values.begin(), values.end(), tensor.host->begin());
    // A graph input is uploaded by its copy step; any other tensor is written where it lives.
    if (tensor.device && !graph_inputs_.count(name)) {
      const std::vector<char> bytes =
          StoredBytes(values.data(), tensor.elements, ElementBytes(tensor));
      Check(clEnqueueWriteBuffer(queue_.get(), tensor.device, CL_TRUE, 0, bytes.size(),
                                 bytes.data(), 0, nullptr, nullptr),
            "clEnqueueWriteBuffer");
    }
  }

  std::vector<float> ReadTensor(const std::string& name) const override {
    const Tensor& tensor = const_cast<OpenclExecutable*>(this)->Find(name);
    if (tensor.host && (!tensor.device || graph_inputs_.count(name) || host_written_.count(name))) {
      return std::vector<float>(tensor.host->begin(), tensor.host->end());
    }
    std::vector<float> values(static_cast<size_t>(tensor.elements));
    std::vector<std::uint16_t> halves(ElementBytes(tensor) == 2 ? values.size() : 0);
    void* to = halves.empty() ? static_cast<void*>(values.data()) : halves.data();
    Check(clEnqueueReadBuffer(queue_.get(), tensor.device, CL_TRUE, 0,
                              static_cast<size_t>(tensor.elements * ElementBytes(tensor)), to, 0,
                              nullptr, nullptr),
          "clEnqueueReadBuffer");
    if (!halves.empty()) HalvesToFloats(halves.data(), tensor.elements, values.data());
    return values;
  }

  int64_t workspace_bytes() const override { return scratch_bytes_ + host_scratch_.bytes(); }

  void SetPositionShift(int64_t shift) override {
    CheckPositionShift(shift, reach_);
    position_shift_ = shift;
  }
  int64_t activation_bytes() const override { return activation_bytes_; }

 private:
  static void ReleaseEvents(std::vector<cl_event>& events) {
    for (cl_event ev : events) {
      if (ev) clReleaseEvent(ev);
    }
    events.clear();
  }

  Tensor& Find(const std::string& name) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error("", "", name, "no tensor named '" + name + "'");
    return it->second;
  }

  int ElementBytes(const Tensor& tensor) const { return tensor.f32 ? 4 : session_.element_bytes; }

  // A buffer of `elements` stored as `element_bytes` each, holding `values` (else zeros).
  cl_mem NewDeviceBuffer(int64_t elements, int element_bytes, const float* values = nullptr) {
    cl_int status = CL_SUCCESS;
    const int64_t n = std::max<int64_t>(elements, 1);
    // Floats go as they are (a large weight is not copied twice); halves and zeros are staged.
    const void* host = values;
    std::vector<char> staged;
    if (!values || element_bytes != 4 || elements < 1) {
      if (values) staged = StoredBytes(values, elements, element_bytes);
      staged.resize(static_cast<size_t>(n * element_bytes), 0);
      host = staged.data();
    }
    cl_mem m =
        clCreateBuffer(session_.context.get(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                       static_cast<size_t>(n * element_bytes), const_cast<void*>(host), &status);
    Check(status, "clCreateBuffer");
    buffers_.emplace_back(m);
    return m;
  }

  void AddStep(const ResolvedLayer& l, int index, StepRun run, const std::string& kernel = "") {
    StepInfo step;
    step.name = l.name;
    step.op = l.op;
    step.layer = index;
    step.inlay = l.inlay;
    step.kernel = kernel;
    steps_.push_back(step);
    runs_.push_back(std::move(run));
  }

  // A transfer step: an inlay the breakdown shows before the layer it feeds (-1: at the end).
  void AddCopyStep(const std::string& name, int feeds, StepRun run, const char* kernel) {
    StepInfo step;
    step.name = name;
    step.op = "copy";
    step.inlay = true;
    step.feeds = feeds;
    step.kernel = kernel;
    steps_.push_back(step);
    runs_.push_back(std::move(run));
  }

  // Makes the tensor's device copy current before layer `feeds` reads it.
  cl_mem Upload(const std::string& name, int feeds) {
    Tensor& tensor = Find(name);
    if (tensor.device) return tensor.device;
    tensor.device = NewDeviceBuffer(tensor.elements, ElementBytes(tensor), tensor.host->data());
    const cl_mem to = tensor.device;
    const std::shared_ptr<eigen::AlignedFloats> from = tensor.host;
    const int64_t n = tensor.elements;
    if (ElementBytes(tensor) == 2) {  // f16: converted on the host as part of the copy
      auto halves = std::make_shared<std::vector<std::uint16_t>>(static_cast<size_t>(n));
      AddCopyStep(
          name + ".to_device", feeds,
          [to, from, halves, n](Enqueuer& e) {
            FloatsToHalves(from->data(), n, halves->data());
            e.Write(to, halves->data(), n * 2);
          },
          "host to device, f32 to f16");
      return to;
    }
    AddCopyStep(
        name + ".to_device", feeds,
        [to, from, n](Enqueuer& e) { e.Write(to, from->data(), n * 4); }, "host to device");
    return to;
  }

  float* Download(const std::string& name, int feeds) {
    Tensor& tensor = Find(name);
    if (tensor.host) return tensor.host->data();
    tensor.host = std::make_shared<eigen::AlignedFloats>(static_cast<size_t>(tensor.elements));
    host_written_.insert(name);
    const cl_mem from = tensor.device;
    const std::shared_ptr<eigen::AlignedFloats> to = tensor.host;
    const int64_t n = tensor.elements;
    if (ElementBytes(tensor) == 2) {
      auto halves = std::make_shared<std::vector<std::uint16_t>>(static_cast<size_t>(n));
      AddCopyStep(
          name + ".to_host", feeds,
          [from, to, halves, n](Enqueuer& e) {
            e.Read(from, halves->data(), n * 2);
            HalvesToFloats(halves->data(), n, to->data());
          },
          "device to host, f16 to f32");
      return tensor.host->data();
    }
    AddCopyStep(
        name + ".to_host", feeds, [from, to, n](Enqueuer& e) { e.Read(from, to->data(), n * 4); },
        "device to host");
    return tensor.host->data();
  }

  void AddDeviceStep(const ResolvedTopology& t, const ResolvedLayer& l, int index,
                     const RunConfig& config) {
    auto it = Ops().find(l.op);
    if (it == Ops().end()) {
      throw Error(t.file, l.name, "op", "the opencl backend has no kernel for op '" + l.op + "'");
    }
    std::vector<cl_mem> inputs;
    for (const std::string& in : l.inputs) inputs.push_back(Upload(in, index));
    Tensor& out = tensors_[l.outputs[0]];
    out.elements = NumElements(l.output_shapes[0]);
    std::vector<std::vector<float>> weight_values;
    for (size_t i = 0; i < l.weights.size(); ++i) {
      weight_values.push_back(WeightValues(l, i, config));
    }
    auto upload_weight = [this, &weight_values](size_t i) {
      const std::vector<float>& v = weight_values[i];
      return NewDeviceBuffer(static_cast<int64_t>(v.size()), session_.element_bytes, v.data());
    };
    // A constant's value is its output, written once here.
    out.device = l.op == "constant" && !l.weights.empty()
                     ? upload_weight(0)
                     : NewDeviceBuffer(out.elements, session_.element_bytes);
    activation_bytes_ += out.elements * session_.element_bytes;
    OpArgs args(l, session_, inputs, out.device, &weight_values, upload_weight, &kernels_,
                &buffers_, &scratch_bytes_, &after_run_);
    for (size_t o = 1; o < l.outputs.size(); ++o) {
      Tensor& further = tensors_[l.outputs[o]];
      further.elements = NumElements(l.output_shapes[o]);
      further.device = NewDeviceBuffer(further.elements, session_.element_bytes);
      activation_bytes_ += further.elements * session_.element_bytes;
      args.further_outputs.push_back(further.device);
    }
    for (const std::string& in : l.inputs) args.input_f32.push_back(Find(in).f32);
    args.vector_gemm = vector_gemm_;
    args.group_attention = group_attention_;
    args.split_skinny = split_skinny_;
    args.topology = &t;
    args.position_shift = &position_shift_;
    if (!calibration_.empty()) {
      args.quantize = [this, &t, index](const std::string& tensor) {
        return Quantized(t, tensor, index);
      };
    }
    StepRun run = it->second(args);
    std::string kernels;
    for (const std::string& k : args.kernel_names) kernels += (kernels.empty() ? "" : " + ") + k;
    AddStep(l, index, std::move(run), kernels);
  }

  // The 8-bit copy of `tensor` for an i8 layer: made by a "quantize" inlay step in front of the
  // first layer that asks (layer `feeds`), then shared by the others.
  QuantizedTensor Quantized(const ResolvedTopology& t, const std::string& name, int feeds) {
    auto found = quantized_.find(name);
    if (found != quantized_.end()) return found->second;
    auto range = calibration_.find(name);
    if (range == calibration_.end()) {
      throw Error(t.file, t.layers[feeds].name, name,
                  "no calibrated range for tensor '" + name + "' (i8 needs the reference run)");
    }
    const cl_mem from = Upload(name, feeds);
    const int64_t elements = Find(name).elements;
    QuantizedTensor q;
    q.scale = QuantizationScale(range->second);
    q.is_signed = !range->second.unsigned_8bit();
    cl_int status = CL_SUCCESS;
    q.data = clCreateBuffer(session_.context.get(), CL_MEM_READ_WRITE,
                            static_cast<size_t>(std::max<int64_t>(elements, 1)), nullptr, &status);
    Check(status, "clCreateBuffer (quantized)");
    buffers_.emplace_back(q.data);
    activation_bytes_ += elements;
    kernels_.emplace_back(session_.NewKernel("quantize"));
    cl_kernel kernel = kernels_.back().get();
    SetArgs(kernel, from, q.data, cl_float{q.scale}, cl_int{q.is_signed ? 1 : 0}, Int(elements));
    StepInfo step;
    step.name = t.layers[feeds].name + ".quantize." + name;
    step.op = "quantize";
    step.inlay = true;
    step.feeds = feeds;
    step.kernel = q.is_signed ? "f32 to s8" : "f32 to u8";
    steps_.push_back(step);
    runs_.push_back([kernel, elements](Enqueuer& e) { e.LaunchChunks(kernel, elements); });
    quantized_[name] = q;
    return q;
  }

  void AddHostStep(const ResolvedTopology& t, const ResolvedLayer& l, int index,
                   const RunConfig& config) {
    auto it = eigen::Kernels().find(l.op);
    if (it == eigen::Kernels().end()) {
      throw Error(t.file, l.name, "op", "no host kernel for op '" + l.op + "'");
    }
    std::vector<const float*> inputs;
    for (const std::string& in : l.inputs) inputs.push_back(Download(in, index));
    Tensor& out = tensors_[l.outputs[0]];
    out.elements = NumElements(l.output_shapes[0]);
    out.host = std::make_shared<eigen::AlignedFloats>(static_cast<size_t>(out.elements));
    activation_bytes_ += out.elements * 4;  // the host's floats
    std::vector<const float*> weights;
    for (size_t i = 0; i < l.weights.size(); ++i) {
      host_weights_.push_back(std::make_shared<eigen::AlignedFloats>());
      const std::vector<float> v = WeightValues(l, i, config);
      host_weights_.back()->assign(v.begin(), v.end());
      weights.push_back(host_weights_.back()->data());
    }
    eigen::KernelArgs args{l,       inputs,   out.host->data(), {out.host->data()},
                           weights, threads_, &host_scratch_};
    for (size_t o = 1; o < l.outputs.size(); ++o) {
      Tensor& further = tensors_[l.outputs[o]];
      further.elements = NumElements(l.output_shapes[o]);
      further.host = std::make_shared<eigen::AlignedFloats>(static_cast<size_t>(further.elements));
      activation_bytes_ += further.elements * 4;
      args.outputs.push_back(further.host->data());
    }
    eigen::Kernel kernel = it->second(args);
    AddStep(
        l, index, [kernel](Enqueuer&) { kernel(); }, "host");
  }

  const DeviceSession& session_;
  int threads_;
  int64_t position_shift_ = 0;  // read by the steps of kv_cache, attention and rotary
  int64_t reach_ = 0;           // how far a shift may go (ShiftReach)
  Queue queue_;
  std::map<std::string, Tensor> tensors_;
  Calibration calibration_;  // i8 runs: every tensor's range in the reference run
  std::map<std::string, QuantizedTensor> quantized_;
  std::set<std::string> graph_inputs_, host_written_;
  std::vector<StepInfo> steps_;
  std::vector<StepRun> runs_;
  std::vector<std::vector<cl_event>> events_;
  std::vector<KernelHandle> kernels_;
  std::vector<Memory> buffers_;
  std::vector<AfterRun> after_run_;
  std::vector<std::shared_ptr<eigen::AlignedFloats>> host_weights_;
  eigen::Scratchpad host_scratch_;
  Memory scratch_;
  int64_t scratch_bytes_ = 0, activation_bytes_ = 0;
  bool vector_gemm_ = false;
  bool group_attention_ = false;
  bool split_skinny_ = false;
};

class OpenclBackend : public Backend {
 public:
  std::string name() const override { return "opencl"; }
  bool HasDevices() const override { return true; }

  std::vector<BackendOption> Options() const override {
    return {{"gemm",
             {"auto", "tiled", "vector"},
             "NTPB_OPENCL_GEMM",
             "GEMM kernel: tiled (local memory, for GPUs), vector (register blocks, for CPU "
             "devices); auto picks by the device's type"},
            {"attention",
             {"auto", "query", "group"},
             "NTPB_OPENCL_ATTENTION",
             "attention kernel: query (a work-item per query and head, for CPU devices), group (a "
             "work-group per query and head splitting the keys, for GPUs); auto picks by the "
             "device's type"},
            {"skinny",
             {"auto", "column", "split"},
             "NTPB_OPENCL_SKINNY",
             "products of at most 8 rows with the tiled GEMM: column (a work-item per column, for "
             "CPU devices), split (a work-group per 8-32 columns splitting K, for GPUs); auto "
             "picks by the device's type"}};
  }

  std::vector<DeviceDescription> Devices(std::string* why) const override {
    std::vector<DeviceDescription> out;
    for (const DeviceInfo& d : ListDevices(why)) {
      DeviceDescription& o = out.emplace_back();
      o.spec = "opencl:" + std::to_string(d.platform_index) + ":" + std::to_string(d.device_index);
      o.platform = d.platform_name;
      o.name = d.device_name;
      o.type = d.type;
      o.driver = d.driver_version + ", " + d.opencl_version;
      o.compute_units = d.compute_units;
      o.memory_bytes = d.global_memory_bytes;
      o.max_allocation_bytes = d.max_allocation_bytes;
      o.local_memory_bytes = d.local_memory_bytes;
      if (d.fp16) o.features.push_back("fp16");
      if (d.fp64) o.features.push_back("fp64");
      if (d.int8_dot) o.features.push_back("int8-dot");
    }
    return out;
  }

  bool StartsADriver() const override { return true; }

  std::string version() const override {
    std::string why;
    const std::vector<DeviceInfo> devices = ListDevices(&why);
    if (devices.empty()) return "OpenCL (" + why + ")";
    try {
      return "OpenCL " + SelectDevice(DeviceSpec(RunConfig{})).Description();
    } catch (const Error& e) {
      return "OpenCL (" + e.message() + ")";
    }
  }

  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    DeviceInfo device;
    try {
      device = SelectDevice(DeviceSpec(config));
    } catch (const Error& e) {
      return {false, e.message()};
    }
    if (config.precision == Precision::kF16) {
      if (std::string why = HalfStorageProblem(t); !why.empty()) return {false, why};
    }
    if (config.precision != Precision::kF32 && config.precision != Precision::kI8 &&
        config.precision != Precision::kF16) {
      return {false, std::string("the opencl backend runs f32, f16 and i8, not ") +
                         PrecisionName(config.precision) +
                         (config.precision == Precision::kBf16 ? " (OpenCL C has no bf16 type)"
                                                               : " (no kernels for it yet)")};
    }
    for (const ResolvedLayer& l : t.layers) {
      if (l.is_view) continue;
      if (!Ops().count(l.op) && !(RunsOnHost(l.op) && eigen::Kernels().count(l.op))) {
        return {false,
                "the opencl backend has no kernel for op '" + l.op + "' (layer " + l.name + ")"};
      }
      for (const Shape& s : l.output_shapes) {
        if (NumElements(s) > std::numeric_limits<cl_int>::max()) {
          return {false, "layer " + l.name +
                             "'s output has more elements than the opencl "
                             "kernels' 32-bit indices reach"};
        }
      }
    }
    return {};
  }

  std::string PrecisionPath(Precision precision) const override {
    if (precision == Precision::kF16) {
      return "f16 storage (vload_half / vstore_half, no cl_khr_fp16 needed), f32 arithmetic; "
             "token ids f32";
    }
    if (precision != Precision::kI8) return "";
    return "dense and conv2d on 8-bit integers (u8/s8 activations per tensor, s8 weights per "
           "channel, 32-bit sums), other ops f32";
  }

  std::unique_ptr<Executable> Compile(const ResolvedTopology& t,
                                      const RunConfig& config) const override {
    const Support s = Supports(t, config);
    if (!s.ok) throw Error(t.file, "", "backend", s.reason);
    return std::make_unique<OpenclExecutable>(t, config);
  }
};

}  // namespace
}  // namespace opencl

const Backend* OpenclBackendInstance() {
  static const opencl::OpenclBackend backend;
  return &backend;
}

}  // namespace ntpb
