#pragma once

#include <string>
#include <vector>

namespace ntpb::cli {

// Each returns the process exit code; errors are thrown as ntpb::Error.
int RunCommand(const std::string& program, const std::vector<std::string>& args);
int InspectCommand(const std::vector<std::string>& args);
int GateCommand(const std::vector<std::string>& args);
int CompareCommand(const std::vector<std::string>& args);
int BaselineCommand(const std::vector<std::string>& args);
int ConvertCommand(const std::vector<std::string>& args);
int MachineCommand(const std::vector<std::string>& args);

}  // namespace ntpb::cli
