// perf_event software events opened directly: they work where PAPI's perf_event component has
// no hardware PMU (virtual machines). One group per thread of the process, so OpenMP workers are
// counted too; open it after the thread pool exists.
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/instrument/sources.h"

namespace ntpb::instrument {
namespace {

constexpr uint64_t kEvents[] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
                                PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS};
constexpr int kCount = 4;

int Open(uint64_t config, pid_t tid, int group) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.read_format = PERF_FORMAT_GROUP;
  attr.exclude_kernel = 0;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, group, 0));
}

class PerfSource : public CounterSource {
 public:
  ~PerfSource() override {
    for (int fd : fds_) close(fd);
  }
  std::string name() const override { return "perf"; }
  const std::vector<std::string>& metrics() const override {
    static const std::vector<std::string> m = {"task_clock_ms", "page_faults", "context_switches",
                                               "cpu_migrations"};
    return m;
  }
  // Opens a group on every thread now in the process; false with errno's text on failure.
  bool OpenAll(std::string* reason) {
    DIR* dir = opendir("/proc/self/task");
    if (!dir) {
      *reason = std::string("cannot list /proc/self/task: ") + std::strerror(errno);
      return false;
    }
    while (dirent* e = readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      int leader = -1;
      for (int i = 0; i < kCount; ++i) {
        const int fd = Open(kEvents[i], tid, leader);
        if (fd < 0) {
          *reason = std::string("perf_event_open failed: ") + std::strerror(errno) +
                    " (see /proc/sys/kernel/perf_event_paranoid)";
          closedir(dir);
          return false;
        }
        fds_.push_back(fd);
        if (leader < 0) {
          leader = fd;
          leaders_.push_back(fd);
        }
      }
    }
    closedir(dir);
    return !leaders_.empty();
  }
  void Start() override { Sample(start_); }
  void Read(double* values) override {
    double now[kCount];
    Sample(now);
    values[0] = (now[0] - start_[0]) * 1e-6;  // ns -> ms
    for (int i = 1; i < kCount; ++i) values[i] = now[i] - start_[i];
  }

 private:
  void Sample(double* v) {
    for (int i = 0; i < kCount; ++i) v[i] = 0;
    for (int fd : leaders_) {
      uint64_t buf[1 + kCount] = {};
      if (read(fd, buf, sizeof buf) != static_cast<ssize_t>(sizeof buf)) continue;
      for (int i = 0; i < kCount; ++i) v[i] += static_cast<double>(buf[1 + i]);
    }
  }
  std::vector<int> fds_, leaders_;
  double start_[kCount] = {};
};

}  // namespace

std::unique_ptr<CounterSource> MakePerfSource(std::string* reason) {
  auto source = std::make_unique<PerfSource>();
  if (!source->OpenAll(reason)) return nullptr;
  return source;
}

}  // namespace ntpb::instrument
