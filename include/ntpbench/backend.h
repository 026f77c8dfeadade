// Backends compile a resolved topology into an Executable: an ordered list of steps, each mapped
// back to its source layer, that the runner executes and times one by one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ntpbench/precision.h"
#include "ntpbench/resolve.h"

namespace ntpb {

struct RunConfig {
  // No batch: a backend reads N from the resolved shapes.
  Precision precision = Precision::kF32;
  int threads = 0;     // 0: one per available core
  uint64_t seed = 42;  // weights and inputs are drawn from it (same seed -> same numbers)
  // The backend's options (BackendOption) set for this run, by name; those not set take their
  // environment variable's value, else their default (BackendOptionValues).
  std::map<std::string, std::string> options;
  // Values of graph inputs by name (a model's own test input, a recording; all of them or one
  // batch item's, repeated for every item); the others are random from the
  // seed. i8 calibrates on these: static quantization is only as good as its calibration data.
  std::map<std::string, std::vector<float>> inputs;
  // The device a backend with devices runs on ("opencl:PLATFORM:DEVICE", each an index or part
  // of a name); empty: NTPB_OPENCL_DEVICE, else the first device. CPU backends ignore it.
  std::string device;
  // The hetero backend's placement: layer name -> backend, "default" -> the backend of every
  // other layer, "fallback" -> where a layer goes that its backend cannot run (absent: an
  // error). `--place bilstm=onednn,default=opencl,fallback=onednn`.
  std::map<std::string, std::string> placement;
  // i8: the range (min, max) of every tensor in a reference f32 run of the whole topology. The
  // hetero backend sets it, so that each part it compiles quantizes as the whole would (a part's
  // own inputs are not the values the layers before it give); null: a backend calibrates on the
  // topology it compiles.
  std::shared_ptr<const std::map<std::string, std::pair<float, float>>> calibration;
  // The last-level cache of the machine the plan is for, in bytes: 0, the one this machine
  // reports; a benchmark sets the one `ntpbench machine` saw by reads (MachinePeaks::cache_bytes:
  // a VM may report its host's), a latency prediction the calibrated machine's (a backend may
  // choose a kernel by whether a network's weights stay in it between inferences).
  int64_t last_level_cache_bytes = 0;
  // The f32 ridge of the machine the plan is for: `ntpbench machine`'s f32 GEMM ceiling over its
  // memory read (FLOP per byte); 0: not measured. A backend may choose a kernel that reads its
  // weights ahead where they take long to come from memory against the arithmetic.
  double f32_ridge_flops_per_byte = 0;
};

// A switch of a backend that changes what is measured (oneDNN's fusion, Winograd, ...). The
// backend declares it, so --help lists it, the benchmark name carries a value other than the
// default, and the JSON context records every value.
struct BackendOption {
  std::string name;                 // "fusion"
  std::vector<std::string> values;  // what it accepts; the first is the default
  std::string env;                  // the environment variable read when a run does not set it
  std::string help;                 // one line
  // For an option added after calibrations were made: the value that runs as before it existed,
  // which a calibration that does not record the option plans with (empty: the default).
  std::string before = {};
  // Values calibrations recorded before this ntpbench resolved them, and what they ran as there
  // (onednn.winograd: "auto", recorded before its probe, ran as "large").
  std::map<std::string, std::string> recorded_before = {};
};

// Threads a RunConfig asks for, with 0 turned into the number of available cores.
int EffectiveThreads(const RunConfig& config);

struct StepInfo {
  std::string name;  // the layer name, or a name derived from it for inserted inlays
  std::string op;
  int layer = -1;  // index into ResolvedTopology::layers; -1 for backend-inserted inlays
  bool inlay = false;
  int feeds = -1;  // a backend-inserted inlay: the layer it prepares input for (markers count it)
  // Layers after `layer` whose work this step also does (post-op fusion): layers
  // layer..layer+fused, whose last output is the step's output.
  int fused = 0;
  // A tensor this step writes its result over, in place (its last reader: a residual add fused
  // as a sum). Its value is gone after the step.
  std::string overwrites;
  // The implementation the backend chose (oneDNN: its primitive's implementation, e.g.
  // "brgconv_1x1:avx512_core"); empty when it has no such choice.
  std::string kernel;
};

class Executable {
 public:
  virtual ~Executable() = default;
  virtual const std::vector<StepInfo>& steps() const = 0;
  // Runs one step. The runner calls every step in order; a step may start asynchronous work.
  virtual void RunStep(std::size_t index) = 0;
  // Waits for all work started by earlier steps (a no-op for synchronous backends).
  virtual void Wait() {}
  void Run() {
    for (std::size_t i = 0; i < steps().size(); ++i) RunStep(i);
    Wait();
  }
  // Replaces a graph input (or reads any tensor) in logical row-major order, as f32.
  virtual void WriteTensor(const std::string& name, const std::vector<float>& values) = 0;
  virtual std::vector<float> ReadTensor(const std::string& name) const = 0;
  // A tensor read right after the step that writes it, before a later step can reuse its memory
  // (the per-step accuracy reads each step's output so): a tensor whose memory is reused later
  // reads as well. Default: ReadTensor.
  virtual std::vector<float> ReadFreshTensor(const std::string& name) const {
    return ReadTensor(name);
  }
  // Memory the backend set aside besides weights and activations (im2col buffers, scratchpads).
  virtual int64_t workspace_bytes() const { return 0; }
  // The time each step of the last Run spent on the device, by the device's own clock (OpenCL
  // profiling events): what a per-layer breakdown shows without the host waiting after every
  // step. Empty where the backend does not measure it (CPU backends: their wall time is it).
  virtual std::vector<int64_t> DeviceStepNanoseconds() const { return {}; }
  // Bytes the backend allocated for the tensors layers write (after reusing buffers whose
  // tensors are no longer read); 0 when it does not say.
  virtual int64_t activation_bytes() const { return 0; }
  // Runs the next inferences `shift` (<= 0) positions earlier than the topology was resolved
  // for, without compiling again: a decoder built for a key/value cache of `past + seq` rows
  // then serves every decode step up to that context. kv_cache layers append at past + shift,
  // attention over a cache reads its first past + shift + Sq keys, rotary turns by positions
  // offset + shift. 0 restores the resolved positions. Throws ntpb::Error where the backend
  // cannot (a shift other than 0 on a backend that does not say otherwise).
  virtual void SetPositionShift(int64_t shift);
};

// A device a backend can run on (`ntpbench devices`).
struct DeviceDescription {
  std::string spec;                          // what --device takes: "opencl:0:0"
  std::string platform, name, type, driver;  // type: cpu, gpu, accelerator
  int compute_units = 0;
  int64_t memory_bytes = 0, max_allocation_bytes = 0, local_memory_bytes = 0;
  std::vector<std::string> features;  // "fp16", "fp64", "int8-dot"
};

// One step as a backend will run it, planned without compiling: layers layer..layer+fused (post-op
// fusion, StepInfo::fused). A backend may still split a layer's work into several steps
// (a recurrent layer per direction) or insert inlays (reorders) before it; those count as the
// layer's.
struct PlannedStep {
  int layer = 0;
  int fused = 0;
  // The algorithm the backend picks for the step by its shape where that changes what it costs
  // ("winograd": oneDNN's Winograd convolution; "panels": ntpbench's bf16 dense panels;
  // "widened": ntpbench's bf16 depthwise kernel);
  // empty: the op's usual kernels. A latency calibration keeps such steps a kind of their own.
  std::string algorithm;
  // The algorithm runs at about the op's usual kernels' rate ("streamed": ntpbench's direct
  // convolution): where a calibration has no sample of it (one made before it), theirs price it.
  bool priced_as_usual = false;
};

// Whether a backend can run a topology in a configuration, and why not.
struct Support {
  bool ok = true;
  std::string reason;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // What it runs on, for the benchmark context ("Eigen 3.4.0, OpenMP").
  virtual std::string version() const = 0;
  virtual Support Supports(const ResolvedTopology& topology, const RunConfig& config) const = 0;
  // Its settings (`--backend-option`), each with its values, variable and default.
  virtual std::vector<BackendOption> Options() const { return {}; }
  // The options that decide the steps PlanSteps makes, as they come to here under `config` (an
  // `auto` that asks the CPU, not a layer's shape, resolved to its value): what a latency
  // calibration records, so that a prediction for that machine, made on another or by a later
  // ntpbench whose defaults moved, plans the steps it ran (onednn: bf16_depthwise=auto is
  // oneDNN's kernel on one CPU, ntpbench's on another).
  virtual std::map<std::string, std::string> PlanChoices(const RunConfig& config) const {
    (void)config;
    return {};
  }
  // Whether the memory it sets aside (workspace_bytes, activation_bytes, allocations per
  // inference) is the same on every machine for a topology and configuration; false where it
  // picks kernels and layouts by the CPU (oneDNN's scratchpads and blocked layouts follow the ISA).
  virtual bool MemoryPlanIsPortable() const { return true; }
  // Whether it runs on a device chosen by RunConfig::device (`--device`), not on this CPU.
  virtual bool HasDevices() const { return false; }
  // Whether it runs every op of the catalogue; false for an engine of a fixed set of operators
  // (XNNPACK), which refuses a topology with a layer it lacks, naming it: the hetero backend's
  // fallback (`--place default=xnnpack,fallback=onednn`) runs such layers elsewhere.
  virtual bool RunsEveryOp() const { return true; }
  // Whether it runs layers on other backends by RunConfig::placement (the hetero backend).
  virtual bool UsesPlacement() const { return false; }
  // Whether version() loads and starts a driver (OpenCL: PoCL maps ~220 MB of LLVM and starts
  // threads): then it is asked only where a run uses the backend (DetectMachineClass).
  virtual bool StartsADriver() const { return false; }
  // Its devices; empty with the reason in *why when it has devices but finds none.
  virtual std::vector<DeviceDescription> Devices(std::string* why) const {
    (void)why;
    return {};
  }
  // The f32 lanes of the widest vectors its CPU kernels use here (oneDNN under
  // ONEDNN_MAX_CPU_ISA=AVX2: 8 on an AVX-512 CPU); 0 where it does not know (then the CPU's).
  virtual int VectorLanes() const { return 0; }
  // How it runs `precision` on this machine, where that depends on the CPU (one line for the
  // JSON context and the table's footer: "native bf16 arithmetic (avx512_bf16; oneDNN ISA
  // avx512_core_bf16)"); empty when nothing about it depends on the machine.
  virtual std::string PrecisionPath(Precision precision) const {
    (void)precision;
    return "";
  }
  // The steps Compile would make of `topology`, by layer, without allocating or building
  // anything: what a latency prediction (latency_prediction.h) prices. Default: one step per
  // layer; a backend that fuses layers says which.
  virtual std::vector<PlannedStep> PlanSteps(const ResolvedTopology& topology,
                                             const RunConfig& config) const;
  // Allocates weights (deterministic from config.seed), inputs and every buffer; builds all
  // kernels. Nothing is allocated or built later, inside the timed loop.
  virtual std::unique_ptr<Executable> Compile(const ResolvedTopology& topology,
                                              const RunConfig& config) const = 0;
};

// Every option of `backend` with its value for `config`: config.options, else the option's
// environment variable, else its default. Throws ntpb::Error naming the option (and the
// variable) on an unknown option or value.
std::map<std::string, std::string> BackendOptionValues(const Backend& backend,
                                                       const RunConfig& config);
// The options whose value is not the default, as "name:value" name segments in option order
// ("fusion:off"): what a benchmark name carries.
std::vector<std::string> NonDefaultOptionSegments(const Backend& backend,
                                                  const std::map<std::string, std::string>& values);

// Adds a backend made outside ntpbench (a suite's own, a framework's), as Google Benchmark's
// RegisterMemoryManager adds a memory manager: from then on it is found by name like the built-in
// ones (FindBackend, BackendNames, `--ntpb_*` flags, NTPB_TOPOLOGY_BENCHMARK(...)->Backends()).
// Register it before the benchmarks that use it (from main, before ntpb::Initialize). Throws
// ntpb::Error for a name that is taken or not lowercase letters, digits and '_'.
void RegisterBackend(std::unique_ptr<Backend> backend);

// The backends of this ntpbench (built in, then registered); nullptr when `name` is not one.
const Backend* FindBackend(const std::string& name);
std::vector<std::string> BackendNames();
// "unknown backend 'x' (known: eigen, onednn)" for a name that is neither a backend of this
// build nor one it knows of but left out (BackendUnavailableReason); else "".
std::string UnknownBackendProblem(const std::string& name);
// Backends ntpbench knows of but that this build does not contain, with the reason (e.g.
// "onednn: not built yet"); empty string when `name` is built in or unknown.
std::string BackendUnavailableReason(const std::string& name);

}  // namespace ntpb
