// `ntpbench sweep SWEEP.json`: every point of a sweep, each as its own `ntpbench run`, recorded
// as it finishes; `--resume` goes on after an interruption, `--dry-run` lists the points.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/resolve.h"
#include "ntpbench/roofline.h"
#include "ntpbench/sweep.h"
#include "ntpbench/sweep_analysis.h"
#include "ntpbench/sweep_report.h"
#include "ntpbench/sweep_results.h"
#include "ntpbench/topology_file.h"
#include "src/bench/machine_class_detect.h"
#include "src/bench/run_settings.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"
#include "src/cli/point_process.h"
#include "src/cli/sweep_run.h"
#include "src/common/benchmark_json.h"
#include "src/common/file_io.h"
#include "src/common/format_number.h"
#include "src/common/statistics.h"

namespace ntpb::cli {
namespace {

// The point's files, and the temporary a killed child left of its run file (<file>.tmp.<pid>).
void RemoveLeftovers(const std::string& json_tmp, const std::string& log) {
  std::remove(json_tmp.c_str());
  std::remove(log.c_str());
  const size_t slash = json_tmp.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : json_tmp.substr(0, slash);
  const std::string prefix =
      (slash == std::string::npos ? json_tmp : json_tmp.substr(slash + 1)) + ".tmp.";
  if (DIR* dir = ::opendir(folder.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      if (std::string(entry->d_name).rfind(prefix, 0) == 0) {
        std::remove((folder + "/" + entry->d_name).c_str());
      }
    }
    ::closedir(dir);
  }
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The points in coarse-to-fine order: every 2^k-th of the design first, then those halfway
// between, ... (a stopped sweep has sampled its whole design, only more sparsely).
std::vector<const SweepPoint*> SpreadOrder(const std::vector<const SweepPoint*>& points) {
  size_t stride = 1;
  while (stride < points.size()) stride *= 2;
  std::vector<const SweepPoint*> order;
  std::vector<bool> taken(points.size(), false);
  for (; stride > 0; stride /= 2) {
    for (size_t i = 0; i < points.size(); i += stride) {
      if (!taken[i]) order.push_back(points[i]);
      taken[i] = true;
    }
  }
  return order;
}

std::string Duration(double seconds) {
  if (seconds < 90) return FormatNumber("%.0f s", seconds);
  if (seconds < 5400) return FormatNumber("%.0f min", seconds / 60);
  return FormatNumber("%.1f h", seconds / 3600);
}

// What a point costs, analytically, and how long its run should take.
struct PointEstimate {
  std::string problem;  // it cannot be built: why
  double flops = 0, bytes = 0;
  double roof_ms = 0;  // the roofline's least time per inference (0: no ceilings measured)
  double seconds = 0;  // the whole point: start, calibration, warm-up, measurement
};

PointEstimate Estimate(const Topology& topology, const SweepPoint& p, const Sweep& sweep,
                       const std::optional<MachinePeaks>& peaks) {
  PointEstimate e;
  try {
    ParamEnv env;
    for (const auto& [name, value] : p.settings) {
      if (topology.params.count(name) || name == "T")
        env[name] = std::strtoll(value.c_str(), nullptr, 10);
    }
    env["N"] = std::strtoll(p.settings.at("batch").c_str(), nullptr, 10);
    const Precision precision = ParsePrecision(p.settings.at("precision"));
    const ResolvedTopology t = Resolve(topology, env);
    const TopologyAnalysis a = Analyze(t, precision);
    e.flops = static_cast<double>(a.total.flops);
    e.bytes = static_cast<double>(a.total.weight_traffic_bytes + a.total.input_bytes +
                                  a.total.output_bytes);
    if (peaks) {
      e.roof_ms =
          Roofline(a.total, precision, *peaks, a.total.weight_bytes + a.peak_activation_bytes).ms;
    }
    // Real layers run well below their roof: 4x it is a typical whole-network latency here.
    const double latency_s = e.roof_ms > 0 ? 4 * e.roof_ms * 1e-3 : e.flops / 20e9;
    // Process start and compile (~1 s), a lower precision's f32 reference and calibration,
    // warm-up, then Google Benchmark's min_time (at least one iteration) per repetition.
    e.seconds = 1.0 + (precision == Precision::kF32 ? 2 : 5) * latency_s +
                sweep.repetitions * std::max(sweep.min_time, latency_s) * 1.2;
  } catch (const Error& err) {
    e.problem = err.message();
  } catch (const std::exception& err) {
    e.problem = err.what();
  }
  return e;
}

// `ntpbench run`'s options from the run-settings table that take a value, "threads" aside
// (a setting of every point): any of them may be a factor or a base setting of a sweep.
std::vector<SweepSetting> TableSettings() {
  std::vector<SweepSetting> out;
  for (const bench::RunSettingFlag& f : bench::RunSettingFlags()) {
    if (!f.run_option || !f.value || std::string(f.name) == "threads") continue;
    out.push_back({f.name, [&f](const std::string& value, const std::string& field) {
                     bench::RunSettings probe;
                     f.apply(value, field, &probe);
                   }});
  }
  // How requests arrive (`run --scenario`), one a point: a decoder's prompt swept under
  // generate gives time to first token and per output token per point.
  out.push_back({"scenario", [](const std::string& value, const std::string& field) {
                   if (value.find(',') != std::string::npos) {
                     throw Error("", "", field, "one scenario a point, got '" + value + "'");
                   }
                   ParseScenarioKind(value, field);
                 }});
  return out;
}

std::vector<std::string> RunArgs(const Sweep& sweep, const Topology& topology, const SweepPoint& p,
                                 const std::string& json_out) {
  std::vector<std::string> args = {"run",
                                   sweep.topology_path,
                                   "--backend",
                                   p.settings.at("backend"),
                                   "--precision",
                                   p.settings.at("precision"),
                                   "--batch",
                                   p.settings.at("batch"),
                                   "--json",
                                   json_out,
                                   "--quiet",
                                   "--benchmark_min_time=" + FormatNumber("%g", sweep.min_time),
                                   "--benchmark_repetitions=" + std::to_string(sweep.repetitions)};
  if (p.settings.at("threads") != "0") {
    args.push_back("--threads");
    args.push_back(p.settings.at("threads"));
  }
  for (const auto& [name, value] : p.settings) {
    if (topology.params.count(name) || name == "T") {
      args.push_back("--set");
      args.push_back(name + "=" + value);
    }
  }
  for (const SweepSetting& s : TableSettings()) {
    const auto it = p.settings.find(s.name);
    if (it == p.settings.end() || it->second.empty()) continue;
    std::string option = "--" + s.name;
    std::replace(option.begin(), option.end(), '_', '-');
    args.push_back(option);
    args.push_back(it->second);
  }
  // A scenario measures for the sweep's min_time, as a point's iterations do (its own default
  // is 10 s a scenario).
  const auto scenario = p.settings.find("scenario");
  if (scenario != p.settings.end() && !scenario->second.empty() &&
      scenario->second != "single-stream") {
    args.push_back("--scenario-seconds");
    args.push_back(FormatNumber("%g", sweep.min_time));
  }
  return args;
}

// The point's run file, checked: it measured its one benchmark (a skipped one says why).
std::string CheckRunFile(const nlohmann::json& run) {
  if (!run.contains("benchmarks") || !run["benchmarks"].is_array() || run["benchmarks"].empty()) {
    return "the run wrote no benchmark";
  }
  for (const nlohmann::json& b : run["benchmarks"]) {
    if (b.value("error_occurred", false)) return b.value("error_message", "error");
    if (b.contains("skipped") && b["skipped"].is_string()) return b["skipped"];
  }
  return "";
}

int DryRun(const Sweep& sweep, const Topology& topology, const std::vector<SweepPoint>& points,
           const std::optional<MachinePeaks>& peaks) {
  std::printf("%s: %zu points (%s) of %s\n", sweep.name.c_str(), points.size(),
              SweepModeName(sweep.mode), sweep.topology_path.c_str());
  std::printf("%4s  %-44s %11s %11s %8s %10s %8s\n", "#", "point", "GFLOP", "MB moved", "FLOP/B",
              "roof ms", "est. s");
  double total = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const PointEstimate e = Estimate(topology, points[i], sweep, peaks);
    std::string id = points[i].id;
    if (id.size() > 44) id = id.substr(0, 41) + "...";
    if (!e.problem.empty()) {
      std::printf("%4zu  %-44s fails: %s\n", i + 1, id.c_str(), e.problem.c_str());
      continue;
    }
    total += e.seconds;
    std::printf("%4zu  %-44s %11.3f %11.2f %8.1f %10s %8.1f\n", i + 1, id.c_str(), e.flops * 1e-9,
                e.bytes * 1e-6, e.bytes > 0 ? e.flops / e.bytes : 0.0,
                e.roof_ms > 0 ? FormatNumber("%.3f", e.roof_ms).c_str() : "-", e.seconds);
  }
  std::printf("estimated time: %s%s\n", Duration(total).c_str(),
              peaks ? " (from the roofline of `ntpbench machine`; real layers run below it)"
                    : " (no `ntpbench machine` ceilings for this machine: a rough guess)");
  return 0;
}

// A file's size and modification time, to tell whether another process wrote it since (all
// zero where it is not there).
std::array<int64_t, 3> FileStamp(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {0, 0, 0};
  return {static_cast<int64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec),
          static_cast<int64_t>(st.st_mtim.tv_nsec)};
}

// What a point's process left: its run file, checked, or why it has none.
SweepPointResult PointResult(const SweepPoint& p, const PointOutcome& r,
                             const std::string& json_tmp) {
  SweepPointResult result;
  result.id = p.id;
  result.settings = p.settings;
  result.varied = p.varied;
  result.base = p.base;
  result.seconds = r.seconds;
  result.reason = r.reason;
  // The run file says best why a benchmark did not run (a precision the backend lacks exits
  // non-zero with the reason in it); the process's log and status only where it wrote none.
  if (Exists(json_tmp)) {
    try {
      result.run = ParseBenchmarkJson(ReadTextFile(json_tmp, std::size_t{1} << 30), json_tmp);
      const std::string problem = CheckRunFile(result.run);
      result.ok = r.ok && problem.empty();
      if (!problem.empty()) result.reason = problem;
    } catch (const std::exception& e) {
      if (r.ok) result.reason = std::string("its run file is unreadable: ") + e.what();
    }
    if (!result.ok) result.run = nullptr;
  } else if (r.ok) {
    result.reason = "the run wrote no run file";
  }
  return result;
}

constexpr double kDriftReferenceMs = 1;

// A point's progress line: its latency and throughput, a generation's TTFT and TPOT, or why
// it failed.
std::string PointProgress(const SweepPointResult& result, const std::string& out) {
  std::string what;
  if (result.ok) {
    const SweepPointSummary s = SummarizePoint(result, out);
    what = s.generate ? FormatNumber("TTFT %.3f ms", s.ttft_ms) + ", " +
                            FormatNumber("TPOT %.3f ms", s.tpot_ms) + ", " +
                            FormatNumber("%.1f tokens/s", s.tokens_per_second)
                      : FormatNumber("%.3f ms", s.latency_ms) + ", " +
                            FormatNumber("%.1f samples/s", s.samples_per_second) + ", " +
                            FormatNumber("%.1f GFLOP/s", s.gflops);
  } else {
    what = "FAILED: " + result.reason;
  }
  return what;
}

// The sweep file with --base's settings over its own.
Sweep ReadSweepWithBase(const std::string& file, const std::vector<std::string>& base) {
  Sweep sweep = ReadSweepFile(file);
  for (const std::string& kv : base) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size()) {
      throw Error("", "", "--base", "expected NAME=VALUE, got '" + kv + "'");
    }
    sweep.base[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return sweep;
}

}  // namespace

