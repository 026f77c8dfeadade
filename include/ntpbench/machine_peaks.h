// The machine's ceilings: peak FLOP/s per precision and memory and last-level-cache read
// bandwidth, measured once per machine class and thread count (`ntpbench machine`, which runs
// the measurement: src/cli/peak_measurement.h) and cached as JSON. The roofline reads them.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ntpbench/machine_class.h"

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

// $NTPB_CACHE_DIR, else $XDG_CACHE_HOME/ntpbench, else ~/.cache/ntpbench; then
// machine/<class id>-<threads>t.json.
std::string MachinePeaksPath(const MachineClass& machine, int threads);
// The cached peaks, if there is a file (a corrupt one throws, naming it).
std::optional<MachinePeaks> ReadMachinePeaks(const std::string& path);
void WriteMachinePeaks(const MachinePeaks& peaks, const std::string& path);  // atomic

}  // namespace ntpb
