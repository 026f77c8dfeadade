// The comparator: per benchmark and metric, regression / improvement / unchanged /
// inconclusive against a baseline, with an exit code CTest understands.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/baseline.h"

namespace ntpb {

// What a comparison judges: the machine-independent signature (exact, on every machine), the
// machine class's baseline (latency, and the memory that depends on the machine), or both.
enum class Judge { kAll, kSignature, kLatency };

struct CompareOptions {
  Judge judge = Judge::kAll;
  double alpha = 0.05;      // significance level of the Mann-Whitney U test
  double threshold = 0.05;  // relative change of the median latency that matters
  double alloc_bytes_tolerance = 0.10;
  // Peak RSS is process-wide and depends on the order random interleaving runs things in.
  double rss_tolerance = 0.25;
  // Latencies are judged relative to the rest of the run (suite_drift.h): a benchmark regresses
  // when it moved beyond the threshold both on its own and against the median of the others.
  // Off (--raw): raw medians only.
  bool relative_to_suite = true;
  int min_references = 3;  // other benchmarks needed for a reference; fewer: judged raw
  // The suite as a whole may move with the machine, as long as the calibration kernels (code
  // the suite does not share) moved alike; beyond this difference a suite-wide change cannot be
  // told from the machine's, and latency is inconclusive.
  double max_unexplained_drift = 0.10;
  // Beyond these the run's machine was too busy (or its repetitions too spread) for a latency
  // verdict: inconclusive, "unreliable: the machine was busy (...)".
  ReliabilityLimits reliability;
  // Off where both sides ran interleaved on the same machine (an A/B against a control build):
  // a disturbance then hits both alike, and the verdict stands with the disturbance noted.
  bool busy_is_inconclusive = true;
  // Benchmark name (or prefix) -> latency threshold; overrides the baseline's own.
  std::map<std::string, double> thresholds;
  // A machine class without a latency baseline fails (exit 1, with the command that creates
  // one) unless this is set (gate --allow-no-baseline, NTPB_ALLOW_NO_BASELINE=1): then it is
  // skipped (kSkipReturnCode). Never a silent "100% passed".
  bool allow_no_baseline = false;
};

enum class Verdict {
  kUnchanged,
  kImprovement,
  kRegression,
  kInconclusive,  // too few repetitions, or a large change that is not significant (noise)
  kNew,           // in the run, not in the baseline
  kMissing,       // in the baseline, not in the run (or it failed)
  kRenamed,       // a missing and a new benchmark with the same analytic signature
  kSkipped,       // skipped in the run and in the baseline
  kChanged,       // an exact value or the configuration differs: not the benchmark recorded
};

const char* VerdictName(Verdict v);

struct ComparisonRow {
  std::string benchmark;
  std::string metric;  // "latency_ms", "net.flops", "net.allocs", ...
  double baseline = 0;
  double now = 0;
  double change = 0;    // relative (now - baseline) / baseline
  double p_value = -1;  // latency only; -1 where no test applies
  Verdict verdict = Verdict::kUnchanged;
  std::string note;
};

struct Comparison {
  bool no_baseline = false;  // no latency baseline for this machine class (or it was not asked)
  bool no_baseline_allowed = false;  // CompareOptions::allow_no_baseline
  std::string message;               // for no_baseline: why, and the command that creates one
  // The baseline's environment (libraries, build) where it differs from the run's: judged
  // against the class's baseline all the same, and said.
  std::string environment_change;
  bool signature_judged = false;
  int signature_benchmarks = 0;   // benchmarks the checked signature holds
  std::string signature_file;     // the signature checked
  std::string signature_message;  // why the signature was not judged, and how to record one
  bool latency_judged = false;
  std::string latency_file;  // the machine class's baseline
  std::vector<ComparisonRow> rows;

  // Lines saying what was judged against what, and what was not and why.
  std::string Summary() const;
  bool HasRegression() const;
  bool HasInconclusive() const;
  // 0 pass: everything asked for was judged and holds. 1: a regression, a changed signature or
  // configuration, a missing benchmark, or no latency baseline for this machine class (unless
  // allowed). kSkipReturnCode: part of what was asked could not be judged (no signature file, no
  // baseline where allowed) or a verdict is inconclusive: never a false pass.
  int ExitCode() const;
  // The rows as a table, the summary and the verdict: src/report/comparison_table.h.
  nlohmann::json ToJson() const;
};

inline constexpr int kSkipReturnCode = 77;

// What differs in the environment (library versions, ntpbench's build) between a baseline's
// machine class and a run's: "since the baseline: onednn oneDNN 2.6.2 -> oneDNN 2.6.3"; "" when
// nothing does.
std::string EnvironmentChange(const MachineClass& baseline, const MachineClass& now);

struct Signature;

// `baseline` may be null: then latency is "no baseline for this machine". `signature` may be
// null: then the signature is not judged (without one, the baseline's analytic values are
// compared exactly instead, as far as options.judge asks for latency).
Comparison Compare(const Baseline* baseline, const RunResults& run, const CompareOptions& options,
                   const std::string& update_command = "", const Signature* signature = nullptr);

}  // namespace ntpb
