// `ntpbench devices`: what each backend of this build runs on. The CPU backends run on this
// machine's cores; a backend with devices (opencl) lists each with the spec --device takes.
#include <cstdio>
#include <memory>
#include <string>

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

// A device's line of figures and its name: the name at the end where it fits 120 columns, else
// on a line of its own under it (PoCL names its CPU device "pthread-skylake-avx512-" and the
// CPU's name).
void PrintDeviceLine(const std::string& backend, const std::string& spec, const std::string& type,
                     int units, const std::string& memory, const std::string& max_alloc,
                     const std::string& local, const std::string& features,
                     const std::string& name) {
  char figures[256];
  std::snprintf(figures, sizeof figures, "%-8s %-12s %-5s %4d %9s %9s %9s %-15s ", backend.c_str(),
                spec.c_str(), type.c_str(), units, memory.c_str(), max_alloc.c_str(), local.c_str(),
                features.c_str());
  const std::string line = figures;
  if (line.size() + name.size() <= 120) {
    std::printf("%s%s\n", line.c_str(), name.c_str());
  } else {
    std::printf("%s\n%22s%s\n", line.substr(0, line.find_last_not_of(' ') + 1).c_str(), "",
                name.c_str());
  }
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
                PrintDeviceLine(name, "host", "cpu", m.cores, "-", "-", "-", "-", m.cpu);
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
                PrintDeviceLine(name, d.spec, d.type, d.compute_units, GiB(d.memory_bytes),
                                GiB(d.max_allocation_bytes), GiB(d.local_memory_bytes),
                                features.empty() ? "-" : features, d.name);
                std::printf("%22s%s, driver %s\n", "", d.platform.c_str(),
                            d.driver.substr(0, 60).c_str());
              }
            }
            return 0;
          }};
}

}  // namespace ntpb::cli
