// What this machine is, read once from the operating system through hwloc: the CPU, the cores
// this process may run on, the caches of the first of them and the vector ISA. The one source of
// machine facts for the machine class, the roofline and the benchmark context.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ntpb {

struct CacheLevel {
  int level = 0;      // 1, 2, 3, ...
  std::string type;   // "data", "unified" or "instruction"
  int64_t bytes = 0;  // one instance: what one core can use at this level
  int shared_by = 0;  // logical CPUs sharing that instance (whether this process may use them)
};

struct MachineFacts {
  std::string cpu;  // the CPU model ("AMD EPYC", "Intel(R) Xeon(R) Processor @ 2.80GHz")
  // Logical CPUs this process may run on (its affinity mask: `taskset -c 0` makes it 1).
  int cores = 0;
  std::vector<CacheLevel> caches;  // data and unified caches of the first allowed CPU, by level
  // The CPU's flags as the kernel reports them (/proc/cpuinfo), which include only what the
  // kernel enabled (AMX needs it).
  std::vector<std::string> cpu_flags;

  // The last-level data or unified cache one core can use; 0 bytes when none is known.
  int64_t last_level_cache_bytes() const;
  // What each data or unified cache level holds for `threads` threads on cores of their own
  // together, level 1 up: a private L2 counted once per thread (threads beyond `cores` share
  // them), a shared L3 once.
  std::vector<int64_t> CacheBytesFor(int threads) const;
  bool HasFlag(const std::string& flag) const;
  // The vector extensions backends use, in a fixed order ("avx2 fma avx512f ... avx512_bf16").
  std::string isa() const;
  nlohmann::json ToJson() const;
};

// Read once per process; never throws (unknown facts stay empty or 0).
const MachineFacts& ThisMachine();

// Reads the facts afresh (for tests; ThisMachine caches this).
MachineFacts ReadMachineFacts();

}  // namespace ntpb
