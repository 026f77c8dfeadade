// What the command line gets beyond CLI11's own parsing: validators worded like the rest of
// ntpbench, the pass-through of Google Benchmark's and the suites' flags, and one clear line for
// a bad command line (with "did you mean" for a near miss).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ntpb::cli {

// An integer >= min (and <= max).
CLI::Validator IntegerAtLeast(int64_t min, int64_t max = INT64_MAX);
// A number strictly between lo and hi; `what` says what it is ("a fraction, 0.05 is 5%").
CLI::Validator NumberBetween(double lo, double hi, const std::string& what);
// A number >= 0.
CLI::Validator NonNegativeNumber();
// A positive time, "50ms", "0.2s", "300us" or a bare number of milliseconds, in milliseconds;
// throws ntpb::Error naming `option`.
double ParseMilliseconds(const std::string& text, const std::string& option);
// One of `names`: "unknown <what> 'x' (one of: ...)", with "did you mean" for a near miss.
CLI::Validator OneOf(const std::vector<std::string>& names, const std::string& what);
// A backend of this build (or one this build names as left out), a counter source or PAPI event.
CLI::Validator BackendName();
CLI::Validator CounterName();
// A name that becomes part of a file name (a suite's baseline): letters, digits, '_', '-' and
// '.', not starting with '.', so that it cannot leave its folder ("../../x") or hide.
CLI::Validator FileNameComponent();
// A regular expression std::regex accepts (ECMAScript, as Google Benchmark's --benchmark_filter).
CLI::Validator RegexText();

// CLI11 would take the next argument as the value of "--batch=" (nothing after '='); a typo
// like "--batch= 4" must not turn into --batch 4. Also refuses an empty argument (`--json ''`)
// and an empty item in a comma-separated value (`--batch 1,,4`), which CLI11 would drop. Throws
// ntpb::Error naming the option.
void RejectEmptyAssignments(const std::vector<std::string>& args);

// What the deepest command given (`leaf`, e.g. "baseline update") left unparsed: the arguments
// starting with one of `prefixes` (Google Benchmark's --benchmark_*, a suite's --ntpb_*), handed
// on untouched. Anything else is an unknown option (with the nearest of the command's own) or an
// unexpected argument: throws ntpb::Error naming it.
std::vector<std::string> PassThrough(const CLI::App& leaf,
                                     const std::vector<std::string>& prefixes);

// "ntpbench baseline update": the command path of `leaf`, for "see ... --help".
std::string CommandPath(const CLI::App& leaf);

// The subcommand of `app` named by the first argument, or an ntpb::Error "unknown command"
// with the nearest one.
void CheckCommandName(const CLI::App& app, const std::string& name);

// One line for a CLI11 parse error: "option '--alpha': ..." like every other option error.
std::string DescribeParseError(const CLI::ParseError& e);

}  // namespace ntpb::cli
