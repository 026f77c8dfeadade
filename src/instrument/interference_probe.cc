#include "src/instrument/interference_probe.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "src/instrument/core_distance.h"

namespace ntpb::instrument {
namespace {

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

// utime + stime of /proc/self/stat (fields 14 and 15; the command in field 2 may hold spaces,
// so counting starts after its closing parenthesis).
int64_t OwnTicks() {
  const std::string stat = ReadAll("/proc/self/stat");
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream in(stat.substr(paren + 1));
  std::string field;
  int64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::atoll(field.c_str());
    if (i == 15) stime = std::atoll(field.c_str());
  }
  return utime + stime;
}

}  // namespace

CpuTicks ParseProcStat(const std::string& text, const std::vector<int>& cpus) {
  CpuTicks t;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(line[3])) continue;
    std::istringstream in(line.substr(3));
    int cpu = -1;
    in >> cpu;
    if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) continue;
    // user nice system idle iowait irq softirq steal (guest time is within user already)
    int64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t& x : v) in >> x;
    t.busy += v[0] + v[1] + v[2] + v[5] + v[6];
    t.steal += v[7];
    for (int64_t x : v) t.total += x;
  }
  return t;
}

InterferenceProbe::Sample InterferenceProbe::Read() {
  Sample s;
  s.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
             .count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  s.involuntary = usage.ru_nivcsw;
  s.own_ticks = OwnTicks();
  const std::vector<int> cpus = AllowedCpus();
  const CpuTicks t = ParseProcStat(ReadAll("/proc/stat"), cpus);
  s.busy_ticks = t.busy;
  s.steal_ticks = t.steal;
  s.total_ticks = t.total;
  s.cores = static_cast<int>(cpus.size());
  return s;
}

MachineActivity InterferenceProbe::Between(const Sample& a, const Sample& b, double iterations) {
  MachineActivity m;
  m.seconds = (b.ns - a.ns) * 1e-9;
  const double switches = static_cast<double>(b.involuntary - a.involuntary);
  m.involuntary_switches = iterations > 0 ? switches / iterations : 0;
  if (m.seconds > 0 && b.cores > 0) {
    m.involuntary_switches_per_core_second = switches / m.seconds / b.cores;
  }
  const double total = static_cast<double>(b.total_ticks - a.total_ticks);
  if (total > 0) {
    m.steal_share = static_cast<double>(b.steal_ticks - a.steal_ticks) / total;
    const double others =
        static_cast<double>((b.busy_ticks - a.busy_ticks) - (b.own_ticks - a.own_ticks));
    m.others_share = std::max(0.0, others / total);
  }
  return m;
}

void InterferenceProbe::Start() {
  start_core_to_core_ns_ = MeasureCoreToCoreNs();
  start_ = Read();
}

MachineActivity InterferenceProbe::Stop(double iterations) const {
  MachineActivity m = Between(start_, Read(), iterations);
  m.core_to_core_ns = std::max(start_core_to_core_ns_, MeasureCoreToCoreNs());
  return m;
}

}  // namespace ntpb::instrument
