#include "tests/command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ntpb::testing {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

CommandResult RunCommand(const std::string& command_line) {
  static int counter = 0;
  const std::string base =
      "/tmp/ntpb_cmd_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const int status = std::system((command_line + " >" + base + ".out 2>" + base + ".err").c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(base + ".out");
  r.err = Slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace ntpb::testing