double PointLatencyMs(const SweepPointResult& result, const std::string& out) {
  const RunResults run = result.Run(out);
  const BenchmarkResult& b = run.benchmarks.begin()->second;
  std::vector<double> p50s;
  for (size_t i = 0; i < b.repetitions.size(); ++i) {
    p50s.push_back(b.RepetitionMeasurement(i).net.p50_ms);
  }
  return Median(p50s.empty() || p50s.front() <= 0 ? b.real_time_ms : p50s);
}

std::optional<SweepPointResult> RunSweepPointAgain(const std::string& file,
                                                   const std::vector<std::string>& base,
                                                   const std::string& id, double timeout,
                                                   std::string* why) {
  const Sweep sweep = ReadSweepWithBase(file, base);
  const Topology topology = ReadTopologyFile(sweep.topology_path);
  const std::vector<SweepPoint> points = SweepPoints(sweep, topology, TableSettings());
  const auto point =
      std::find_if(points.begin(), points.end(), [&](const SweepPoint& p) { return p.id == id; });
  if (point == points.end()) {
    *why = file + " has no point " + id + " (the file changed since)";
    return std::nullopt;
  }
  // This process's own files: two at once never read each other's run.
  const std::string stem =
      (std::filesystem::temp_directory_path() / ("ntpbench-point." + std::to_string(::getpid())))
          .string();
  const std::string json = stem + ".json", log = stem + ".log";
  std::remove(json.c_str());
  const PointOutcome r = RunPointProcess(RunArgs(sweep, topology, *point, json), log, timeout);
  SweepPointResult result = PointResult(*point, r, json);
  RemoveLeftovers(json, log);
  if (!result.ok) {
    *why = r.interrupted ? "interrupted" : result.reason;
    return std::nullopt;
  }
  return result;
}

