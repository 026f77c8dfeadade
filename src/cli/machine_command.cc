// `ntpbench machine`: this machine's roofline (peak GFLOP/s per precision, read bandwidth),
// measured once per machine class and thread count and cached; `run` reads it for its "roof"
// column.
#include <cstdio>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/report.h"
#include "ntpbench/roofline.h"
#include "src/bench/machine_class_detect.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"
#include "src/cli/peak_measurement.h"
#include "src/common/file_io.h"
#include "src/report/text_table.h"

namespace ntpb::cli {

namespace {

int Machine(int threads, bool refresh, bool json) {
  RunConfig config;
  config.threads = threads;
  threads = EffectiveThreads(config);
  const MachineClass machine = DetectMachineClass();
  const std::string path = MachinePeaksPath(machine, threads);
  // Two measurements at once would share the cores and cache halved peaks: one at a time, and a
  // second one waiting here finds the first one's result.
  const FileLock lock(path);
  std::optional<MachinePeaks> peaks = refresh ? std::nullopt : ReadMachinePeaks(path);
  const bool cached = peaks.has_value();
  if (!peaks) {
    peaks = MeasureMachinePeaks(machine, threads);
    WriteMachinePeaks(*peaks, path);
  }
  if (json) {
    std::printf("%s\n", peaks->ToJson().dump(2).c_str());
    return 0;
  }
  std::printf("%s, %d threads\n%s %s (%s)\n\n", peaks->machine.c_str(), peaks->threads,
              cached ? "cached in" : "measured now, cached in", path.c_str(),
              peaks->measured.c_str());
  report::TextTable table({"precision", "peak GFLOP/s", "ridge FLOP/B", "oneDNN kernel"});
  for (const auto& [precision, gflops] : peaks->peak_gflops) {
    table.Add({precision, FormatNumber("%.1f", gflops),
               FormatNumber("%.1f", gflops / peaks->bandwidth_gbs),
               peaks->kernels.count(precision) ? peaks->kernels.at(precision) : ""});
  }
  for (const auto& [precision, why] : peaks->unmeasured) table.Add({precision, "-", "-", why});
  std::fputs(table.Render(1).c_str(), stdout);
  std::printf("memory read bandwidth %.1f GB/s\n", peaks->bandwidth_gbs);
  if (peaks->cache_bandwidth_gbs > 0) {
    std::printf(
        "last-level cache (%s) read bandwidth %.1f GB/s: the roofline of a topology whose "
        "weights and activations fit in half of it\n",
        FormatBytes(static_cast<double>(peaks->cache_bytes)).c_str(), peaks->cache_bandwidth_gbs);
  } else {
    std::printf("last-level cache bandwidth not measured (`ntpbench machine --refresh`)\n");
  }
  return 0;
}

struct MachineOptions {
  int threads = 0;
  bool refresh = false, json = false;
};

}  // namespace

Command AddMachineCommand(CLI::App* app) {
  auto o = std::make_shared<MachineOptions>();
  CLI::App* c = app->add_subcommand(
      "machine",
      "this machine's roofline: peak GFLOP/s per precision (oneDNN matmul) and read bandwidth, "
      "measured once and cached; `run` then shows each layer's share of its roofline bound");
  c->add_option("--threads", o->threads, "threads (default: the cores this process may use)")
      ->check(IntegerAtLeast(1, 4096))
      ->type_name("N");
  c->add_flag("--refresh", o->refresh, "measure again, replacing the cached ceilings");
  c->add_flag("--json", o->json, "print JSON");
  return {c, {}, [o](const std::vector<std::string>&) {
            return Machine(o->threads, o->refresh, o->json);
          }};
}

}  // namespace ntpb::cli
