#include "src/cli/gate_options.h"

#include <cstdio>
#include <cstdlib>

#include "ntpbench/error.h"
#include "src/cli/comparison_table.h"
#include "src/cli/option_checks.h"
#include "src/common/file_io.h"
#include "src/common/json_text.h"

namespace ntpb::cli {

void AddJudgingOptions(CLI::App* c, GateOptions* o) {
  c->add_option("--alpha", o->compare.alpha,
                "significance level of the latency test (default 0.05)")
      ->type_name("A")
      ->check(NumberBetween(0, 1, "a significance level between 0 and 1, e.g. 0.05"));
  // A fraction: 0.05 is 5%. "5" would silently mean 500%.
  c->add_option("--threshold", o->compare.threshold,
                "smallest latency change that counts, as a fraction (default 0.05: 5%)")
      ->type_name("T")
      ->check(NumberBetween(0, 1, "a fraction between 0 and 1 (0.05 is 5%)"));
  c->add_option_function<std::vector<std::string>>(
       "--threshold-for",
       [o](const std::vector<std::string>& items) {
         for (const std::string& v : items) {
           const size_t eq = v.rfind('=');
           char* end = nullptr;
           const std::string number = eq == std::string::npos ? "" : v.substr(eq + 1);
           const double f = std::strtod(number.c_str(), &end);
           if (eq == std::string::npos || number.empty() || *end != '\0' || !(f > 0 && f < 1)) {
             throw Error("", "", "--threshold-for",
                         "expected NAME=FRACTION with a fraction between 0 and 1, got '" + v + "'");
           }
           o->compare.thresholds[v.substr(0, eq)] = f;
         }
       },
       "the threshold of one benchmark (repeatable)")
      ->type_name("NAME=FRACTION");
  c->add_flag_function(
      "--raw", [o](int64_t) { o->compare.relative_to_suite = false; },
      "judge each benchmark's latency on its own, not against the rest of the run");
  c->add_option_function<std::string>(
       "--judge",
       [o](const std::string& v) {
         o->compare.judge = v == "signature" ? Judge::kSignature
                            : v == "latency" ? Judge::kLatency
                                             : Judge::kAll;
       },
       "what is judged: the machine-independent signature (exact, <dir>/any-machine/), the "
       "latency (<dir>/<machine class>/) or both (default all)")
      ->check(OneOf({"all", "signature", "latency"}, "choice"))
      ->type_name("all|signature|latency");
  c->add_option("--report", o->report, "also write the comparison as JSON (atomically)")
      ->type_name("FILE");
  // A machine class without a latency baseline fails unless this is given (or the variable set
  // for ctest -L perf): a skipped latency test reads "100% tests passed".
  if (const char* allow = std::getenv("NTPB_ALLOW_NO_BASELINE"); allow && *allow && *allow != '0')
    o->compare.allow_no_baseline = true;
  c->add_flag("--allow-no-baseline", o->compare.allow_no_baseline,
              "a machine class with no latency baseline is skipped (exit 77), not a failure "
              "(default: exit 1 with the command that records one; also NTPB_ALLOW_NO_BASELINE=1)");
}

void AddGateOptions(CLI::App* c, GateOptions* o) {
  c->add_option("--suite-binary", o->suite_binary, "the suite to run")->type_name("PATH");
  c->add_option("--suite", o->suite, "the suite's name in the baseline folder")
      ->check(FileNameComponent())
      ->type_name("NAME");
  c->add_option("--baseline-dir", o->baseline_dir, "where the baselines are")->type_name("DIR");
  c->add_option("--repetitions", o->repetitions, "repetitions of each benchmark (default 6)")
      ->check(IntegerAtLeast(1, 10000))
      ->type_name("N");
  c->add_option("--min-time", o->min_time, "seconds per repetition (default 0.2)")
      ->check(NonNegativeNumber())
      ->type_name("SECONDS");
  c->add_option("--filter", o->filter, "only the benchmarks matching this regex")
      ->check(RegexText())
      ->type_name("REGEX");
  c->add_flag("--confirm,--rerun-inconclusive", o->rerun_inconclusive,
              "measure again to confirm a regression before failing");
  c->add_flag("--update", o->update,
              "write the baseline (and the signature) from this run instead of judging it");
  c->add_option("--sessions", o->sessions,
                "with --update: runs of the suite whose spread sets the noise thresholds")
      ->check(IntegerAtLeast(1, 1000))
      ->type_name("N");
  c->add_flag("--force", o->force,
              "with --update: replace a baseline that is unreadable or of another machine class, "
              "or store noise thresholds from sessions the machine disturbed");
  c->add_option("--control-binary", o->control_binary,
                "A/B: the same suite built from the baseline commit; the two alternate round by "
                "round and the candidate is judged against it (no stored baseline needed)")
      ->type_name("OLD_SUITE");
  c->add_option("--control-dir", o->control_dir,
                "A/B against DIR/<suite binary name> when it exists, the stored baseline "
                "otherwise")
      ->type_name("DIR");
}

void AddBaselineUpdateOptions(CLI::App* c, GateOptions* o) {
  c->add_option("--run", o->run_files,
                "Google Benchmark JSON of a run (repeatable: several runs set thresholds from "
                "their spread)")
      ->required()
      ->type_name("RUN.json");
  c->add_option("--suite", o->suite, "the suite's name in the baseline folder")
      ->required()
      ->check(FileNameComponent())
      ->type_name("NAME");
  c->add_option("--baseline-dir", o->baseline_dir,
                "where the baselines are (<dir>/<machine class>/<suite>.json)")
      ->type_name("DIR");
  c->add_option("--baseline", o->baseline_file, "write this baseline file instead")
      ->type_name("FILE");
  c->add_option("--filter", o->filter, "only the benchmarks matching this regex")
      ->check(RegexText())
      ->type_name("REGEX");
  c->add_flag("--force", o->force,
              "replace a baseline that is unreadable or of another machine class, or store noise "
              "thresholds from sessions (several --run) the machine disturbed");
  c->add_flag("--signature-only", o->signature_only,
              "only the machine-independent signature (<dir>/any-machine/)");
}

int Report(const GateOptions& o, const Comparison& c) {
  std::fputs(ComparisonTable(c).c_str(), stdout);
  if (!o.report.empty()) WriteFileAtomically(o.report, JsonText(c.ToJson(), 2) + "\n");
  return c.ExitCode();
}

}  // namespace ntpb::cli
