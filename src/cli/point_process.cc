#include "src/cli/point_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace ntpb::cli {
namespace {

volatile sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) { g_interrupted = 1; }

// The line that says what went wrong: the last line of the log that mentions an error (in any
// case: Google Benchmark writes "ERROR OCCURRED"), else its last line.
std::string ReasonFromLog(const std::string& path) {
  std::ifstream in(path);
  std::string line, last, last_error;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last = line;
    std::string lower = line;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.find("error") != std::string::npos) last_error = line;
  }
  std::string reason = !last_error.empty() ? last_error : last;
  if (reason.rfind("ntpbench: ", 0) == 0) reason = reason.substr(10);
  if (reason.size() > 400) reason = reason.substr(0, 400) + "...";
  return reason;
}

}  // namespace

void CatchInterrupts() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool Interrupted() { return g_interrupted != 0; }

PointOutcome RunPointProcess(const std::vector<std::string>& args, const std::string& log_path,
                             double timeout_seconds) {
  PointOutcome out;
  const auto start = std::chrono::steady_clock::now();
  std::vector<char*> argv;
  static char self[] = "/proc/self/exe";
  argv.push_back(self);
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) {
    out.reason = "cannot write " + log_path + ": " + std::strerror(errno);
    return out;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    out.reason = std::string("fork failed: ") + std::strerror(errno);
    return out;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    ::dup2(log, STDOUT_FILENO);
    ::dup2(log, STDERR_FILENO);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  ::close(log);
  ::setpgid(pid, pid);  // either side may win the race; both set the same group
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (g_interrupted || elapsed > timeout_seconds) {
      timed_out = !g_interrupted;
      ::kill(-pid, g_interrupted ? SIGTERM : SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (g_interrupted) {
    out.interrupted = true;
    return out;
  }
  if (timed_out) {
    std::ostringstream s;
    s << "timed out after " << timeout_seconds << " s (--point-timeout)";
    out.reason = s.str();
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    out.reason = std::string("killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) +
                 (sig == SIGKILL ? "; out of memory?" : "") + ")";
  } else if (WEXITSTATUS(status) != 0) {
    out.reason = ReasonFromLog(log_path);
    if (out.reason.empty()) out.reason = "exit " + std::to_string(WEXITSTATUS(status));
  } else {
    out.ok = true;
  }
  return out;
}

}  // namespace ntpb::cli
