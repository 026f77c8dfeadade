// `ntpbench gate` (run a suite and compare it with its baseline: what ctest -L perf runs),
// `ntpbench compare` (two JSON files) and `ntpbench baseline update`.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <regex>
#include <set>

#include "ntpbench/baseline.h"
#include "ntpbench/comparator.h"
#include "ntpbench/error.h"
#include "ntpbench/machine_class.h"
#include "ntpbench/noise_threshold.h"
#include "ntpbench/signature.h"
#include "ntpbench/statistics.h"
#include "ntpbench/suite_drift.h"
#include "src/baseline/confirmation.h"
#include "src/bench/machine_class_detect.h"
#include "src/cli/commands.h"
#include "src/common/file_io.h"
#include "src/common/utc_time.h"
#include "src/report/comparison_table.h"
#include "src/report/text_table.h"

namespace ntpb::cli {
namespace {

struct GateOptions {
  std::string suite_binary, suite, baseline_dir, baseline_file, filter, report;
  std::vector<std::string> run_files;  // --run, repeatable: sessions of one baseline update
  std::string control_binary;          // --control-binary: A/B against this build
  std::string control_dir;  // --control-dir: A/B against the suite of the same name in it, if any
  int repetitions = 5;
  int sessions = 1;  // gate --update: runs of the suite whose spread sets the thresholds
  double min_time = 0.1;
  bool update = false, force = false, rerun_inconclusive = false;
  bool signature_only = false;  // baseline update --signature-only
  CompareOptions compare;
  std::vector<std::string> suite_args;  // --ntpb_* and --benchmark_* passed to the suite
};

double ParseNumber(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0)) {
    throw Error("", "", option, "expected a non-negative number, got '" + text + "'");
  }
  return v;
}

GateOptions ParseGateOptions(const std::vector<std::string>& args) {
  GateOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    const bool has_value = arg.find('=') != std::string::npos;
    if (arg.rfind("--ntpb_", 0) == 0 || arg.rfind("--benchmark_", 0) == 0) {
      o.suite_args.push_back(arg);
      continue;
    }
    if (has_value) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= args.size()) throw Error("", "", arg, "needs a value");
      return args[++i];
    };
    if (arg == "--suite-binary")
      o.suite_binary = next();
    else if (arg == "--suite")
      o.suite = next();
    else if (arg == "--baseline-dir")
      o.baseline_dir = next();
    else if (arg == "--baseline")
      o.baseline_file = next();
    else if (arg == "--run")
      o.run_files.push_back(next());
    else if (arg == "--control-binary")
      o.control_binary = next();
    else if (arg == "--control-dir")
      o.control_dir = next();
    else if (arg == "--sessions")
      o.sessions = std::max(1, static_cast<int>(ParseNumber(next(), arg)));
    else if (arg == "--filter")
      o.filter = next();
    else if (arg == "--report")
      o.report = next();
    else if (arg == "--signature-only")
      o.signature_only = true;
    else if (arg == "--judge") {
      const std::string v = next();
      if (v == "all") {
        o.compare.judge = Judge::kAll;
      } else if (v == "signature") {
        o.compare.judge = Judge::kSignature;
      } else if (v == "latency") {
        o.compare.judge = Judge::kLatency;
      } else {
        throw Error("", "", arg, "expected all, signature or latency, got '" + v + "'");
      }
    } else if (arg == "--repetitions") {
      const double n = ParseNumber(next(), arg);
      if (n < 1 || n != static_cast<int>(n) || n > 10000)
        throw Error("", "", arg, "expected a whole number of repetitions >= 1");
      o.repetitions = static_cast<int>(n);
    } else if (arg == "--min-time")
      o.min_time = ParseNumber(next(), arg);
    else if (arg == "--alpha") {
      o.compare.alpha = ParseNumber(next(), arg);
      if (!(o.compare.alpha > 0 && o.compare.alpha < 1))
        throw Error("", "", arg, "expected a significance level between 0 and 1, e.g. 0.05");
    } else if (arg == "--threshold") {
      // A fraction: 0.05 is 5%. "5" would silently mean 500%.
      o.compare.threshold = ParseNumber(next(), arg);
      if (!(o.compare.threshold > 0 && o.compare.threshold < 1))
        throw Error("", "", arg, "expected a fraction between 0 and 1 (0.05 is 5%)");
    } else if (arg == "--threshold-for") {
      const std::string v = next();
      const size_t eq = v.rfind('=');
      if (eq == std::string::npos)
        throw Error("", "", arg, "expected NAME=FRACTION, got '" + v + "'");
      o.compare.thresholds[v.substr(0, eq)] = ParseNumber(v.substr(eq + 1), arg);
    } else if (arg == "--update")
      o.update = true;
    else if (arg == "--force")
      o.force = true;
    else if (arg == "--rerun-inconclusive" || arg == "--confirm")
      o.rerun_inconclusive = true;
    else if (arg == "--raw")
      o.compare.relative_to_suite = false;
    else
      throw Error("", "", arg, "unknown option (see ntpbench --help)");
  }
  return o;
}

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

