// What the rest of the machine took while a run measured: involuntary context switches of this
// process (getrusage), and the time the cores this process may use spent on other processes
// and, in a VM, on other guests (steal), from /proc/stat less this process's own CPU time
// (/proc/self/stat). Always on: two small reads per measurement, outside the timed loop.
#pragma once

#include <cstdint>
#include <vector>

#include "ntpbench/results.h"

namespace ntpb::instrument {

class InterferenceProbe {
 public:
  void Start();
  // Since Start, over `iterations` iterations (queries); the MdAPE is left to the caller.
  InterferenceMeasure Stop(double iterations) const;

  // One reading; public for tests.
  struct Sample {
    int64_t ns = 0;           // steady clock
    int64_t involuntary = 0;  // this process's involuntary context switches, all threads
    int64_t own_ticks = 0;    // this process's user + system time, clock ticks
    int64_t busy_ticks = 0;   // the allowed CPUs' user, nice, system, irq, softirq time
    int64_t steal_ticks = 0;  // ... time the hypervisor gave another guest
    int64_t total_ticks = 0;  // ... every state (the cores' time)
    int cores = 0;            // CPUs in this process's affinity mask
  };
  static Sample Read();
  static InterferenceMeasure Between(const Sample& a, const Sample& b, double iterations);

 private:
  Sample start_;
};

// The allowed CPUs' times summed from /proc/stat's text ("cpuN user nice system idle iowait
// irq softirq steal ..."), for the CPU numbers in `cpus`: {busy, steal, total}.
struct CpuTicks {
  int64_t busy = 0, steal = 0, total = 0;
};
CpuTicks ParseProcStat(const std::string& text, const std::vector<int>& cpus);

}  // namespace ntpb::instrument
