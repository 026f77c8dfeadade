#include "src/cli/baseline_update.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <regex>

#include "ntpbench/error.h"
#include "ntpbench/reliability.h"
#include "src/baseline/noise_threshold.h"
#include "src/baseline/signature.h"
#include "src/common/file_io.h"
#include "src/common/statistics.h"
#include "src/common/utc_time.h"

namespace ntpb::cli {
namespace {

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

}  // namespace

// The machine-independent part, written beside the machine classes' folders: what changed in it
// is printed, since it changes for every machine at once.
void UpdateSignature(const GateOptions& o, const RunResults& run) {
  const std::string path = SignaturePath(o.baseline_dir, o.suite);
  const FileLock lock(path);  // read, merge, write: one updater at a time
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
  const std::vector<std::string> diff = SignatureDiff(old, now);
  // An unchanged signature keeps its file as it was: rewriting it would change only its stamp
  // (and its key order), a diff in every machine's update with nothing in it.
  if (!existed || !diff.empty()) WriteSignature(now, path);
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
  for (const RunResults& s : sessions) {
    RefuseOutputOverInput(path, {s.file}, "--baseline/--baseline-dir");  // the output named
  }
  const FileLock lock(path);  // read, merge, write: one updater at a time
  if (!run.has_machine)
    throw Error(run.file, "", "context", "the run did not record its machine class");
  for (const RunResults& other : sessions) {  // one baseline is one machine class's
    if (!other.has_machine || !(other.machine == run.machine)) {
      throw Error(other.file, "", "context",
                  "this run is of machine class " +
                      (other.has_machine ? other.machine.id() : std::string("(none)")) +
                      ", the first --run of " + run.machine.id() +
                      "; a baseline merges runs of one machine class only");
    }
  }
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
  // Thresholds come from the sessions' noise: taken while other processes ran, they would be the
  // neighbour's noise (thresholds of 65-86% were stored so), and the gate would let through
  // regressions of that size. Refused unless --force. A benchmark whose repetitions spread with
  // nothing else running is its own noise, which is what the thresholds are for: a 0.15 ms mlp
  // on a 2-core Intel Xeon guest spread 7% in one of four sessions, and an update that refused
  // it could never record that machine class's baseline.
  std::vector<std::string> spread;
  if (sessions.size() >= 2) {
    std::vector<std::string> disturbed;
    for (const RunResults& s : sessions) {
      for (const auto& [name, r] : s.benchmarks) {
        if (!std::regex_search(name, filter)) continue;
        const Reliability judged = JudgeBenchmark(r);
        if (judged.reliable) continue;
        (judged.busy ? disturbed : spread)
            .push_back(s.file + ": " + name + ": " + judged.Verdict());
      }
    }
    if (!disturbed.empty() && !o.force) {
      throw Error(path, "", "thresholds",
                  "the sessions that set the noise thresholds were disturbed (" +
                      std::to_string(disturbed.size()) + " benchmark runs; first " +
                      disturbed.front() +
                      "): run the update again on a quiet machine, or --force to store "
                      "thresholds from that noise");
    }
  }
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
  if (!spread.empty()) {
    std::printf(
        "  %zu benchmark runs spread over their repetitions with nothing else running (first "
        "%s): their thresholds come from the sessions' movement\n",
        spread.size(), spread.front().c_str());
  }
  if (!o.baseline_dir.empty()) UpdateSignature(o, run);
  return 0;
}

}  // namespace ntpb::cli
