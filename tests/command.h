// Runs a command line for the integration tests, capturing stdout, stderr and the exit code.
#pragma once

#include <string>

namespace ntpb::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CommandResult RunCommand(const std::string& command_line);

}  // namespace ntpb::testing
