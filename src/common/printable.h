// Text from a file made safe to print: control characters written as \xNN, so a name cannot
// drive the terminal (escape sequences) or break a one-line message (newlines).
#pragma once

#include <string>

namespace ntpb {

std::string Printable(const std::string& text);

}  // namespace ntpb
