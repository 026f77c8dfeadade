// Machine facts through hwloc (Debian's libhwloc): it knows the caches a core can use, where
// sysconf(_SC_LEVEL3_CACHE_SIZE) reports /proc/cpuinfo's "cache size", which on some CPUs is
// not the L3 of one core complex (384 MiB read on a Zen 5 with a 32 MiB L3).
#include <hwloc.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ntpbench/machine.h"

namespace ntpb {
namespace {

const char* CacheType(hwloc_obj_cache_type_t type) {
  switch (type) {
    case HWLOC_OBJ_CACHE_DATA:
      return "data";
    case HWLOC_OBJ_CACHE_INSTRUCTION:
      return "instruction";
    default:
      return "unified";
  }
}

std::vector<std::string> KernelCpuFlags(std::string* model) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::vector<std::string> flags;
  for (std::string line; std::getline(cpuinfo, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && model->empty()) *model = value;
    if (key == "flags" && flags.empty()) {
      std::istringstream in(value);
      for (std::string f; in >> f;) flags.push_back(f);
    }
  }
  std::sort(flags.begin(), flags.end());
  return flags;
}

}  // namespace

int64_t MachineFacts::last_level_cache_bytes() const {
  int64_t bytes = 0;
  int level = 0;
  for (const CacheLevel& c : caches) {
    if (c.type != "instruction" && c.level >= level) {
      level = c.level;
      bytes = c.bytes;
    }
  }
  return bytes;
}

std::vector<int64_t> MachineFacts::CacheBytesFor(int threads) const {
  std::vector<int64_t> bytes;
  // More threads than cores share them.
  threads = std::max(1, cores > 0 ? std::min(threads, cores) : threads);
  for (const CacheLevel& c : caches) {
    if (c.type == "instruction" || c.level != static_cast<int>(bytes.size()) + 1) continue;
    const int sharing = std::max(1, c.shared_by);
    bytes.push_back(c.bytes * ((threads + sharing - 1) / sharing));
  }
  return bytes;
}

bool MachineFacts::HasFlag(const std::string& flag) const {
  return std::binary_search(cpu_flags.begin(), cpu_flags.end(), flag);
}

std::string MachineFacts::isa() const {
  std::string out;
  for (const char* f : {"avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
                        "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"}) {
    if (HasFlag(f)) out += (out.empty() ? "" : " ") + std::string(f);
  }
  return out;
}

nlohmann::json MachineFacts::ToJson() const {
  nlohmann::json caches_json = nlohmann::json::array();
  for (const CacheLevel& c : caches) {
    caches_json.push_back(
        {{"level", c.level}, {"type", c.type}, {"bytes", c.bytes}, {"shared_by", c.shared_by}});
  }
  return {{"cpu", cpu},
          {"cores", cores},
          {"isa", isa()},
          {"caches", caches_json},
          {"last_level_cache_bytes", last_level_cache_bytes()}};
}

MachineFacts ReadMachineFacts() {
  MachineFacts m;
  std::string kernel_model;
  m.cpu_flags = KernelCpuFlags(&kernel_model);
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) {
    m.cpu = kernel_model;
    return m;
  }
  // Only what this process may use: hwloc leaves out what a cgroup disallows, and the process's
  // binding (taskset, numactl) narrows it further.
  if (hwloc_topology_load(topology) == 0) {
    hwloc_bitmap_t usable = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topology));
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topology, bound, HWLOC_CPUBIND_PROCESS) == 0 &&
        hwloc_bitmap_intersects(bound, usable)) {
      hwloc_bitmap_and(usable, usable, bound);
    }
    m.cores = hwloc_bitmap_weight(usable);
    const int first = hwloc_bitmap_first(usable);
    hwloc_bitmap_free(bound);
    hwloc_bitmap_free(usable);
    if (const char* model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topology), "CPUModel")) {
      m.cpu = model;
    } else if (hwloc_obj_t package = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0)) {
      if (const char* p = hwloc_obj_get_info_by_name(package, "CPUModel")) m.cpu = p;
    }
    hwloc_obj_t pu = first >= 0 ? hwloc_get_pu_obj_by_os_index(topology, first) : nullptr;
    if (!pu) pu = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, 0);
    for (hwloc_obj_t obj = pu; obj; obj = obj->parent) {
      if (!hwloc_obj_type_is_cache(obj->type) || !obj->attr) continue;
      CacheLevel c;
      c.level = static_cast<int>(obj->attr->cache.depth);
      c.type = CacheType(obj->attr->cache.type);
      c.bytes = static_cast<int64_t>(obj->attr->cache.size);
      c.shared_by = obj->cpuset ? hwloc_bitmap_weight(obj->cpuset) : 0;  // bound or not
      if (c.type != "instruction") m.caches.push_back(c);
    }
  }
  hwloc_topology_destroy(topology);
  if (m.cpu.empty()) m.cpu = kernel_model;
  // Some hypervisors pad the model name with spaces ("... Processor             "): trimmed, and
  // runs of spaces made one, so tables and the machine class read it as a name.
  std::string cpu;
  for (const char c : m.cpu) {
    if (c == ' ' && (cpu.empty() || cpu.back() == ' ')) continue;
    cpu += c;
  }
  while (!cpu.empty() && cpu.back() == ' ') cpu.pop_back();
  m.cpu = cpu;
  if (m.cores <= 0) m.cores = 1;
  std::sort(m.caches.begin(), m.caches.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.level < b.level; });
  return m;
}

const MachineFacts& ThisMachine() {
  static const MachineFacts facts = ReadMachineFacts();
  return facts;
}

}  // namespace ntpb
