// Google Benchmark's flags, checked before Google Benchmark sees them: some values it accepts
// end in an abort or an exception (--benchmark_repetitions=-3: std::length_error), and a deeply
// nested --benchmark_filter overflows the stack of the regex compiler.
#pragma once

#include <string>
#include <vector>

namespace ntpb::bench {

// Throws ntpb::Error naming the flag for a value Google Benchmark would not survive or would
// misread. Flags it does not know are left for its own "unrecognized flag" message.
void CheckBenchmarkFlags(const std::vector<std::string>& args);

// The flag as the Google Benchmark linked here reads it: "--benchmark_min_time=0.5s" (newer
// Google Benchmarks' form) becomes "--benchmark_min_time=0.5"; any other argument is unchanged.
std::string NormalizeBenchmarkFlag(const std::string& arg);

// The value of the last --name=value in argv; "" when absent (read before Google Benchmark's
// Initialize removes its flags).
std::string FlagValue(int argc, char** argv, const char* name);

// Why `pattern` is no usable regular expression (too long, nested too deeply, or rejected by
// std::regex), or "" when it is one.
std::string RegexProblem(const std::string& pattern);

}  // namespace ntpb::bench
