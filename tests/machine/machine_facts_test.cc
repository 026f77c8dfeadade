// Machine facts against what the kernel says in sysfs and in the affinity mask: the caches of the
// first CPU this process may use, and how many CPUs it may use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <fstream>
#include <map>
#include <string>

#include "ntpbench/backend.h"
#include "ntpbench/machine.h"

namespace ntpb {
namespace {

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "32K", "1024K", "32768K", "2M" -> bytes
int64_t SysfsSize(const std::string& text) {
  const int64_t n = std::stoll(text);
  switch (text.empty() ? ' ' : text.back()) {
    case 'K':
      return n << 10;
    case 'M':
      return n << 20;
    case 'G':
      return n << 30;
    default:
      return n;
  }
}

int FirstAllowedCpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) return cpu;
  }
  return 0;
}

TEST(MachineFacts, CacheSizesAreSysfsCachesOfTheFirstAllowedCpu) {
  const std::string dir =
      "/sys/devices/system/cpu/cpu" + std::to_string(FirstAllowedCpu()) + "/cache/";
  std::map<int, int64_t> sysfs;  // level -> data or unified cache bytes
  for (int index = 0; index < 16; ++index) {
    const std::string base = dir + "index" + std::to_string(index) + "/";
    const std::string type = ReadLine(base + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    sysfs[std::stoi(ReadLine(base + "level"))] = SysfsSize(ReadLine(base + "size"));
  }
  if (sysfs.empty()) GTEST_SKIP() << "this kernel shows no caches in " << dir;
  const MachineFacts facts = ReadMachineFacts();
  std::map<int, int64_t> read;
  for (const CacheLevel& c : facts.caches) read[c.level] = c.bytes;
  EXPECT_EQ(read, sysfs);
  EXPECT_EQ(facts.last_level_cache_bytes(), sysfs.rbegin()->second)
      << "the last level is the largest level's data or unified cache, not /proc/cpuinfo's "
         "'cache size'";
}

TEST(MachineFacts, CoresAreTheCpusThisProcessMayUse) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const MachineFacts facts = ReadMachineFacts();
  EXPECT_EQ(facts.cores, CPU_COUNT(&set)) << "under taskset -c 0 this is 1";
  EXPECT_EQ(EffectiveThreads(RunConfig{}), facts.cores) << "threads default to those CPUs";
}

TEST(MachineFacts, IsaListsOnlyFlagsTheKernelReports) {
  const MachineFacts facts = ReadMachineFacts();
  EXPECT_FALSE(facts.cpu.empty());
  const std::string isa = facts.isa();
  for (const char* flag : {"avx2", "avx512f", "avx512_bf16", "amx_tile"}) {
    EXPECT_EQ(isa.find(flag) != std::string::npos, facts.HasFlag(flag)) << flag;
  }
  const nlohmann::json j = facts.ToJson();
  EXPECT_EQ(j["last_level_cache_bytes"], facts.last_level_cache_bytes());
}

}  // namespace
}  // namespace ntpb