void PrintDiff(const Baseline* old, const Baseline& now,
               const std::map<std::string, NoiseThreshold>& noise) {
  std::printf("baseline %s (%s)\n", now.file.c_str(), now.machine.human().c_str());
  if (!old) {
    std::printf("  new baseline with %zu benchmarks\n", now.benchmarks.size());
    for (const auto& [name, t] : noise) {
      std::printf("  %s: latency threshold %.0f%% (moved up to %.1f%% between sessions)\n",
                  name.c_str(), 100 * t.threshold, 100 * t.noise);
    }
    return;
  }
  for (const auto& [name, r] : now.benchmarks) {
    auto it = old->benchmarks.find(name);
    if (it == old->benchmarks.end()) {
      std::printf("  + %s: %.3f ms (new)\n", name.c_str(), Median(r.real_time_ms));
      continue;
    }
    const double a = Median(it->second.real_time_ms), b = Median(r.real_time_ms);
    std::printf("  ~ %s: %.3f -> %.3f ms (%+.1f%%)\n", name.c_str(), a, b,
                a > 0 ? 100 * (b - a) / a : 0.0);
    auto n = noise.find(name);
    if (n != noise.end()) {
      std::printf("      latency threshold %.0f%% (moved up to %.1f%% between sessions)\n",
                  100 * n->second.threshold, 100 * n->second.noise);
    }
    for (const auto& [metric, value] : r.analytic) {
      auto m = it->second.analytic.find(metric);
      if (m != it->second.analytic.end() && m->second != value) {
        std::printf("      %s %.0f -> %.0f (analytic signature changed)\n", metric.c_str(),
                    m->second, value);
      }
    }
  }
  for (const auto& [name, r] : old->benchmarks) {
    if (!now.benchmarks.count(name)) std::printf("  - %s (removed)\n", name.c_str());
  }
}

// The machine-independent part, written beside the machine classes' folders: what changed in it
// is printed, since it changes for every machine at once.
void UpdateSignature(const GateOptions& o, const RunResults& run) {
  const std::string path = SignaturePath(o.baseline_dir, o.suite);
  Signature now = SignatureOf(run, o.suite);
  Signature old;
  const bool existed = access(path.c_str(), F_OK) == 0;
  if (existed) {
    try {
      old = ReadSignature(path);
    } catch (const Error& e) {
      if (!o.force)
        throw Error(path, "", "", std::string(e.message()) + " (use --force to replace it)");
    }
  }
  if (!o.filter.empty() && existed) {  // only the filtered benchmarks are replaced
    const std::regex filter(o.filter);
    Signature merged = old;
    merged.created = now.created;
    for (auto it = merged.benchmarks.begin(); it != merged.benchmarks.end();) {
      it = std::regex_search(it->first, filter) ? merged.benchmarks.erase(it) : std::next(it);
    }
    for (const auto& [name, e] : now.benchmarks) {
      if (std::regex_search(name, filter)) merged.benchmarks[name] = e;
    }
    now = merged;
  }
  now.suite = o.suite;
  WriteSignature(now, path);
  const std::vector<std::string> diff = SignatureDiff(old, now);
  std::printf("signature %s (every machine)%s\n", path.c_str(),
              !existed       ? ": new"
              : diff.empty() ? ": unchanged"
                             : "");
  if (existed) {
    for (const std::string& line : diff) std::printf("  %s\n", line.c_str());
  } else {
    std::printf("  %zu benchmarks\n", now.benchmarks.size());
  }
}

