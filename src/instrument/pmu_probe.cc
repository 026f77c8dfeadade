#include "src/instrument/pmu_probe.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ntpb::instrument {

std::string HardwarePmuProblem() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.exclude_kernel = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd >= 0) {
    close(fd);
    return "";
  }
  const int err = errno;
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV) {
    return std::string("no hardware PMU: perf_event_open(cycles) says ") + std::strerror(err) +
           " (a virtual machine without PMU passthrough?)";
  }
  return std::string("hardware counters not accessible: perf_event_open(cycles) says ") +
         std::strerror(err) + " (see /proc/sys/kernel/perf_event_paranoid)";
}

}  // namespace ntpb::instrument
