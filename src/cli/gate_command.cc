// `ntpbench gate`: run a suite and compare it with its baseline (what ctest -L perf runs), or
// A/B against a control build.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <regex>
#include <set>

#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"
#include "ntpbench/error.h"
#include "src/baseline/confirmation.h"
#include "src/baseline/signature.h"
#include "src/baseline/suite_drift.h"
#include "src/bench/machine_class_detect.h"
#include "src/cli/baseline_update.h"
#include "src/cli/commands.h"
#include "src/cli/gate_options.h"
#include "src/common/file_io.h"

namespace ntpb::cli {
namespace {

// Runs the suite binary with repetitions, random interleaving and JSON output; returns the path.
// `candidate`: the --ntpb_*/--benchmark_* flags given to the gate apply (a control run of the
// A/B mode gets none of them).
std::string RunSuiteBinary(const GateOptions& o, const std::string& binary, int repetitions,
                           bool candidate, const std::string& filter, const std::string& tag) {
  const std::string out =
      "ntpbench-gate-" + o.suite + tag + "-" + std::to_string(getpid()) + ".json";
  std::vector<std::string> args = {binary,
                                   "--benchmark_repetitions=" + std::to_string(repetitions),
                                   "--benchmark_enable_random_interleaving=true",
                                   "--benchmark_min_time=" + std::to_string(o.min_time),
                                   "--benchmark_out=" + out,
                                   "--benchmark_out_format=json",
                                   "--benchmark_display_aggregates_only=true",
                                   "--ntpb_counters=memory",
                                   "--ntpb_calibration"};
  if (!filter.empty()) args.push_back("--benchmark_filter=(" + filter + ")|^ntpbench_calibration/");
  if (candidate) {
    for (const std::string& a : o.suite_args) args.push_back(a);
  }
  std::fprintf(stderr, "ntpbench gate: running %s (%d repetitions)\n", binary.c_str(), repetitions);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(STDERR_FILENO, STDOUT_FILENO);  // the suite's console output is progress: stderr
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::perror(argv[0]);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw Error(binary, "", "", "the suite failed (exit status " + std::to_string(status) + ")");
  }
  return out;
}

std::string RunSuite(const GateOptions& o, const std::string& filter, const std::string& tag) {
  return RunSuiteBinary(o, o.suite_binary, o.repetitions, true, filter, tag);
}

RunResults ReadAndRemove(const std::string& file) {
  RunResults r = ReadRunResults(file);
  std::remove(file.c_str());
  return r;
}

void SayConfirming(size_t doubtful) {
  std::fprintf(stderr, "ntpbench gate: %zu latency verdicts to confirm; measuring again\n",
               doubtful);
}

// A Google Benchmark filter that matches exactly these benchmarks (full names, as in the JSON).
std::string FilterFor(const std::set<std::string>& names) {
  std::string filter;
  for (const std::string& name : names) {
    std::string escaped;
    for (char c : name) {
      if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) escaped += '\\';
      escaped += c;
    }
    filter += (filter.empty() ? "^" : "|^") + escaped + "$";
  }
  return filter;
}

// A/B against a control build (the suite built from the baseline commit): the two binaries run
// alternately, round by round, so whatever the shared machine does in between hits both alike;
// each benchmark of the candidate is judged against the control's repetitions of the same
// moments, not against numbers stored on another day. The stored baseline is not needed.
Comparison MeasureAgainstControl(const GateOptions& o, const std::string& filter) {
  RunResults control, candidate;
  const int rounds = std::max(2, o.repetitions);
  for (int round = 0; round < rounds; ++round) {
    std::fprintf(stderr, "ntpbench gate: A/B round %d of %d\n", round + 1, rounds);
    const bool control_first = round % 2 == 0;
    for (int k = 0; k < 2; ++k) {
      const bool is_control = (k == 0) == control_first;
      const std::string file =
          RunSuiteBinary(o, is_control ? o.control_binary : o.suite_binary, 2, !is_control, filter,
                         is_control ? "-control" : "-candidate");
      Append(is_control ? &control : &candidate, ReadAndRemove(file));
    }
  }
  Baseline reference;
  reference.file = o.control_binary;
  reference.suite = o.suite;
  reference.machine = control.machine;
  reference.benchmarks = control.benchmarks;
  reference.peak_rss_bytes = control.peak_rss_bytes;
  CompareOptions compare = o.compare;
  compare.relative_to_suite = false;  // A/B needs no drift model: both saw the same machine
  // ... and the same neighbours, round by round: a busy machine is noted, not disqualifying.
  compare.busy_is_inconclusive = false;
  return Compare(&reference, candidate, compare);
}

int ControlledGate(const GateOptions& o) {
  std::fprintf(stderr, "ntpbench gate: A/B, %s (candidate) against %s (control)\n",
               o.suite_binary.c_str(), o.control_binary.c_str());
  Comparison c = MeasureAgainstControl(o, o.filter);
  if (o.rerun_inconclusive) {
    // Only the doubtful benchmarks run again: A/B needs no rest of the suite to judge them.
    c = Confirm(c, [&](const std::set<std::string>& names) {
      SayConfirming(names.size());
      return MeasureAgainstControl(o, FilterFor(names));
    });
  }
  return Report(o, c);
}

