// What the rest of the machine took while a run measured: involuntary context switches of this
// process (getrusage), and the time the cores this process may use spent on other processes
// and, in a VM, on other guests (steal), from /proc/stat less this process's own CPU time
// (/proc/self/stat); and how far apart the cores were (core_distance.h), before and after.
// Always on, outside the timed loop: two small reads and two millisecond ping-pongs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ntpb::instrument {

// What the probe saw over a span. Its own type, not the results model's: the measuring side
// (bench) puts it into the model (InterferenceMeasure), so instrument needs nothing above it.
struct MachineActivity {
  double seconds = 0;  // the span observed
  // Involuntary context switches of all this process's threads: per iteration (or query), and
  // per second per core.
  double involuntary_switches = 0;
  double involuntary_switches_per_core_second = 0;
  double steal_share = 0;   // of the cores' time: the hypervisor ran another guest
  double others_share = 0;  // of the cores' time: other processes ran
  // The cores' one-way core-to-core latency (MeasureCoreToCoreNs), the larger of its readings
  // at the start and the end: the span ran at least partly with its cores that far apart.
  // 0: not measured.
  double core_to_core_ns = 0;
};

class InterferenceProbe {
 public:
  void Start();
  // Since Start, over `iterations` iterations (queries).
  MachineActivity Stop(double iterations) const;

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
  static MachineActivity Between(const Sample& a, const Sample& b, double iterations);

 private:
  Sample start_;
  double start_core_to_core_ns_ = 0;
};

// The allowed CPUs' times summed from /proc/stat's text ("cpuN user nice system idle iowait
// irq softirq steal ..."), for the CPU numbers in `cpus`: {busy, steal, total}.
struct CpuTicks {
  int64_t busy = 0, steal = 0, total = 0;
};
CpuTicks ParseProcStat(const std::string& text, const std::vector<int>& cpus);

}  // namespace ntpb::instrument
