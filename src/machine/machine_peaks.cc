#include "ntpbench/machine_peaks.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "ntpbench/error.h"
#include "src/common/file_io.h"
#include "src/common/format_number.h"
#include "src/common/json_field.h"
#include "src/common/json_text.h"

namespace ntpb {

namespace {
constexpr const char* kSchema = "ntpbench.machine_peaks";
// 2: the last-level cache is one core's, read through hwloc (version 1 files could hold
// /proc/cpuinfo's "cache size", which is not that on every CPU). 3: every ceiling with its
// spread and history, register-only peaks, L2/L3/DRAM plateaus. 4: the bandwidth streams on
// 2 MiB pages (src/common/huge_pages.h; memory read ~12% higher than on 4 KiB pages on a Zen 5
// VM). 5: the last-level cache's size as the reads show it (a Zen 5 VM reported 508 MiB for a
// 32 MiB L3, and its "L3" plateau was read from memory). 6: the read loop in each ISA's own
// registers (on AVX2, version 5's kept its sums on the stack and read an L2 at 17 GB/s where it
// gives 75 per core). 7: the register-only bf16, f16 and i8 peaks of 12 chains, not of one
// counted 12 times (ceiling_kernels.cc: 3.3x too high for bf16 on an Intel Xeon guest). 8: reads
// at every power of two from 1 to 256 MiB, the cache the largest read at cache speed (version 7
// swept in steps of 4x and doubled it: 128 MiB on a Zen 5 guest whose 128 MiB reads ran at the
// memory's rate, so a backend took ResNet-50's 98 MB of weights as cached). 9: a cache also where
// its plateau reads 1.5x memory (an Intel Xeon guest with AMX: 8 to 64 MiB at 57 GB/s against
// 31 from memory; version 8 saw only its 4 MiB of L2s, and no L3 plateau). Older files are
// measured again.
constexpr int kVersion = 9;
// PrecisionName(kW8), PrecisionName(kW4): this file is also built without precision.cc (the
// results sources the fuzz targets and benchmarks take alone).
constexpr const char* kWeightOnlyPrecisions[] = {"w8", "w4"};
// The oldest version whose fields this reader understands (every ceiling with its history): a
// run file keeps the peaks it was judged by, so one from version 3 on still reads; the cache
// measures anything older than kVersion again (ReadMachinePeaks).
constexpr int kOldestReadable = 3;

bool Agree(double a, double b) {
  return a > 0 && b > 0 && std::abs(a - b) / std::max(a, b) <= Ceiling::kAgreement;
}

nlohmann::json CeilingJson(const Ceiling& c) {
  return {
      {"unit", c.unit}, {"what", c.what},       {"best", c.best},   {"spread", c.spread},
      {"runs", c.runs}, {"history", c.history}, {"kept", c.Kept()}, {"unreliable", c.Unreliable()}};
}

Ceiling CeilingFromJson(const nlohmann::json& j, const std::string& file, const std::string& name) {
  Ceiling c;
  const std::string field = "ceilings." + name;
  if (!j.is_object()) throw Error(file, "", field, "expected an object");
  try {
    c.unit = j.at("unit").get<std::string>();
    c.what = j.value("what", std::string());
    c.best = j.at("best").get<double>();
    c.spread = j.value("spread", 0.0);
    if (j.contains("runs")) c.runs = JsonField<int>(j, "runs", field + ".", file);
    c.history = j.value("history", std::vector<double>{});
  } catch (const nlohmann::json::exception& e) {
    throw Error(file, "", field, std::string("malformed: ") + e.what());
  }
  if (!(c.best > 0)) throw Error(file, "", field + ".best", "must be positive");
  for (double h : c.history) {
    if (!(h > 0)) throw Error(file, "", field + ".history", "must hold positive figures");
  }
  if (static_cast<int>(c.history.size()) > Ceiling::kHistory) {
    c.history.erase(c.history.begin(), c.history.end() - Ceiling::kHistory);
  }
  return c;
}

}  // namespace

bool Ceiling::Unreliable() const {
  const std::size_t n = history.size();
  return n >= 2 && !Agree(history[n - 2], history[n - 1]);
}

double Ceiling::Kept() const {
  double kept = 0;
  for (std::size_t i = 0; i + 1 < history.size(); ++i) {
    if (Agree(history[i], history[i + 1])) kept = std::max({kept, history[i], history[i + 1]});
  }
  if (kept > 0) return kept;
  return history.empty() ? best : history.back();
}

Ceiling ContinueHistory(const Ceiling& before, Ceiling now) {
  std::vector<double> history = before.history;
  if (history.empty() && before.best > 0) history.push_back(before.best);
  history.push_back(now.best);
  if (static_cast<int>(history.size()) > Ceiling::kHistory) {
    history.erase(history.begin(), history.end() - Ceiling::kHistory);
  }
  now.history = std::move(history);
  return now;
}

int64_t CacheSeenByReads(int64_t reported, const std::vector<std::pair<int64_t, double>>& reads,
                         double memory_gbs) {
  int64_t fits = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    const double gbs = reads[i].second;
    // A plateau: as fast as the read half its size (within 15%), not an edge where part of the
    // read already comes from memory.
    const bool plateau = i > 0 && gbs >= 0.85 * reads[i - 1].second;
    if (gbs >= 2 * memory_gbs || (plateau && gbs >= 1.5 * memory_gbs)) {
      fits = std::max(fits, reads[i].first);
    }
  }
  if (fits == 0 || 2 * fits >= reported) return reported;
  return fits;
}

