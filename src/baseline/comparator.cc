#include "ntpbench/comparator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "ntpbench/reliability.h"
#include "src/baseline/signature.h"
#include "src/baseline/suite_drift.h"
#include "src/common/format_number.h"
#include "src/common/statistics.h"

namespace ntpb {

namespace {

std::string Format(const char* fmt, double v) { return FormatNumber(fmt, v); }

double Relative(double before, double after) {
  return before != 0 ? (after - before) / std::abs(before) : (after != 0 ? INFINITY : 0.0);
}

ComparisonRow Row(const std::string& benchmark, const std::string& metric, double baseline,
                  double now) {
  ComparisonRow row;
  row.benchmark = benchmark;
  row.metric = metric;
  row.baseline = baseline;
  row.now = now;
  row.change = Relative(baseline, now);
  return row;
}

double ThresholdFor(const std::string& name, const Baseline& b, const CompareOptions& o) {
  // The longest matching prefix wins; options override the baseline's own overrides. Each
  // prefix of the name is looked up (log t each), not each threshold tried against the name.
  for (size_t length = name.size() + 1; length-- > 0;) {
    const std::string prefix = name.substr(0, length);
    for (const auto* table : {&o.thresholds, &b.thresholds}) {
      auto it = table->find(prefix);
      if (it != table->end()) return it->second;
    }
  }
  return o.threshold;
}

// Times per repetition, `metric` of the row: the latency (real_time_ms) or a scenario's p99.
// `drift` is the movement of the rest of the suite (1 when judged raw).
ComparisonRow Latency(const std::string& name, const std::string& metric,
                      const std::vector<double>& base_ms, const std::vector<double>& now_ms,
                      const DriftReference& drift, double threshold, double alpha) {
  ComparisonRow row = Row(name, metric, Median(base_ms), Median(now_ms));
  const double raw_change = row.change;
  std::vector<double> relative = now_ms;
  for (double& t : relative) t /= drift.reference;
  row.change = Relative(row.baseline, Median(relative));
  const MannWhitneyResult u = MannWhitneyU(base_ms, relative);
  row.p_value = u.p_value;
  const std::string moved =
      drift.references > 0 ? " (raw " + Format("%+.1f%%", 100 * raw_change) + ", rest of suite " +
                                 Format("%+.1f%%", 100 * (drift.reference - 1)) + ")"
                           : "";
  // Both views must agree: against the rest of the suite, and on its own.
  const bool beyond = std::abs(row.change) > threshold && std::abs(raw_change) > threshold &&
                      (row.change > 0) == (raw_change > 0);
  if (u.min_p_value > alpha) {
    row.verdict = Verdict::kInconclusive;
    row.note = std::to_string(base_ms.size()) + " vs " + std::to_string(now_ms.size()) +
               " repetitions cannot reach p < " + Format("%g", alpha) + "; run more";
  } else if (u.p_value < alpha && beyond) {
    row.verdict = row.change > 0 ? Verdict::kRegression : Verdict::kImprovement;
    row.note = Format("%+.1f%%", 100 * row.change) + " beyond " +
               Format("%.0f%%", 100 * threshold) + moved;
  } else if (u.p_value >= alpha && beyond) {
    row.verdict = Verdict::kInconclusive;
    row.note =
        Format("%+.1f%%", 100 * row.change) + " but the repetitions overlap (noise?)" + moved;
  } else {
    row.verdict = Verdict::kUnchanged;
    if (std::abs(raw_change) > threshold) row.note = "moved with the suite" + moved;
  }
  return row;
}

// An exact value: the analytic signature (any change is a changed benchmark) or the backend's
// memory plan (more is a regression). Nothing when either side did not record it.
void Exact(const std::string& name, const std::string& metric, std::optional<double> base,
           std::optional<double> now, bool analytic, std::vector<ComparisonRow>* rows,
           const char* changed = "allocation count changed") {
  if (!base || !now) return;
  ComparisonRow row = Row(name, metric, *base, *now);
  if (*now == *base) {
    row.verdict = Verdict::kUnchanged;
  } else if (analytic) {
    row.verdict = Verdict::kChanged;
    row.note = "analytic signature changed: update the baseline if intended";
  } else {
    row.verdict = *now > *base ? Verdict::kRegression : Verdict::kImprovement;
    row.note = changed;
  }
  rows->push_back(row);
}

void Tolerance(const std::string& name, const std::string& metric, double base, double now,
               double tolerance, std::vector<ComparisonRow>* rows) {
  ComparisonRow row = Row(name, metric, base, now);
  if (std::abs(row.change) <= tolerance || (base == 0 && now == 0)) {
    row.verdict = Verdict::kUnchanged;
  } else {
    row.verdict = row.change > 0 ? Verdict::kRegression : Verdict::kImprovement;
    row.note = "beyond the " + Format("%.0f%%", 100 * tolerance) + " tolerance";
  }
  rows->push_back(row);
}

}  // namespace

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kUnchanged:
      return "unchanged";
    case Verdict::kImprovement:
      return "IMPROVEMENT";
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kNew:
      return "new";
    case Verdict::kMissing:
      return "MISSING";
    case Verdict::kRenamed:
      return "renamed?";
    case Verdict::kSkipped:
      return "skipped";
    case Verdict::kChanged:
      return "CHANGED";
  }
  return "?";
}

