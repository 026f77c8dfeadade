// A latency calibration: what each kind of step cost on one machine, for one backend, precision
// and thread count, measured over a designed sample of the ops' parameter spaces (the probe
// sweeps in calibration/). `ntpbench calibrate` writes it; `ntpbench predict` prices a
// topology's steps with it (latency_prediction.h), on any machine, without running there. A
// portable JSON file keyed by the machine class and the environment it was measured in.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/machine_class.h"
#include "ntpbench/resolve.h"

namespace ntpb {

// What prices a step: which kind of work it is and how much.
struct StepFeatures {
  // The host layer's op and its kind where kernels differ: "conv2d", "conv2d.depthwise",
  // "conv2d.grouped", "conv2d.winograd", "dense.panels" (the backend's algorithm, PlannedStep),
  // "dense", "lstm".
  std::string family;
  std::string detail;  // what else picks the kernel within the family: "k3s2" for a conv2d
  std::string fused;   // the layers fused into the step, by op: "+batchnorm+relu+add"
  // The family of the op's usual kernels ("conv2d"), where the step's algorithm runs at about
  // their rate (PlannedStep::priced_as_usual): what prices it where no sample of its own family
  // exists. Empty: none (not stored with a sample).
  std::string usual_family;
  double flops = 0;
  double bytes = 0;  // weights read, activations read and written, at the precision
  // Of those, the activations read and written: their ratio tells shapes of the same work apart
  // (a dense layer of many inputs and few units from one of few inputs and many).
  double input_bytes = 0, output_bytes = 0;
  int64_t batch = 0;
  // The bytes the whole network moves per inference: whether a step's weights are still in the
  // caches from the inference before (a small MLP's are; a CNN's classifier's, after megabytes
  // of feature maps, are not) depends on it, not on the step.
  double context_bytes = 0;
  // The FLOPs of the whole network per inference: with its bytes, how long an inference runs
  // between two uses of a step's weights (on a shared cache, neighbours evict them meanwhile): a
  // decoder's step reuses its weights after a few MFLOP, an encoder's pooler of the same shape
  // after hundreds. 0 in calibrations from before it was recorded (then not a feature).
  double context_flops = 0;
  // Of the vector lanes its channels fill: a convolution's output channels (a depthwise one's
  // channels) run in blocks of the machine's vector width, 24 of them as 32 (0.75). Its kernel does
  // WorkFlops() = flops / lane_fill of arithmetic, and is priced by that.
  double lane_fill = 1;
  double WorkFlops() const { return flops / lane_fill; }
  // "conv2d.depthwise[k3s1]+batchnorm+clipped_relu".
  std::string Signature() const;
};

// The f32 lanes of a machine's widest vectors (16 with AVX-512, 8 with AVX2): the block a
// convolution's channels are padded to, where the backend does not say (Backend::VectorLanes).
int VectorLanes(const MachineClass& machine);

// The step `step` of a backend's plan of `topology` (`analysis` of it): the layers
// step.layer..step.layer+step.fused, and the algorithm the backend picked for it, on a machine of
// `lanes` vector lanes (VectorLanes).
StepFeatures FeaturesOfStep(const ResolvedTopology& topology, const TopologyAnalysis& analysis,
                            const PlannedStep& step, int lanes);

struct CalibrationSample {
  StepFeatures features;
  double ms = 0;       // the step's median time per inference, the inlays before it included
  std::string source;  // where it was measured: "cnn batch=8,size=64 / stage2.conv1"
  // How far apart the cores were in the run it came from (InterferenceMeasure::core_to_core_ns);
  // 0: not measured (calibrations from before, or one core).
  double core_to_core_ns = 0;
};

struct LatencyCalibration {
  // 2: a backend's algorithm became part of a step's kind (conv2d.winograd); version 1's
  // samples priced Winograd and direct convolutions alike.
  // 3: ntpbench's bf16 dense panels a kind of their own (dense.panels); a version 2 bf16
  // calibration's dense samples mixed them with oneDNN's matmul and is refused, version 2 of
  // other precisions read as it is (nothing else changed).
  static constexpr int kVersion = 3;
  std::string file;  // where it was read from (messages; not serialized)
  MachineClass machine;
  std::string backend;    // "onednn"
  std::string precision;  // "f32"
  int threads = 0;        // threads per run (one per core when 0 was asked)
  // The f32 lanes of the vectors the backend's kernels used (Backend::VectorLanes): not the
  // CPU's where an ISA cap held them narrower (ONEDNN_MAX_CPU_ISA=AVX2 on an AVX-512 CPU: 8).
  int vector_lanes = 0;
  // What each cache level holds for the calibration's threads together, level 1 up (the L2s of
  // its cores summed, a shared L3 once): which of them a network's bytes fit in decides whether
  // its weights are still there from the inference before. Empty in calibrations from before it
  // was recorded (the step's network bytes then price it alone).
  std::vector<int64_t> cache_bytes;
  // The f32 ridge its probes' runs planned with (RunConfig::f32_ridge_flops_per_byte: `ntpbench
  // machine`'s f32 GEMM ceiling over its memory read); 0 where not measured or from before it was
  // recorded. A prediction plans as they did.
  double f32_ridge_flops_per_byte = 0;
  // The backend's options that decide its plan of steps (Backend::PlanChoices), as they came to
  // on the calibrated machine: a prediction plans with them, not with the predicting machine's
  // or this ntpbench's defaults. Empty in calibrations from before they were recorded (this
  // machine's then); an option missing from them, this ntpbench's default.
  std::map<std::string, std::string> backend_choices;
  std::string created;              // UTC, ISO 8601
  std::vector<std::string> probes;  // the probe sweeps it ran, by name
  int points = 0;                   // probe runs measured (in the first pass)
  // Passes over every probe point, minutes apart; each sample is its step's fastest pass placed
  // as the nearest (core_to_core_ns below). A VM's host moves its two virtual CPUs between one
  // core complex and two within seconds (every step of a 60 us MLP +2-4 us far apart), and its
  // neighbours only ever slow it. 1 in calibrations from before.
  int passes = 1;
  // The placement of the cores its samples were measured in: the median of their runs' core-to-
  // core latency (InterferenceMeasure::core_to_core_ns); `predict --check` counts the runs made
  // in the same placement (SameCorePlacement). 0: not measured (calibrations from before).
  double core_to_core_ns = 0;
  int failed_points = 0;      // probe runs that failed (their reasons in `problems`)
  int unreliable_points = 0;  // measured on a busy machine or with a wide spread
  // Per probe, how much the machine's speed moved while it ran: one of its points (the first
  // of a millisecond or more) run again after its last, over its first run, less 1. A VM's can move
  // by a quarter within minutes while no point looks disturbed on its own (kDriftLimit: a problem
  // line).
  std::map<std::string, double> probe_drift;
  static constexpr double kDriftLimit = 0.10;
  // Per probe, that point again, for `predict --check` to run once more: how the machine's speed
  // at the check compares with its speed while calibrated (a VM's moved by 10% within an hour).
  struct SpeedReference {
    std::string sweep;              // the probe's sweep file, as calibrate was given it
    std::vector<std::string> base;  // the settings calibrate gave it (sweep --base)
    std::string point;              // the point's id
    double ms = 0;                  // its latency, the geometric mean of its two runs
  };
  std::map<std::string, SpeedReference> speed_references;
  std::vector<std::string> problems;
  std::vector<CalibrationSample> samples;
};

// The probe whose machine moved most while it ran, where that exceeds kDriftLimit: "the
// machine's speed moved by 24% while probe_cnn ran"; "" where every probe stayed within it.
std::string DriftNote(const LatencyCalibration& calibration);

nlohmann::json LatencyCalibrationJson(const LatencyCalibration& calibration);
// Throws ntpb::Error naming the file and the field for a file that is not a calibration, another
// version, truncated or mistyped.
LatencyCalibration ParseLatencyCalibration(const std::string& text, const std::string& file);
LatencyCalibration ReadLatencyCalibration(const std::string& path);
void WriteLatencyCalibration(const LatencyCalibration& calibration,
                             const std::string& path);  // atomic

}  // namespace ntpb