double MachinePeaks::RidgeFlopsPerByte(const std::string& precision) const {
  const auto it = peak_gflops.find(precision);
  return it == peak_gflops.end() || !(bandwidth_gbs > 0) ? 0.0 : it->second / bandwidth_gbs;
}

std::vector<std::string> MachinePeaks::Impossible() const {
  std::vector<std::string> out;
  auto best = [&](const std::string& name) {
    const auto it = ceilings.find(name);
    return it == ceilings.end() ? 0.0 : it->second.best;
  };
  auto say = [](const std::string& what, double v, const char* unit) {
    return what + " " + FormatNumber("%.1f", v) + " " + unit;
  };
  const std::pair<const char*, const char*> levels[] = {
      {"l2", "l3"}, {"l3", "dram"}, {"l2", "dram"}};
  for (const char* kind : {"read", "triad"}) {
    for (const auto& [near, far] : levels) {
      const double n = best(std::string(kind) + "." + near),
                   f = best(std::string(kind) + "." + far);
      if (n > 0 && f > 0 && n < 0.9 * f) {
        out.push_back(say(std::string(kind) + "." + near, n, "GB/s") + " below " +
                      say(std::string(kind) + "." + far, f, "GB/s") +
                      ": a cache cannot be slower than the memory behind it");
      }
    }
  }
  for (const auto& [name, c] : ceilings) {
    if (name.rfind("gemm.", 0) != 0) continue;
    // A GEMM on AMX tiles (oneDNN's avx512_core_amx kernels) is not bound by the vector
    // instruction the register loop times: on a 2-core Intel Xeon guest with AMX, bf16 2104
    // GFLOP/s against vdpbf16ps's 239, i8 5108 against vpdpbusd's 1762.
    if (c.what.find("amx") != std::string::npos) continue;
    const double reg = best("register." + name.substr(5));
    // 10% leeway: where the instruction itself is the bottleneck a library GEMM reaches the
    // register-only loop (bf16 on a 2-core Intel Xeon guest: oneDNN 170 GFLOP/s against
    // vdpbf16ps's 172), and each best-of-6 figure moves by 5-10% on a VM.
    if (reg > 0 && c.best > 1.1 * reg) {
      out.push_back(say(name, c.best, "GFLOP/s") + " above " +
                    say("register." + name.substr(5), reg, "GFLOP/s") +
                    ": a GEMM cannot beat the register-only peak");
    }
  }
  return out;
}

nlohmann::json MachinePeaks::ToJson() const {
  return {{"schema", kSchema},
          {"version", kVersion},
          {"machine_class", machine_class},
          {"machine", machine},
          {"threads", threads},
          {"measured", measured},
          {"peak_gflops",
           [&] {  // measured peaks only: AddWeightOnlyPeaks derives the others when read
             std::map<std::string, double> measured = peak_gflops;
             for (const char* p : kWeightOnlyPrecisions) measured.erase(p);
             return measured;
           }()},
          {"kernels", kernels},
          {"unmeasured", unmeasured},
          {"bandwidth_gbs", bandwidth_gbs},
          {"cache_bytes", cache_bytes},
          {"cache_bandwidth_gbs", cache_bandwidth_gbs},
          {"reported_cache_bytes", reported_cache_bytes},
          {"l2_bytes", l2_bytes},
          {"l2_bandwidth_gbs", l2_bandwidth_gbs},
          {"ceilings", [&] {
             nlohmann::json c = nlohmann::json::object();
             for (const auto& [name, ceiling] : ceilings) c[name] = CeilingJson(ceiling);
             return c;
           }()}};
}

