// "Did you mean": the known name closest to a misspelt one.
#pragma once

#include <string>
#include <vector>

namespace ntpb {

// The name in `known` nearest to `given` (fewest single-character edits, ignoring case), when it
// is near enough to be the likely intent: at most a third of its length away, and never more than
// three edits. Empty when nothing is that close.
std::string NearestName(const std::string& given, const std::vector<std::string>& known);

// " (did you mean 'NAME'?)" for NearestName, or "" when there is none: appended to an error line.
std::string DidYouMean(const std::string& given, const std::vector<std::string>& known);

}  // namespace ntpb