namespace {

// The settings two configurations differ in ("params.n_hidden 1024 -> 1100").
std::string ConfigDifference(const nlohmann::json& before, const nlohmann::json& after) {
  std::string out;
  const nlohmann::json diff = nlohmann::json::diff(before, after);
  for (const nlohmann::json& op : diff) {
    const nlohmann::json::json_pointer pointer(op.value("path", std::string()));
    const nlohmann::json was = before.contains(pointer) ? before.at(pointer) : nlohmann::json();
    std::string path = pointer.to_string().substr(1);
    for (char& ch : path) ch = ch == '/' ? '.' : ch;
    out += (out.empty() ? "" : ", ") + path + " " + (was.is_null() ? "(none)" : was.dump()) +
           " -> " + (op.contains("value") ? op["value"].dump() : "(none)");
  }
  return out;
}

// Every benchmark of the stored signature, exactly: the configuration and each metric.
void CheckSignature(const Signature& stored, const RunResults& run,
                    std::vector<ComparisonRow>* rows) {
  const Signature now = SignatureOf(run, stored.suite);
  for (const auto& [name, expected] : stored.benchmarks) {
    auto it = now.benchmarks.find(name);
    if (it == now.benchmarks.end()) {
      ComparisonRow row = Row(name, "signature", 0, 0);
      row.verdict = Verdict::kMissing;
      auto ran = run.benchmarks.find(name);
      row.note = ran == run.benchmarks.end() ? "not in this run" : "failed: " + ran->second.skipped;
      rows->push_back(row);
      continue;
    }
    const SignatureEntry& actual = it->second;
    if (!expected.config.is_null() && !actual.config.is_null() &&
        expected.config != actual.config) {
      ComparisonRow row = Row(name, "config", 0, 0);
      row.change = 0;
      row.verdict = Verdict::kChanged;
      row.note =
          "ran with another configuration: " + ConfigDifference(expected.config, actual.config);
      rows->push_back(row);
    }
    for (const auto& [metric, value] : expected.metrics) {
      auto m = actual.metrics.find(metric);
      ComparisonRow row = Row(name, metric, value, m == actual.metrics.end() ? 0 : m->second);
      if (m == actual.metrics.end()) {
        row.change = 0;
        row.verdict = Verdict::kChanged;
        row.note = "not measured in this run";
      } else if (m->second != value) {
        row.verdict = Verdict::kChanged;
        row.note = "exact on every machine: changed (update the signature if intended)";
      } else {
        row.verdict = Verdict::kUnchanged;
      }
      rows->push_back(row);
    }
  }
  for (const auto& [name, entry] : now.benchmarks) {
    if (stored.benchmarks.count(name)) continue;
    ComparisonRow row = Row(name, "signature", 0, 0);
    row.verdict = Verdict::kNew;
    row.note = "not in the signature file";
    rows->push_back(row);
  }
}

void CompareLatency(const Baseline* baseline, const RunResults& run, const CompareOptions& o,
                    bool exact_rows, Comparison& c);

}  // namespace