void MachinePeaks::AddWeightOnlyPeaks() {
  const auto f32 = peak_gflops.find("f32");
  if (f32 == peak_gflops.end()) return;
  for (const char* p : kWeightOnlyPrecisions) peak_gflops.emplace(p, f32->second);
}

MachinePeaks MachinePeaks::FromJson(const nlohmann::json& j, const std::string& file) {
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(name))
      throw Error(file, "", name, "missing (not an ntpbench machine peaks file?)");
    return j.at(name);
  };
  if (field("schema") != kSchema)
    throw Error(file, "", "schema", "expected " + std::string(kSchema));
  const nlohmann::json& version = field("version");
  if (!version.is_number_integer() || version.get<int64_t>() < kOldestReadable ||
      version.get<int64_t>() > kVersion) {
    throw Error(file, "", "version",
                "expected " + std::to_string(kOldestReadable) + " to " + std::to_string(kVersion) +
                    "; run `ntpbench machine --refresh`");
  }
  MachinePeaks p;
  try {
    p.machine_class = field("machine_class").get<std::string>();
    p.machine = field("machine").get<std::string>();
    p.threads = JsonField<int>(j, "threads", "", file);
    p.measured = field("measured").get<std::string>();
    p.peak_gflops = field("peak_gflops").get<std::map<std::string, double>>();
    p.kernels = field("kernels").get<std::map<std::string, std::string>>();
    p.unmeasured = field("unmeasured").get<std::map<std::string, std::string>>();
    p.bandwidth_gbs = field("bandwidth_gbs").get<double>();
    if (j.contains("cache_bytes")) p.cache_bytes = JsonField<int64_t>(j, "cache_bytes", "", file);
    p.cache_bandwidth_gbs = j.value("cache_bandwidth_gbs", 0.0);
    if (j.contains("reported_cache_bytes"))
      p.reported_cache_bytes = JsonField<int64_t>(j, "reported_cache_bytes", "", file);
    if (j.contains("l2_bytes")) p.l2_bytes = JsonField<int64_t>(j, "l2_bytes", "", file);
    p.l2_bandwidth_gbs = j.value("l2_bandwidth_gbs", 0.0);
  } catch (const nlohmann::json::exception& e) {
    throw Error(file, "", "", std::string("malformed machine peaks: ") + e.what());
  }
  if (!(p.bandwidth_gbs > 0)) throw Error(file, "", "bandwidth_gbs", "must be positive");
  if (p.reported_cache_bytes < 0) {
    throw Error(file, "", "reported_cache_bytes", "must not be negative");
  }
  if (p.cache_bytes < 0) throw Error(file, "", "cache_bytes", "must not be negative");
  if (!(p.cache_bandwidth_gbs >= 0)) {
    throw Error(file, "", "cache_bandwidth_gbs", "must not be negative");
  }
  if (p.l2_bytes < 0 || !(p.l2_bandwidth_gbs >= 0)) {
    throw Error(file, "", "l2_bytes", "must not be negative");
  }
  if (j.contains("ceilings")) {
    if (!j["ceilings"].is_object()) throw Error(file, "", "ceilings", "expected an object");
    for (const auto& [name, c] : j["ceilings"].items()) {
      p.ceilings[name] = CeilingFromJson(c, file, name);
    }
  }
  for (const auto& [precision, gflops] : p.peak_gflops) {
    if (!(gflops > 0)) throw Error(file, "", "peak_gflops." + precision, "must be positive");
  }
  p.AddWeightOnlyPeaks();
  return p;
}

std::string MachinePeaksPath(const MachineClass& machine, int threads) {
  const std::string dir = CacheDirectory();
  return dir + "/machine/" + machine.id() + "-" + std::to_string(threads) + "t.json";
}

std::optional<MachinePeaks> ReadMachinePeaks(const std::string& path) {
  if (access(path.c_str(), F_OK) != 0) return std::nullopt;
  const std::string text = ReadTextFile(path, 1 << 20);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded())
    throw Error(path, "", "", "not valid JSON (delete it, or run `ntpbench machine --refresh`)");
  if (j.is_object() && j.contains("version") && j["version"].is_number_integer() &&
      j["version"].get<int>() < kVersion) {
    return std::nullopt;  // written by an older ntpbench: as if never measured
  }
  return MachinePeaks::FromJson(j, path);
}

void WriteMachinePeaks(const MachinePeaks& peaks, const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) throw Error(path, "", "", "cannot create its folder: " + ec.message());
  WriteFileAtomically(path, JsonText(peaks.ToJson(), 2) + "\n");
}

}  // namespace ntpb