int Gate(GateOptions o) {
  if (o.control_binary.empty() && !o.control_dir.empty() && !o.suite_binary.empty() && !o.update) {
    const std::string name = o.suite_binary.substr(o.suite_binary.find_last_of('/') + 1);
    const std::string candidate = o.control_dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) {
      o.control_binary = candidate;
    } else {
      std::fprintf(stderr,
                   "ntpbench gate: no control build %s; judging against the stored baseline "
                   "(a control build: configure with -DNTPBENCH_PERF_CONTROL_REF=<git ref>)\n",
                   candidate.c_str());
    }
  }
  if (!o.control_binary.empty() && !o.suite_binary.empty() && !o.suite.empty()) {
    return ControlledGate(o);
  }
  if (o.suite_binary.empty() || o.suite.empty() || o.baseline_dir.empty()) {
    const char* missing = o.suite_binary.empty() ? "--suite-binary"
                          : o.suite.empty()      ? "--suite"
                                                 : "--baseline-dir";
    throw Error("", "", missing,
                "is missing: gate needs --suite-binary, --suite and --baseline-dir (or "
                "--control-binary)");
  }
  if (!o.report.empty()) {
    RefuseOutputOverInput(o.report, {o.suite_binary, SignaturePath(o.baseline_dir, o.suite)},
                          "--report");
  }
  const std::string create = "ntpbench gate --suite-binary " + o.suite_binary + " --suite " +
                             o.suite + " --baseline-dir " + o.baseline_dir + " --update";
  if (!o.update && o.compare.judge == Judge::kLatency) {
    // This machine class has no latency baseline: say so now rather than after the suite's
    // repetitions (minutes). The suite detects its class with the same library call.
    RunResults here;
    here.has_machine = true;
    const std::set<std::string> none;  // the class's id only: no driver started for it
    here.machine = DetectMachineClass(&none);
    if (access(BaselinePath(o.baseline_dir, here.machine, o.suite).c_str(), F_OK) != 0) {
      std::fprintf(stderr,
                   "ntpbench gate: no latency baseline for this machine class; not running "
                   "the suite\n");
      return Report(o, Compare(nullptr, here, o.compare, create, nullptr));
    }
  }
  const std::string run_file = RunSuite(o, o.filter, "");
  RunResults run = ReadRunResults(run_file);
  std::remove(run_file.c_str());
  const std::string path = BaselinePath(o.baseline_dir, run.machine, o.suite);
  if (o.update) {
    std::vector<RunResults> sessions = {run};
    for (int s = 1; s < o.sessions; ++s) {
      std::fprintf(stderr, "ntpbench gate: session %d of %d (noise thresholds)\n", s + 1,
                   o.sessions);
      const std::string more = RunSuite(o, o.filter, "-session");
      sessions.push_back(ReadRunResults(more));
      std::remove(more.c_str());
    }
    return Update(o, sessions, path);
  }
  std::unique_ptr<Baseline> baseline;
  if (access(path.c_str(), F_OK) == 0) baseline = std::make_unique<Baseline>(ReadBaseline(path));
  std::unique_ptr<Signature> signature;
  const std::string signature_path = SignaturePath(o.baseline_dir, o.suite);
  if (o.compare.judge != Judge::kLatency && access(signature_path.c_str(), F_OK) == 0) {
    signature = std::make_unique<Signature>(ReadSignature(signature_path));
  }
  if (signature && !o.filter.empty()) {
    const std::regex filter(o.filter);
    for (auto it = signature->benchmarks.begin(); it != signature->benchmarks.end();) {
      it = std::regex_search(it->first, filter) ? std::next(it) : signature->benchmarks.erase(it);
    }
  }
  if (baseline && !o.filter.empty()) {  // compare only what this run was asked to run
    const std::regex filter(o.filter);
    for (auto it = baseline->benchmarks.begin(); it != baseline->benchmarks.end();) {
      const bool keep = std::regex_search(it->first, filter) || IsCalibrationBenchmark(it->first);
      it = keep ? std::next(it) : baseline->benchmarks.erase(it);
    }
  }
  Comparison c = Compare(baseline.get(), run, o.compare, create, signature.get());
  if (o.rerun_inconclusive) {
    // The whole suite runs again: each benchmark is judged against the rest of it.
    c = Confirm(c, [&](const std::set<std::string>& names) {
      SayConfirming(names.size());
      const std::string again = RunSuite(o, o.filter, "-confirm");
      const RunResults second_run = ReadRunResults(again);
      std::remove(again.c_str());
      return Compare(baseline.get(), second_run, o.compare, create, signature.get());
    });
  }
  return Report(o, c);
}

}  // namespace

Command AddGateCommand(CLI::App* app) {
  auto o = std::make_shared<GateOptions>();
  CLI::App* c = app->add_subcommand(
      "gate",
      "run a suite and compare it with its baseline (what ctest -L perf runs). Exit 0 pass, 1 "
      "regression, changed signature or no baseline for this machine class, 77 inconclusive or "
      "(--allow-no-baseline) no baseline; the output says which.");
  AddGateOptions(c, o.get());
  AddJudgingOptions(c, o.get());
  c->footer(
      "The suite's flags pass through: --ntpb_set=NAME=VALUE, --ntpb_inject_slowdown=LAYER:F, "
      "... and Google Benchmark's --benchmark_*. Latency is judged against the rest of the run "
      "(--raw: on its own).");
  return {c, {"--benchmark_", "--ntpb_"}, [o](const std::vector<std::string>& passed) {
            GateOptions options = *o;
            options.suite_args = passed;
            return Gate(options);
          }};
}

}  // namespace ntpb::cli
