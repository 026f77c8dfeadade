// Runs one sweep point as a child `ntpbench run` process: a point that crashes, runs out of
// memory or hangs fails alone (recorded with its reason) and the sweep goes on. The child has
// its own process group, so an interrupt reaches the sweep, which stops the child itself.
#pragma once

#include <string>
#include <vector>

namespace ntpb::cli {

struct PointOutcome {
  bool ok = false;
  bool interrupted = false;  // SIGINT/SIGTERM reached the sweep: the point is not recorded
  std::string reason;        // why it failed: the child's error line, a signal, a timeout
  double seconds = 0;
};

// Runs this executable with `args` (after argv[0]), its output into `log_path`, for at most
// `timeout_seconds`. The child's last error line is the reason of a non-zero exit.
PointOutcome RunPointProcess(const std::vector<std::string>& args, const std::string& log_path,
                             double timeout_seconds);

// Installs the handlers that make RunPointProcess report an interrupt (once per process).
void CatchInterrupts();
bool Interrupted();

}  // namespace ntpb::cli
