// `ntpbench machine`: this machine's roofline (peak GFLOP/s per precision, read bandwidth),
// measured once per machine class and thread count and cached; `run` reads it for its "roof"
// column.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/report.h"
#include "ntpbench/results.h"
#include "ntpbench/roofline.h"
#include "src/bench/interference.h"
#include "src/bench/machine_class_detect.h"
#include "src/cli/commands.h"
#include "src/cli/help_formatter.h"
#include "src/cli/option_checks.h"
#include "src/cli/peak_measurement.h"
#include "src/common/file_io.h"
#include "src/common/format_number.h"
#include "src/common/json_text.h"
#include "src/instrument/core_distance.h"
#include "src/instrument/interference_probe.h"
#include "src/report/text_table.h"

namespace ntpb::cli {

namespace {

// Why a measurement was not cached (or was, under --force), on stderr; the exit code.
int Refusal(const std::vector<std::string>& refused, bool force, bool cached_before) {
  if (refused.empty()) return 0;
  for (const std::string& why : refused) {
    std::fprintf(stderr, "ntpbench machine: %s: %s\n",
                 force ? "cached anyway (--force)" : "not cached", why.c_str());
  }
  if (force) return 0;
  // Shown, not kept: `run`'s roof column would rest on them.
  std::fprintf(stderr,
               "ntpbench machine: measure again with nothing else running on these cores; the "
               "roof column keeps %s\n",
               cached_before ? "the ceilings cached before" : "no ceilings until then");
  return 1;
}

int Machine(int threads, bool refresh, bool json, bool force) {
  RunConfig config;
  config.threads = threads;
  threads = EffectiveThreads(config);
  const MachineClass machine = DetectMachineClass();
  const std::string path = MachinePeaksPath(machine, threads);
  // Two measurements at once would share the cores and cache halved peaks: one at a time, and a
  // second one waiting here finds the first one's result.
  const FileLock lock(path);
  std::optional<MachinePeaks> cached_peaks;
  try {
    cached_peaks = ReadMachinePeaks(path);
  } catch (const Error& e) {
    if (!refresh) throw;
    std::fprintf(stderr, "ntpbench machine: %s; measuring afresh\n", e.what());
  }
  std::optional<MachinePeaks> peaks = refresh ? std::nullopt : cached_peaks;
  const bool cached = peaks.has_value();
  // Why this measurement is not cached (a busy machine, figures no machine can show); empty
  // when it is.
  std::vector<std::string> refused;
  if (!peaks) {
    instrument::InterferenceProbe probe;
    probe.Start();
    peaks = MeasureMachinePeaks(machine, threads, cached_peaks ? &*cached_peaks : nullptr);
    const Reliability quiet = JudgeInterference(bench::InterferenceOf(probe.Stop(1)));
    if (!quiet.reliable) refused.push_back(quiet.Verdict());
    for (const std::string& why : peaks->Impossible()) refused.push_back(why);
    if (refused.empty() || force) WriteMachinePeaks(*peaks, path);
  }
  if (json) {
    std::printf("%s\n", JsonText(peaks->ToJson(), 2).c_str());
    return Refusal(refused, force, cached_peaks.has_value());
  }
  std::printf(
      "%s\n%s %s (%s)\n\n",
      WrapText(peaks->machine + ", " + std::to_string(peaks->threads) + " threads", 120).c_str(),
      cached            ? "cached in"
      : refused.empty() ? "measured now, cached in"
      : force           ? "measured now, cached (--force, though doubtful: below) in"
                        : "measured now, NOT cached (below) in",
      path.c_str(), peaks->measured.c_str());
  // Every ceiling: this measurement's best of its runs and their spread, the previous
  // measurements, and the figure the roofline uses.
  report::TextTable table(
      {"ceiling", "how", "kept", "unit", "best now", "spread", "runs", "before"});
  bool any_unreliable = false, any_unconfirmed = false;
  auto add = [&](const std::string& name, const Ceiling& c) {
    std::string before;
    for (std::size_t i = 0; i + 1 < c.history.size(); ++i) {
      // Whole numbers from 100 up: three earlier figures then fit in 120 columns.
      before += (before.empty() ? "" : ", ") +
                FormatNumber(c.history[i] >= 100 ? "%.0f" : "%.1f", c.history[i]);
    }
    std::string kept = FormatNumber("%.1f", c.Kept());
    if (c.Unreliable()) kept += " !", any_unreliable = true;
    if (c.history.size() < 2) kept += " ?", any_unconfirmed = true;
    table.Add({name, c.what, kept, c.unit, FormatNumber("%.1f", c.best),
               FormatNumber("%.1f%%", 100 * c.spread), std::to_string(c.runs),
               before.empty() ? "-" : before});
  };
  // Peaks first, then the plateaus, then the reads by size (smallest first).
  for (const char* prefix : {"gemm.", "register.", "read.l", "triad.l", "read.d", "triad.d"}) {
    for (const auto& [name, c] : peaks->ceilings) {
      if (name.rfind(prefix, 0) == 0) add(name, c);
    }
  }
  std::vector<std::pair<double, std::string>> sizes;
  for (const auto& [name, c] : peaks->ceilings) {
    if (name.rfind("read.", 0) == 0 && std::isdigit(static_cast<unsigned char>(name[5]))) {
      sizes.emplace_back(
          std::stod(name.substr(5)) * (name.find("MiB") != std::string::npos ? 1024 : 1), name);
    }
  }
  std::sort(sizes.begin(), sizes.end());
  for (const auto& [kib, name] : sizes) add(name, peaks->ceilings.at(name));
  std::fputs(table.Render(2).c_str(), stdout);
  for (const auto& [precision, why] : peaks->unmeasured) {
    std::printf("gemm.%s not measured: %s\n", precision.c_str(), why.c_str());
  }
  std::printf(
      "\nkept: the highest figure two consecutive measurements agree on (within 10%%)\n"
      "spread: (best - worst) / best over this measurement's runs\n");
  if (any_unreliable) {
    std::printf(
        "! unreliable: the last two measurements differ by more than 10%% (a busy or\n"
        "  throttled machine); `ntpbench machine --refresh` again\n");
  }
  if (any_unconfirmed) {
    std::printf("? one measurement so far: `ntpbench machine --refresh` confirms it\n");
  }
  std::printf("\nroofline: ridge (FLOP/B against memory) ");
  for (const auto& [precision, gflops] : peaks->peak_gflops) {
    std::printf("%s %.1f  ", precision.c_str(), peaks->RidgeFlopsPerByte(precision));
  }
  std::string cache = FormatBytes(static_cast<double>(peaks->cache_bytes));
  if (peaks->reported_cache_bytes > peaks->cache_bytes) {
    cache += " as the reads show; the machine reports " +
             FormatBytes(static_cast<double>(peaks->reported_cache_bytes));
  }
  // No plateau of its own beyond the L2s: the roof bounds such reads by memory.
  const std::string cache_rate = peaks->cache_bandwidth_gbs > 0
                                     ? FormatNumber("%.1f GB/s", peaks->cache_bandwidth_gbs)
                                     : "not read faster than memory";
  std::printf("\nmemory read %.1f GB/s; last-level cache (%s) %s; L2 (%s per core) %.1f GB/s\n",
              peaks->bandwidth_gbs, cache.c_str(), cache_rate.c_str(),
              FormatBytes(static_cast<double>(peaks->l2_bytes)).c_str(), peaks->l2_bandwidth_gbs);
  // Measured now, never cached: a VM's host moves its virtual CPUs between placements.
  if (const double ns = instrument::MeasureCoreToCoreNs(); ns > 0) {
    std::printf(
        "cores: the first two %.0f ns apart now (one-way core to core; each run records its own, "
        "and a VM's host may move them)\n",
        ns);
  }
  return Refusal(refused, force, cached_peaks.has_value());
}

struct MachineOptions {
  int threads = 0;
  bool refresh = false, json = false, force = false;
};

}  // namespace

Command AddMachineCommand(CLI::App* app) {
  auto o = std::make_shared<MachineOptions>();
  CLI::App* c = app->add_subcommand(
      "machine",
      "this machine's ceilings, each the best of 6 runs with its spread: GEMM and register-only "
      "peaks per precision, read and triad bandwidth in the L2s, the L3 and memory; measured "
      "once and cached (--refresh again: two measurements over 10% apart are flagged); `run` "
      "then shows each layer's share of its roofline bound");
  c->add_option("--threads", o->threads, "threads (default: the cores this process may use)")
      ->check(IntegerAtLeast(1, 4096))
      ->type_name("N");
  c->add_flag("--refresh", o->refresh,
              "measure again, continuing each ceiling's history (the roofline keeps the best "
              "figure two consecutive measurements agree on)");
  c->add_flag("--json", o->json, "print JSON");
  c->add_flag("--force", o->force,
              "cache the measurement even when the machine was busy or a figure is impossible "
              "(a cache slower than memory), said on stderr; without it such a one is not "
              "cached (exit 1)");
  return {c, {}, [o](const std::vector<std::string>&) {
            return Machine(o->threads, o->refresh, o->json, o->force);
          }};
}

}  // namespace ntpb::cli
