// `ntpbench devices`: what each backend of this build runs on. The CPU backends run on this
// machine's cores; a backend with devices (opencl) lists each with the spec --device takes.
#include <cstdio>
#include <memory>

#include "ntpbench/backend.h"
#include "ntpbench/machine.h"
#include "src/cli/commands.h"

namespace ntpb::cli {
namespace {

std::string GiB(int64_t bytes) {
  char text[32];
  if (bytes >= (int64_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  } else {
    std::snprintf(text, sizeof text, "%lld KiB", static_cast<long long>(bytes >> 10));
  }
  return text;
}

}  // namespace

Command AddDevicesCommand(CLI::App* app) {
  CLI::App* c = app->add_subcommand(
      "devices", "the backends of this build and what they run on (the specs --device takes)");
  return {c, {}, [](const std::vector<std::string>&) {
            // One line of figures per device, then what it is under it: fits 120 columns.
            const MachineFacts& m = ThisMachine();
            std::printf("%-8s %-12s %-5s %4s %9s %9s %9s %-15s %s\n", "BACKEND", "DEVICE", "TYPE",
                        "CU", "MEMORY", "MAX ALLOC", "LOCAL", "FEATURES", "NAME");
            for (const std::string& name : BackendNames()) {
              const Backend* b = FindBackend(name);
              if (b->UsesPlacement()) continue;  // hetero runs on the others' devices
              if (!b->HasDevices()) {
                std::printf("%-8s %-12s %-5s %4d %9s %9s %9s %-15s %s\n", name.c_str(), "host",
                            "cpu", m.cores, "-", "-", "-", "-", m.cpu.c_str());
                // The ISA beside the version where both fit 120 columns, else under it.
                const std::string version = b->version(), isa = "ISA " + m.isa();
                if (22 + version.size() + 2 + isa.size() <= 120) {
                  std::printf("%22s%s; %s\n", "", version.c_str(), isa.c_str());
                } else {
                  std::printf("%22s%s\n%22s%s\n", "", version.c_str(), "", isa.c_str());
                }
                continue;
              }
              std::string why;
              const std::vector<DeviceDescription> devices = b->Devices(&why);
              if (devices.empty()) {
                std::printf("%-8s %-12s %s\n", name.c_str(), "none", why.c_str());
                continue;
              }
              for (const DeviceDescription& d : devices) {
                std::string features;
                for (const std::string& f : d.features) {
                  features += (features.empty() ? "" : ",") + f;
                }
                std::printf("%-8s %-12s %-5s %4d %9s %9s %9s %-15s %s\n", name.c_str(),
                            d.spec.c_str(), d.type.c_str(), d.compute_units,
                            GiB(d.memory_bytes).c_str(), GiB(d.max_allocation_bytes).c_str(),
                            GiB(d.local_memory_bytes).c_str(),
                            features.empty() ? "-" : features.c_str(), d.name.c_str());
                std::printf("%22s%s, driver %s\n", "", d.platform.c_str(),
                            d.driver.substr(0, 60).c_str());
              }
            }
            return 0;
          }};
}

}  // namespace ntpb::cli
