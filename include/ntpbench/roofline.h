// The machine's roofline: peak FLOP/s per precision and memory bandwidth, measured once per
// machine class and thread count (`ntpbench machine`) and cached. A layer's bound is
// min(peak, intensity x bandwidth); its "% of roofline" is the time that bound allows over the
// time it took.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ntpbench/analysis.h"
#include "ntpbench/machine_class.h"
#include "ntpbench/precision.h"

namespace ntpb {

struct MachinePeaks {
  std::string machine_class;  // MachineClass::id()
  std::string machine;        // MachineClass::human()
  int threads = 0;
  std::string measured;                           // ISO 8601, UTC
  std::map<std::string, double> peak_gflops;      // by precision name; absent: not measurable
  std::map<std::string, std::string> kernels;     // by precision: oneDNN's implementation
  std::map<std::string, std::string> unmeasured;  // by precision: why not
  double bandwidth_gbs = 0;                       // memory read bandwidth, `threads` threads
  // The last-level cache: its size, and the read bandwidth of data resident in it (0: not
  // measured; files from before they were have neither).
  int64_t cache_bytes = 0;
  double cache_bandwidth_gbs = 0;

  nlohmann::json ToJson() const;
  // Throws ntpb::Error naming `file` and the field on anything malformed.
  static MachinePeaks FromJson(const nlohmann::json& json, const std::string& file);
};

// Measures peaks (oneDNN matmul 2048^3 per precision: f32, bf16, i8 as u8 x s8), the memory
// read bandwidth (256 MiB) and that of the last-level cache (a quarter of it) with `threads`
// threads; progress on stderr. Takes some seconds.
MachinePeaks MeasureMachinePeaks(const MachineClass& machine, int threads);

// $NTPB_CACHE_DIR, else $XDG_CACHE_HOME/ntpbench, else ~/.cache/ntpbench; then
// machine/<class id>-<threads>t.json.
std::string MachinePeaksPath(const MachineClass& machine, int threads);
// The cached peaks, if there is a file (a corrupt one throws, naming it).
std::optional<MachinePeaks> ReadMachinePeaks(const std::string& path);
void WriteMachinePeaks(const MachinePeaks& peaks, const std::string& path);  // atomic

struct RooflineBound {
  double ms = 0;              // the least time the machine needs for it; 0: no bound known
  bool memory_bound = false;  // bandwidth, not peak FLOP/s, sets the bound
  bool from_cache = false;    // ... the last-level cache's bandwidth
};

// The bound of work with `cost` at `precision`: FLOPs at peak, or its memory traffic (weights as
// often as they are read, inputs, outputs) at the bandwidth, whichever takes longer. The
// bandwidth is the last-level cache's when `working_set` (the bytes one inference touches:
// weights and peak activations) fits in half of it, since those bytes then stay cached from
// one inference to the next; memory's otherwise.
RooflineBound Roofline(const Cost& cost, Precision precision, const MachinePeaks& peaks,
                       int64_t working_set = 0);
// Whether a working set counts as cache-resident for Roofline.
bool FitsInCache(int64_t working_set, const MachinePeaks& peaks);

}  // namespace ntpb