std::optional<double> MeasureSweepPoint(const std::string& file,
                                        const std::vector<std::string>& base, const std::string& id,
                                        double timeout, std::string* why) {
  const std::optional<SweepPointResult> result = RunSweepPointAgain(file, base, id, timeout, why);
  if (!result) return std::nullopt;
  return PointLatencyMs(*result, file);
}

int RunSweep(const SweepOptions& o, const std::vector<std::string>& passed, SweepOutcome* outcome) {
  if (!passed.empty()) {
    throw Error("", "", passed.front(),
                "sweep takes no Google Benchmark flags (min_time and repetitions are the "
                "sweep file's)");
  }
  const Sweep sweep = ReadSweepWithBase(o.file, o.base);
  const Topology topology = ReadTopologyFile(sweep.topology_path);
  const std::vector<SweepPoint> points = SweepPoints(sweep, topology, TableSettings());
  for (const SweepPoint& p : points) {
    if (const std::string problem = UnknownBackendProblem(p.settings.at("backend"));
        !problem.empty()) {
      throw Error(o.file, "", "backend", problem);
    }
  }
  std::set<std::string> backends;  // a driver is started only for a sweep that runs on it
  for (const SweepPoint& p : points) backends.insert(p.settings.at("backend"));
  const MachineClass machine = DetectMachineClass(&backends);
  std::optional<MachinePeaks> peaks;
  try {
    RunConfig config;
    const std::string threads = points.front().settings.at("threads");
    config.threads = static_cast<int>(std::strtol(threads.c_str(), nullptr, 10));  // checked
    peaks = ReadMachinePeaks(MachinePeaksPath(machine, EffectiveThreads(config)));
  } catch (const Error&) {
    peaks.reset();  // no ceilings: the estimates say so
  }
  if (o.dry_run) return DryRun(sweep, topology, points, peaks);

  const std::string out = o.output.empty() ? sweep.name + ".results.json" : o.output;
  RefuseOutputOverInput(out, {o.file, sweep.topology_path}, "--output");
  // Its folder is made now, before any point: every point writes its run file beside it.
  MakeParentFolder(out);
  const nlohmann::json sweep_json = sweep.ToJson();
  SweepResults done;
  if (Exists(out)) {
    if (!o.resume) {
      throw Error(out, "", "--output",
                  "already holds results; --resume goes on where it stopped, -o writes elsewhere");
    }
    done = ReadSweepResults(out);
    if (done.sweep != sweep_json) {
      throw Error(out, "", "--resume",
                  "holds another sweep (or this one before its file or --base changed); "
                  "-o writes elsewhere");
    }
  }
  CatchInterrupts();
  std::vector<const SweepPoint*> todo;
  for (const SweepPoint& p : points) {
    if (!done.Find(p.id)) todo.push_back(&p);
  }
  if (o.budget_seconds > 0) todo = SpreadOrder(todo);
  std::vector<double> estimates;
  double estimate_left = 0;
  for (const SweepPoint* p : todo) {
    estimates.push_back(std::max(0.5, Estimate(topology, *p, sweep, peaks).seconds));
    estimate_left += estimates.back();
  }
  std::fprintf(stderr, "ntpbench sweep: %s: %zu points, %zu done before, %zu to run (~%s)\n",
               sweep.name.c_str(), points.size(), points.size() - todo.size(), todo.size(),
               Duration(estimate_left).c_str());
  // This process's own point files: two sweeps recording into one results file (two terminals,
  // a CI retry) each read back what they ran, never the other's half-written run file.
  const std::string own = ".point." + std::to_string(::getpid());
  const std::string json_tmp = out + own + ".json";
  const std::string log = out + own + ".log";
  double spent = 0, estimated_done = 0;
  size_t failed = 0;
  std::array<int64_t, 3> as_written = FileStamp(out);  // the results file as this sweep left it
  size_t ran = 0;
  bool budget_reached = false;
  // measure_drift: the reference point and its time: the first of kDriftReferenceMs or more (a
  // run of microseconds moves by tens of percent between two processes on a quiet machine), else
  // the slowest.
  const SweepPoint* reference = nullptr;
  double reference_ms = 0;
  for (size_t i = 0; i < todo.size(); ++i) {
    const SweepPoint& p = *todo[i];
    if (o.budget_seconds > 0 && ran > 0 && spent + spent / ran > o.budget_seconds) {
      std::fprintf(stderr,
                   "ntpbench sweep: %s: budget of %s spent after %zu of the %zu points left; "
                   "running again goes on with the rest\n",
                   sweep.name.c_str(), Duration(o.budget_seconds).c_str(), ran, todo.size());
      budget_reached = true;
      break;
    }
    // Another sweep into the same file may have recorded this point meanwhile; the file is read
    // again only when someone else wrote it.
    const std::array<int64_t, 3> now = FileStamp(out);
    if (now != as_written && Exists(out) && ReadSweepResults(out).Find(p.id)) {
      std::fprintf(stderr, "[%zu/%zu] %s: recorded by another sweep into %s meanwhile\n",
                   points.size() - todo.size() + i + 1, points.size(), p.id.c_str(), out.c_str());
      estimate_left -= estimates[i];
      continue;
    }
    std::remove(json_tmp.c_str());
    const PointOutcome r =
        RunPointProcess(RunArgs(sweep, topology, p, json_tmp), log, o.point_timeout);
    if (r.interrupted) {
      std::string again = "ntpbench sweep " + o.file + " --resume";
      for (const std::string& kv : o.base) again += " --base " + kv;
      if (!o.output.empty()) again += " -o " + o.output;
      std::fprintf(stderr,
                   "ntpbench sweep: interrupted during %s; %zu of %zu points are in %s. `%s` "
                   "goes on from there\n",
                   p.id.c_str(), points.size() - todo.size() + i, points.size(), out.c_str(),
                   again.c_str());
      RemoveLeftovers(json_tmp, log);
      return 130;
    }
    const SweepPointResult result = PointResult(p, r, json_tmp);
    RecordSweepPoint(out, sweep_json, machine.human(), result);
    as_written = FileStamp(out);
    std::remove(json_tmp.c_str());
    if (result.ok) std::remove(log.c_str());
    failed += result.ok ? 0 : 1;
    if (result.ok && o.measure_drift && reference_ms < kDriftReferenceMs) {
      const double ms = PointLatencyMs(result, out);
      if (ms > reference_ms) {
        reference = &p;
        reference_ms = ms;
      }
    }
    spent += r.seconds;
    ++ran;
    estimated_done += estimates[i];
    estimate_left -= estimates[i];
    // The estimates scaled by how far off they were so far.
    double eta = std::max(0.0, estimate_left * (estimated_done > 0 ? spent / estimated_done : 1.0));
    if (o.budget_seconds > 0) eta = std::min(eta, std::max(0.0, o.budget_seconds - spent));
    const std::string what = PointProgress(result, out);
    std::fprintf(stderr, "[%zu/%zu] %s: %s (%.1f s); ETA %s\n", points.size() - todo.size() + i + 1,
                 points.size(), p.id.c_str(), what.c_str(), r.seconds, Duration(eta).c_str());
  }
  std::optional<double> drift;
  if (o.measure_drift && reference && ran > 1) {
    std::remove(json_tmp.c_str());
    const PointOutcome again =
        RunPointProcess(RunArgs(sweep, topology, *reference, json_tmp), log, o.point_timeout);
    const SweepPointResult second = PointResult(*reference, again, json_tmp);
    RemoveLeftovers(json_tmp, log);
    if (again.interrupted) return 130;
    if (second.ok) {
      const double again_ms = PointLatencyMs(second, out);
      drift = again_ms / reference_ms - 1;
      reference_ms = std::sqrt(reference_ms * again_ms);
      std::fprintf(stderr,
                   "ntpbench sweep: %s: %s run again at the end: %+.1f%% (the machine's own "
                   "drift over the sweep)\n",
                   sweep.name.c_str(), reference->id.c_str(), 100 * *drift);
    }
  }
  const SweepResults results = ReadSweepResults(out);
  if (outcome) {
    *outcome = {points.size(), results.points.size(),          budget_reached,
                drift,         reference ? reference->id : "", drift ? reference_ms : 0};
  }
  if (!o.print_table) return 0;
  std::fputs(RenderSweepTable(results).c_str(), stdout);
  std::fprintf(stderr,
               "ntpbench sweep: %zu points in %s (%zu failed); `ntpbench report %s -o "
               "sweep.html` plots them\n",
               results.points.size(), out.c_str(), failed, out.c_str());
  return 0;
}

