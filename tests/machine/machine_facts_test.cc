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
#include "src/machine/ceiling_kernels.h"

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

TEST(MachineFacts, CacheBytesForThreadsCountPrivateCachesOncePerThread) {
  MachineFacts m;
  m.cores = 4;
  m.caches = {{1, "data", 48 << 10, 1}, {2, "unified", 2 << 20, 1}, {3, "unified", 32 << 20, 16}};
  EXPECT_EQ(m.CacheBytesFor(2), (std::vector<int64_t>{96 << 10, 4 << 20, 32 << 20}));
  EXPECT_EQ(m.CacheBytesFor(1), (std::vector<int64_t>{48 << 10, 2 << 20, 32 << 20}));
  // An L2 two cores share (as on some Atom-class CPUs) counts once per pair.
  m.caches[1].shared_by = 2;
  EXPECT_EQ(m.CacheBytesFor(4)[1], int64_t{4} << 20);
  EXPECT_EQ(m.CacheBytesFor(3)[1], int64_t{4} << 20);
  // More threads than cores run on the same caches.
  EXPECT_EQ(m.CacheBytesFor(16)[1], int64_t{4} << 20);
  // Levels from the first missing one on are left out: a list without its L1 says nothing.
  m.caches.erase(m.caches.begin());
  EXPECT_TRUE(m.CacheBytesFor(2).empty());
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

// The register-only kernels are chosen by the CPU's flags, one per precision, the widest first.
TEST(CeilingKernels, RegisterKernelsFollowTheCpuFlags) {
  auto names = [](const std::vector<RegisterKernel>& ks) {
    std::vector<std::string> out;
    for (const RegisterKernel& k : ks) out.push_back(k.precision + ":" + k.instruction);
    return out;
  };
  EXPECT_THAT(names(RegisterKernelsFor({"avx2", "fma"})),
              ::testing::ElementsAre("f32:vfmadd231ps ymm"));
  EXPECT_THAT(
      names(RegisterKernelsFor({"avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni"})),
      ::testing::ElementsAre("f32:vfmadd231ps zmm", "bf16:vdpbf16ps zmm", "i8:vpdpbusd zmm"));
  EXPECT_TRUE(RegisterKernelsFor({"sse4_2"}).empty());
  // FLOPs per call: 20M iterations x 12 chains x lanes x values per lane x 2.
  const RegisterKernel fma = RegisterKernelsFor({"avx512f"}).at(0);
  EXPECT_DOUBLE_EQ(fma.flops_per_call, 20e6 * 12 * 16 * 2);
}

// Each kernel this CPU has runs, and streaming returns one positive figure per repetition.
TEST(CeilingKernels, KernelsRunHereAndStreamsMeasure) {
  const std::vector<RegisterKernel> kernels = RegisterKernelsFor(ThisMachine().cpu_flags);
  if (kernels.empty()) GTEST_SKIP() << "no AVX2/AVX-512 on this CPU: no register-only kernel";
  for (const RegisterKernel& k : kernels) {
    const std::vector<double> seconds = TimeRegisterKernel(k, 1, 1);
    ASSERT_GE(seconds.size(), 1u) << k.instruction;
    EXPECT_GT(seconds[0], 0) << k.instruction;
  }
  for (StreamKind kind : {StreamKind::kRead, StreamKind::kTriad}) {
    const std::vector<double> gbs = StreamBandwidth(kind, 1, 256 << 10, 3);
    ASSERT_EQ(gbs.size(), 3u);
    for (double g : gbs) EXPECT_GT(g, 0);
  }
}

}  // namespace
}  // namespace ntpb