namespace {

// "eigen=Eigen 3.4.0, onednn=oneDNN 2.6.3, OpenMP, opencl=OpenCL ... (PoCL, driver 3.1)" by
// library: a new entry starts after ", " where a name and '=' (or the end) follow, not inside
// a version's parentheses.
std::map<std::string, std::string> LibraryEntries(const std::string& libraries) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= libraries.size(); ++i) {
    if (i < libraries.size() && libraries[i] == '(') ++depth;
    if (i < libraries.size() && libraries[i] == ')') --depth;
    if (i < libraries.size() && !(depth == 0 && libraries.compare(i, 2, ", ") == 0)) continue;
    const std::string entry = libraries.substr(start, i - start);
    const size_t eq = entry.find('=');
    if (!entry.empty()) {
      out[eq == std::string::npos ? entry : entry.substr(0, eq)] =
          eq == std::string::npos ? "" : entry.substr(eq + 1);
    }
    start = i + 2;
  }
  return out;
}

}  // namespace

std::string EnvironmentChange(const MachineClass& baseline, const MachineClass& now) {
  std::string out;
  auto add = [&](const std::string& what) { out += (out.empty() ? "" : "; ") + what; };
  const auto before = LibraryEntries(baseline.libraries), after = LibraryEntries(now.libraries);
  for (const auto& [name, version] : before) {
    auto it = after.find(name);
    if (version == MachineClass::kNotStarted ||
        (it != after.end() && it->second == MachineClass::kNotStarted)) {
      continue;  // not asked on one side: no run used it
    }
    if (it == after.end()) {
      add(name + " " + version + " no longer built in");
    } else if (it->second != version) {
      add(name + " " + version + " -> " + it->second);
    }
  }
  for (const auto& [name, version] : after) {
    if (!before.count(name)) add(name + (version.empty() ? "" : " " + version) + " built in since");
  }
  if (baseline.build != now.build) add("build " + baseline.build + " -> " + now.build);
  return out.empty() ? "" : "since the baseline: " + out;
}

Comparison Compare(const Baseline* baseline, const RunResults& run, const CompareOptions& o,
                   const std::string& update_command, const Signature* signature) {
  Comparison c;
  const std::string no_signature =
      "no machine-independent signature for this suite" +
      (update_command.empty() ? "" : "; create one with: " + update_command);
  if (o.judge != Judge::kLatency) {
    if (signature) {
      CheckSignature(*signature, run, &c.rows);
      c.signature_judged = true;
      c.signature_benchmarks = static_cast<int>(signature->benchmarks.size());
      c.signature_file = signature->file;
    } else if (o.judge == Judge::kSignature) {
      c.signature_message = no_signature;
    }
  }
  if (o.judge == Judge::kSignature) return c;
  c.no_baseline_allowed = o.allow_no_baseline;
  if (!baseline || !run.has_machine || !(baseline->machine == run.machine)) {
    c.no_baseline = true;
    c.message = std::string("no baseline for this machine class, so latency is not judged") +
                (run.has_machine ? " (" + run.machine.id() + ": " + run.machine.human() + ")"
                                 : " (the run did not record its machine class)") +
                (baseline ? "; the baseline is for " + baseline->machine.id() : "") +
                (update_command.empty() ? "" : "; create one with: " + update_command);
    if (o.judge == Judge::kAll && !signature) c.signature_message = no_signature;
    return c;
  }
  c.latency_judged = true;
  c.latency_file = baseline->file;
  c.environment_change = EnvironmentChange(baseline->machine, run.machine);
  // Without a signature (compare of two files, say), the baseline's exact values stand in.
  CompareLatency(baseline, run, o, o.judge == Judge::kAll && !signature, c);
  return c;
}