int Update(const GateOptions& o, const std::vector<RunResults>& sessions, const std::string& path) {
  const RunResults& run = sessions.front();
  if (!run.has_machine)
    throw Error(run.file, "", "context", "the run did not record its machine class");
  std::unique_ptr<Baseline> old;
  if (access(path.c_str(), F_OK) == 0) {
    try {
      old = std::make_unique<Baseline>(ReadBaseline(path));
    } catch (const Error& e) {
      if (!o.force)
        throw Error(path, "", "", std::string(e.message()) + " (use --force to replace it)");
    }
    if (old && !(old->machine == run.machine) && !o.force) {
      throw Error(path, "", "machine_class",
                  "refusing to overwrite a baseline of machine class " + old->machine.id() +
                      " with results of " + run.machine.id() + " (use --force)");
    }
  }
  Baseline b;
  if (old) b = *old;
  b.file = path;
  b.suite = o.suite;
  b.machine = run.machine;
  b.created = UtcTimestamp();
  b.context = run.context;
  b.peak_rss_bytes = run.peak_rss_bytes;
  const std::regex filter(o.filter.empty() ? ".*" : o.filter);
  if (o.filter.empty()) b.benchmarks.clear();
  std::map<std::string, NoiseThreshold> noise =
      DeriveNoiseThresholds(sessions, o.compare.threshold);
  for (const auto& [name, r] : run.benchmarks) {
    if (!std::regex_search(name, filter)) continue;
    b.benchmarks[name] = r;
    if (sessions.size() < 2) continue;  // one session: keep the thresholds measured before
    auto n = noise.find(name);
    if (n != noise.end() && n->second.threshold > o.compare.threshold) {
      b.thresholds[name] = n->second.threshold;
    } else {
      b.thresholds.erase(name);
    }
  }
  WriteBaseline(b, path);
  PrintDiff(old.get(), b, noise);
  if (!o.baseline_dir.empty()) UpdateSignature(o, run);
  return 0;
}

int Report(const GateOptions& o, const Comparison& c) {
  std::fputs(report::ComparisonTable(c).c_str(), stdout);
  if (!o.report.empty()) WriteFileAtomically(o.report, c.ToJson().dump(2) + "\n");
  return c.ExitCode();
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

}  // namespace

int GateCommand(const std::vector<std::string>& args) {
  GateOptions o = ParseGateOptions(args);
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
    throw Error("", "", "gate", "needs --suite-binary, --suite and --baseline-dir");
  }
  const std::string create = "ntpbench gate --suite-binary " + o.suite_binary + " --suite " +
                             o.suite + " --baseline-dir " + o.baseline_dir + " --update";
  if (!o.update && o.compare.judge == Judge::kLatency) {
    // This machine class has no latency baseline: say so now rather than after the suite's
    // repetitions (minutes). The suite detects its class with the same library call.
    RunResults here;
    here.has_machine = true;
    here.machine = DetectMachineClass();
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

int CompareCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files, rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      files.push_back(a);
      continue;
    }
    rest.push_back(a);
    const bool flag = a == "--update" || a == "--force" || a == "--rerun-inconclusive" ||
                      a == "--raw" || a == "--signature-only";
    if (!flag && a.find('=') == std::string::npos && i + 1 < args.size()) rest.push_back(args[++i]);
  }
  if (files.size() != 2)
    throw Error("", "", "compare", "usage: ntpbench compare BASELINE.json RUN.json [options]");
  GateOptions o = ParseGateOptions(rest);
  const Baseline baseline = ReadBaseline(files[0]);
  const RunResults run = ReadRunResults(files[1]);
  return Report(o, Compare(&baseline, run, o.compare));
}

int BaselineCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "update") {
    throw Error("", "", "baseline",
                "usage: ntpbench baseline update --run RUN.json [--run MORE.json ...] --suite S "
                "--baseline-dir DIR [--filter REGEX] [--force] [--signature-only]");
  }
  GateOptions o = ParseGateOptions({args.begin() + 1, args.end()});
  if (o.run_files.empty() || o.suite.empty() ||
      (o.baseline_dir.empty() && o.baseline_file.empty())) {
    throw Error("", "", "baseline update",
                "needs --run, --suite and --baseline-dir (or --baseline FILE)");
  }
  std::vector<RunResults> sessions;
  for (const std::string& f : o.run_files) sessions.push_back(ReadRunResults(f));
  if (o.signature_only) {
    if (o.baseline_dir.empty()) throw Error("", "", "--signature-only", "needs --baseline-dir");
    UpdateSignature(o, sessions.front());
    return 0;
  }
  const std::string path = o.baseline_file.empty()
                               ? BaselinePath(o.baseline_dir, sessions[0].machine, o.suite)
                               : o.baseline_file;
  return Update(o, sessions, path);
}

}  // namespace ntpb::cli
