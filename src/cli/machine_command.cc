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
#include "src/cli/peak_measurement.h"
#include "src/report/text_table.h"

namespace ntpb::cli {

int MachineCommand(const std::vector<std::string>& args) {
  int threads = 0;
  bool refresh = false, json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--refresh") {
      refresh = true;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--threads" || a.rfind("--threads=", 0) == 0) {
      const std::string v =
          a == "--threads" ? (i + 1 < args.size() ? args[++i] : "") : a.substr(10);
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 4096)
        throw Error("", "", "--threads", "expected a thread count, got '" + v + "'");
      threads = static_cast<int>(n);
    } else {
      throw Error("", "", a,
                  "unknown option (ntpbench machine [--threads N] [--refresh] [--json])");
    }
  }
  RunConfig config;
  config.threads = threads;
  threads = EffectiveThreads(config);
  const MachineClass machine = DetectMachineClass();
  const std::string path = MachinePeaksPath(machine, threads);
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

}  // namespace ntpb::cli