namespace {

void CompareLatency(const Baseline* baseline, const RunResults& run, const CompareOptions& o,
                    bool exact_rows, Comparison& c) {
  const std::map<std::string, DriftReference> drift =
      EstimateDrift(baseline->benchmarks, run.benchmarks, o.min_references);
  bool drift_unexplained = false, judge_raw = !o.relative_to_suite;
  if (o.relative_to_suite && !drift.empty()) {
    const double suite = SuiteDrift(drift), calibration = CalibrationDrift(drift);
    const bool has_calibration = std::any_of(
        drift.begin(), drift.end(), [](const auto& d) { return IsCalibrationBenchmark(d.first); });
    ComparisonRow row = Row("(suite)", "drift", 1.0, suite);
    row.note = "median benchmark moved " + Format("%+.1f%%", 100 * (suite - 1));
    if (has_calibration) {
      row.note += ", calibration kernels " + Format("%+.1f%%", 100 * (calibration - 1));
      drift_unexplained = std::abs(suite / calibration - 1) > o.max_unexplained_drift;
    }
    // The suite moved but the machine (calibration) did not: a change that affects most of the
    // suite. Judged raw, it fails as it should. Both moved, differently: cannot tell.
    judge_raw = drift_unexplained && std::abs(calibration - 1) <= o.threshold;
    row.verdict = drift_unexplained && !judge_raw ? Verdict::kInconclusive : Verdict::kUnchanged;
    row.note += judge_raw ? ": the suite moved, the machine did not; latencies are judged raw"
                : drift_unexplained
                    ? ": the suite moved unlike the machine; latency cannot be judged, rerun"
                    : "; latencies are judged against the rest of the suite";
    c.rows.push_back(row);
  }
  std::vector<std::string> missing, added;
  for (const auto& [name, base] : baseline->benchmarks) {
    if (IsCalibrationBenchmark(name)) continue;
    auto it = run.benchmarks.find(name);
    if (it == run.benchmarks.end() || (base.skipped.empty() && !it->second.skipped.empty())) {
      if (it == run.benchmarks.end()) missing.push_back(name);
      ComparisonRow row = Row(name, "latency_ms", Median(base.real_time_ms), 0);
      row.change = 0;
      row.verdict = Verdict::kMissing;
      row.note = it == run.benchmarks.end() ? "not in this run" : "failed: " + it->second.skipped;
      c.rows.push_back(row);
      continue;
    }
    const BenchmarkResult& now = it->second;
    if (!base.skipped.empty() || !now.skipped.empty()) {
      ComparisonRow row = Row(name, "latency_ms", 0, 0);
      row.verdict = base.skipped.empty() ? Verdict::kNew : Verdict::kSkipped;
      row.note = now.skipped.empty() ? "runs now, was skipped" : now.skipped;
      c.rows.push_back(row);
      continue;
    }
    DriftReference reference;
    auto d = drift.find(name);
    if (!judge_raw && d != drift.end()) reference = d->second;
    const double threshold = ThresholdFor(name, *baseline, o);
    ComparisonRow latency = Latency(name, "latency_ms", base.real_time_ms, now.real_time_ms,
                                    reference, threshold, o.alpha);
    if (drift_unexplained && !judge_raw && latency.verdict == Verdict::kUnchanged) {
      latency.verdict = Verdict::kInconclusive;
      latency.note = "the suite drifted unlike the machine: cannot judge";
    }
    // A scenario's p99 per query, with the same test and threshold, on its own (a queue's tail
    // does not move with the rest of the suite).
    std::optional<ComparisonRow> p99;
    if (!base.p99_ms.empty() && !now.p99_ms.empty()) {
      p99 = Latency(name, "p99_ms", base.p99_ms, now.p99_ms, DriftReference{}, threshold, o.alpha);
    }
    // A time measured while the machine was busy says nothing either way (reliability.h).
    // A spread is judged beyond what the benchmark's own threshold already allows for.
    ReliabilityLimits limits = o.reliability;
    limits.mdape = std::max(limits.mdape, threshold);
    if (const Reliability reliability = JudgeBenchmark(now, limits); !reliability.reliable) {
      for (ComparisonRow* row : {&latency, p99 ? &*p99 : nullptr}) {
        if (!row) continue;
        if (o.busy_is_inconclusive) {
          row->verdict = Verdict::kInconclusive;
          row->note = reliability.Verdict();
        } else {
          row->note += (row->note.empty() ? "" : "; ") + reliability.Verdict() +
                       " (A/B: the control ran beside it, round by round)";
        }
      }
    }
    // A change measured with the cores placed otherwise than the baseline's is the host's, not
    // the code's: a VM's host moves its virtual CPUs between one core complex and two (a 2-core
    // AMD EPYC guest: 25-32 against 165-190 ns core to core; MobileNet v2 2.1 against 2.8 ms).
    // Inconclusive, so the gate measures it again; unchanged rows stay as they are.
    if (const double was = base.CoreToCoreNs(), is = now.CoreToCoreNs();
        !SameCorePlacement(is, was)) {
      const std::string placed = "the cores were placed " + FormatNumber("%.0f", is) +
                                 " ns apart, " + FormatNumber("%.0f", was) +
                                 " in the baseline (core to core): cannot judge";
      for (ComparisonRow* row : {&latency, p99 ? &*p99 : nullptr}) {
        if (!row || row->verdict == Verdict::kUnchanged) continue;
        if (o.busy_is_inconclusive) {
          row->verdict = Verdict::kInconclusive;
          row->note = placed;
        } else {
          row->note += (row->note.empty() ? "" : "; ") + placed;
        }
      }
    }
    c.rows.push_back(latency);
    if (p99) c.rows.push_back(*p99);
    // What the signature checks on every machine is left to it; a backend that plans memory by
    // the CPU (portable_memory_plan false) has its plan checked here, per machine class.
    const bool portable_plan =
        now.config.is_object() && now.config.value("portable_memory_plan", false);
    if (exact_rows) {
      // Whatever analytic values the baseline stored, by name (a baseline may predate one).
      for (const auto& [metric, value] : base.analytic) {
        auto n = now.analytic.find(metric);
        Exact(name, metric, value,
              n == now.analytic.end() ? std::nullopt : std::optional<double>(n->second), true,
              &c.rows);
      }
    }
    const RunMeasurement bm = base.Measurement();
    const RunMeasurement nm = now.Measurement();
    const std::string& benchmark = name;  // a lambda cannot capture a structured binding
    auto exact = [&](Metric metric, const char* changed) {
      Exact(benchmark, MetricName(metric), MetricValue(bm, metric), MetricValue(nm, metric), false,
            &c.rows, changed);
    };
    if (exact_rows || !portable_plan) {
      exact(Metric::kAllocs, "allocation count changed");
      // What the backend sets aside (scratchpads; activation buffers after reuse) is decided
      // when the network is built: the same for a build on a machine class, so any change is
      // real.
      exact(Metric::kWorkspaceBytes, "the backend's memory changed");
      exact(Metric::kActivationBytes, "the backend's memory changed");
    }
    if (bm.memory.alloc_bytes && nm.memory.alloc_bytes) {
      Tolerance(name, MetricName(Metric::kAllocBytes), *bm.memory.alloc_bytes,
                *nm.memory.alloc_bytes, o.alloc_bytes_tolerance, &c.rows);
    }
  }
  for (const auto& [name, now] : run.benchmarks) {
    if (baseline->benchmarks.count(name) || IsCalibrationBenchmark(name)) continue;
    added.push_back(name);
    ComparisonRow row = Row(name, "latency_ms", 0, Median(now.real_time_ms));
    row.verdict = Verdict::kNew;
    row.note = "not in the baseline";
    c.rows.push_back(row);
  }
  // A missing and a new benchmark with the same analytic signature: most likely a rename.
  // Indexed by signature, so thousands of each match in n log n.
  std::map<std::map<std::string, double>, std::string> added_by_signature;
  for (const std::string& a : added) {
    const auto& signature = run.benchmarks.at(a).analytic;
    if (!signature.empty()) added_by_signature.emplace(signature, a);
  }
  std::map<std::string, std::vector<ComparisonRow*>> missing_rows;
  for (ComparisonRow& row : c.rows) {
    if (row.verdict == Verdict::kMissing) missing_rows[row.benchmark].push_back(&row);
  }
  for (const std::string& m : missing) {
    auto a = added_by_signature.find(baseline->benchmarks.at(m).analytic);
    auto row = missing_rows.find(m);
    if (a == added_by_signature.end() || row == missing_rows.end()) continue;
    for (ComparisonRow* r : row->second) {
      r->verdict = Verdict::kRenamed;
      r->note = "same analytic signature as new '" + a->second + "'; update the baseline";
    }
  }
  if (baseline->peak_rss_bytes > 0 && run.peak_rss_bytes > 0) {
    Tolerance("(suite)", MetricName(Metric::kPeakRssBytes), baseline->peak_rss_bytes,
              run.peak_rss_bytes, o.rss_tolerance, &c.rows);
  }
}

}  // namespace

