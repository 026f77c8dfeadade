#include "src/bench/step_timer.h"

#include <time.h>

namespace ntpb::bench {

int64_t NowNanoseconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t RunTimedSteps(Executable& executable, std::vector<int64_t>& step_ns, int64_t* row,
                      std::vector<int64_t>* stamps) {
  const int64_t start = NowNanoseconds();
  int64_t t0 = start;
  const std::size_t n = step_ns.size();
  for (std::size_t i = 0; i < n; ++i) {
    executable.RunStep(i);
    executable.Wait();
    const int64_t t1 = NowNanoseconds();
    step_ns[i] += t1 - t0;
    if (row) row[i] = t1 - t0;
    if (stamps) stamps->insert(stamps->end(), {t0, t1});
    t0 = t1;
  }
  return t0 - start;
}

std::vector<int64_t> DeviceStepTimes(Executable& executable, int64_t runs) {
  if (executable.DeviceStepNanoseconds().empty() || runs < 1) return {};
  std::vector<int64_t> total(executable.steps().size(), 0);
  for (int64_t r = 0; r < runs; ++r) {
    executable.Run();
    const std::vector<int64_t> ns = executable.DeviceStepNanoseconds();
    for (size_t i = 0; i < total.size() && i < ns.size(); ++i) total[i] += ns[i];
  }
  for (int64_t& ns : total) ns /= runs;
  return total;
}

}  // namespace ntpb::bench
