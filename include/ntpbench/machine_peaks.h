// The machine's ceilings: peak FLOP/s per precision and memory and last-level-cache read
// bandwidth, measured once per machine class and thread count (`ntpbench machine`, which runs
// the measurement: src/cli/peak_measurement.h) and cached as JSON. The roofline reads them.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ntpbench/machine_class.h"

namespace ntpb {

// One ceiling as measured: the best of one measurement's runs and how far they spread, and the
// bests of the last measurements (`ntpbench machine --refresh`), which tell a figure that holds
// from one that a busy minute made.
struct Ceiling {
  std::string unit;   // "GFLOP/s" or "GB/s"
  std::string what;   // how it was measured ("vfmadd231ps zmm, registers only", "read 1 MiB")
  double best = 0;    // this measurement: the best of its runs
  double spread = 0;  // this measurement: (best - worst) / best over its runs
  int runs = 0;
  // The bests of the last measurements, oldest first, this one last (at most kHistory).
  std::vector<double> history;
  static constexpr int kHistory = 4;
  static constexpr double kAgreement = 0.10;  // two measurements within 10% agree

  // The last two measurements differ by more than kAgreement.
  bool Unreliable() const;
  // The figure to use: the highest best that agrees with a measurement next to it in the
  // history; without such a pair, the latest best.
  double Kept() const;
};

// A new measurement of `now` after `before` (the same ceiling, from the cache): `now`'s history
// continued from `before`'s.
Ceiling ContinueHistory(const Ceiling& before, Ceiling now);

// The last-level cache the reads show: the largest of `reads` (bytes, GB/s, in rising sizes)
// read at least twice as fast as memory (`memory_gbs`), or 1.5x on a plateau (within 15% of the
// read half its size), where that is less than half of `reported` (hwloc's size).
// A virtual machine can report the host's total (a Zen 5 VM: 508 MiB, read at memory speed from
// 64 MiB up while 16 MiB read 2.7x as fast), and the roofline would then bound a layer whose
// weights the 32 MiB L3 holds by memory. Returns that size (the cache holds at least it; `reads`
// go up in steps of 2x, so it is within 2x of the cache), or `reported` where the reads agree
// with it. A backend asks it whether a network's weights stay cached between inferences
// (RunConfig::last_level_cache_bytes).
int64_t CacheSeenByReads(int64_t reported, const std::vector<std::pair<int64_t, double>>& reads,
                         double memory_gbs);

struct MachinePeaks {
  std::string machine_class;  // MachineClass::id()
  std::string machine;        // MachineClass::human()
  int threads = 0;
  std::string measured;                       // ISO 8601, UTC
  std::map<std::string, double> peak_gflops;  // by precision name; absent: not measurable
  // The weight-only precisions (w8, w4) compute in f32: their peak is f32's.
  void AddWeightOnlyPeaks();
  std::map<std::string, std::string> kernels;     // by precision: oneDNN's implementation
  std::map<std::string, std::string> unmeasured;  // by precision: why not
  double bandwidth_gbs = 0;                       // memory read bandwidth, `threads` threads
  // The ridge of `precision`: its GEMM ceiling over the memory read, FLOPs per byte (0: either
  // not measured).
  double RidgeFlopsPerByte(const std::string& precision) const;
  // The last-level cache: its size, and the read bandwidth of data resident in it (0: not
  // measured; files from before they were have neither).
  int64_t cache_bytes = 0;
  double cache_bandwidth_gbs = 0;
  // What the machine reports as its last-level cache (hwloc), where cache_bytes is what the
  // reads show: a virtual machine can report the host's total (0: not recorded).
  int64_t reported_cache_bytes = 0;
  // The L2 of one core, and the read bandwidth of data resident in the threads' L2s (0: not
  // measured).
  int64_t l2_bytes = 0;
  double l2_bandwidth_gbs = 0;
  // Every ceiling measured, by name ("gemm.f32", "register.bf16", "read.dram", "triad.l2",
  // "read.16MiB"): the fields above are the Kept() figures of gemm.*, read.dram, read.l3 and
  // read.l2.
  std::map<std::string, Ceiling> ceilings;

  // What no machine can show, in this measurement's bests: a cache read slower than the memory
  // behind it (L2 >= L3 >= DRAM, read and triad each, 10% leeway for noise), a library GEMM
  // faster than the register-only loop of its precision (10% leeway). Each a sentence; a busy
  // machine makes them (a thread preempted mid-measurement), and such figures are not cached.
  std::vector<std::string> Impossible() const;

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