Command AddSweepCommand(CLI::App* app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* c = app->add_subcommand(
      "sweep",
      "one factor at a time (BackboneAnalysis) or a grid: runs each point of a sweep file as its "
      "own `ntpbench run`, records it atomically as it finishes, and prints the per-factor "
      "table; `ntpbench report RESULTS.json` plots throughput and latency per factor and "
      "throughput against operation density with the roofline");
  c->add_option("SWEEP", o->file, "the sweep: .json or .xml (sweeps/backbone_analysis.json)")
      ->required()
      ->type_name("FILE");
  c->add_option("-o,--output", o->output, "the results file (default <sweep name>.results.json)")
      ->type_name("FILE");
  c->add_flag("--resume", o->resume,
              "go on with the points the results file does not hold yet (after an interruption)");
  c->add_flag("--dry-run", o->dry_run,
              "list the points with their analytic FLOPs, bytes and an estimated time; run "
              "nothing");
  c->add_option("--base", o->base,
                "change a base setting: backend=onednn, precision=bf16, a param (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("NAME=VALUE");
  c->add_option("--point-timeout", o->point_timeout,
                "seconds after which a point is stopped and recorded as failed (default 1800)")
      ->check(NumberBetween(1, 1e6, "seconds"))
      ->type_name("S");
  return {c, {}, [o](const std::vector<std::string>& passed) { return RunSweep(*o, passed); }};
}

}  // namespace ntpb::cli