bool Comparison::HasRegression() const {
  for (const ComparisonRow& r : rows) {
    if (r.verdict == Verdict::kRegression || r.verdict == Verdict::kMissing ||
        r.verdict == Verdict::kChanged) {
      return true;
    }
  }
  return false;
}

bool Comparison::HasInconclusive() const {
  for (const ComparisonRow& r : rows) {
    if (r.verdict == Verdict::kInconclusive || r.verdict == Verdict::kRenamed) return true;
  }
  return false;
}

int Comparison::ExitCode() const {
  if (HasRegression()) return 1;
  if (no_baseline && !no_baseline_allowed) return 1;
  if (no_baseline || !signature_message.empty()) return kSkipReturnCode;
  if (HasInconclusive()) return kSkipReturnCode;
  return 0;
}

std::string Comparison::Summary() const {
  std::set<std::string> timed;
  for (const ComparisonRow& r : rows) {
    if (r.metric == "latency_ms") timed.insert(r.benchmark);
  }
  std::string out;
  if (signature_judged) {
    out += "judged:     the machine-independent signature of " +
           std::to_string(signature_benchmarks) + " benchmarks, exactly (" + signature_file + ")\n";
  }
  if (latency_judged) {
    out += "judged:     latency and this machine's memory of " + std::to_string(timed.size()) +
           " benchmarks (" + latency_file + ")\n";
    if (!environment_change.empty())
      out += "            environment changed: " + environment_change + "\n";
  }
  if (!signature_message.empty()) out += "not judged: signature: " + signature_message + "\n";
  if (no_baseline && !message.empty()) {
    out += "not judged: latency: " + message +
           (no_baseline_allowed ? " (allowed: --allow-no-baseline)\n"
                                : "\n            a failure until there is one (--allow-no-baseline "
                                  "or NTPB_ALLOW_NO_BASELINE=1 skips it instead)\n");
  }
  return out;
}

nlohmann::json Comparison::ToJson() const {
  nlohmann::json j;
  j["no_baseline"] = no_baseline;
  j["no_baseline_allowed"] = no_baseline_allowed;
  if (!environment_change.empty()) j["environment_change"] = environment_change;
  if (!message.empty()) j["message"] = message;
  j["signature_judged"] = signature_judged;
  j["latency_judged"] = latency_judged;
  if (!signature_file.empty()) j["signature_file"] = signature_file;
  if (!signature_message.empty()) j["signature_message"] = signature_message;
  if (!latency_file.empty()) j["latency_file"] = latency_file;
  j["exit_code"] = ExitCode();
  j["rows"] = nlohmann::json::array();
  for (const ComparisonRow& r : rows) {
    nlohmann::json row = {{"benchmark", r.benchmark},
                          {"metric", r.metric},
                          {"baseline", r.baseline},
                          {"now", r.now},
                          {"verdict", VerdictName(r.verdict)},
                          {"note", r.note}};
    if (std::isfinite(r.change)) row["change"] = r.change;
    if (r.p_value >= 0) row["p_value"] = r.p_value;
    j["rows"].push_back(row);
  }
  return j;
}

}  // namespace ntpb
