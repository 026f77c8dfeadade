// `ntpbench calibrate`: measures this machine's step costs for a backend, precision and thread
// count over the probe sweeps (calibration/*.json: designed samples of the ops' parameter spaces)
// and writes one portable latency calibration (latency_calibration.h) for `ntpbench predict`.
// The probes run as sweeps do, each point its own process, recorded as it finishes in a work
// folder beside the output: an interrupted calibration goes on from there when run again.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/latency_calibration.h"
#include "ntpbench/machine.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/sweep.h"
#include "ntpbench/sweep_results.h"
#include "ntpbench/topology_file.h"
#include "src/bench/machine_class_detect.h"
#include "src/bench/run_settings.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"
#include "src/cli/point_process.h"
#include "src/cli/sweep_run.h"
#include "src/common/file_io.h"
#include "src/common/utc_time.h"
#include "src/predict/calibration_outliers.h"
#include "src/predict/probe_samples.h"
#include "src/report/text_table.h"

namespace ntpb::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> probes;  // sweep files; default: calibration/*.json here
  std::string backend = "onednn";
  std::string precision = "f32";
  int threads = 0;
  std::string output;  // default calibration-<backend>-<precision>-<threads>t.json
  std::string work;    // default <output>.d
  double point_timeout = 600;
  double budget = 0;  // seconds for all probes; 0: every point of every probe
  int passes = 2;     // over every probe; each sample keeps its step's fastest pass
};

// A point whose steps sum to 1.5x what the other points price them at is run again.
constexpr double kSlowPoint = 1.5;
constexpr size_t kMostPointsAgain = 5;  // or a twentieth of the points, whichever is more

std::vector<std::string> DefaultProbes() {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("calibration", error)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() == ".json" && path.find("heldout") == std::string::npos) {
      found.push_back(path);
    }
  }
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    throw Error("", "", "PROBES",
                "none given, and ./calibration/ holds no probe sweep (run from the repository, "
                "or name the sweep files)");
  }
  return found;
}

// Samples per family, with the spread of their times: what the file can price.
std::string SummaryTable(const LatencyCalibration& c) {
  struct Row {
    int samples = 0;
    double min_ms = 1e300, max_ms = 0;
  };
  std::map<std::string, Row> rows;
  for (const CalibrationSample& s : c.samples) {
    Row& r = rows[s.features.family];
    ++r.samples;
    r.min_ms = std::min(r.min_ms, s.ms);
    r.max_ms = std::max(r.max_ms, s.ms);
  }
  report::TextTable table({"family", "samples", "fastest ms", "slowest ms"});
  for (const auto& [family, r] : rows) {
    table.Add({family, std::to_string(r.samples), FormatNumber("%.4f", r.min_ms),
               FormatNumber("%.3f", r.max_ms)});
  }
  return table.Render();
}

// A probe as this calibration ran it: its sweep settings and what the sweep left.
struct ProbeRun {
  std::string name;
  std::string topology;  // the probe's topology file
  SweepOptions sweep;
  SweepOutcome outcome;
};

// A second look at the points that ran far slower than the rest of the calibration prices their
// steps (SlowProbePoints): each runs once more, and where the second run is faster its samples
// are scaled to it (a VM's slow second is not the steps' cost; a point that is slow again is
// kept as measured). Runs already made are kept in <work>/<probe>.again.json, by the first run's
// time, so that a calibration run again over finished probes reuses them; none runs once
// --budget is spent. Returns, per point (SamplePoint), the factor its samples were scaled by.
std::map<std::string, double> RunSlowPointsAgain(const CalibrateOptions& o,
                                                 const std::vector<ProbeRun>& ran,
                                                 std::chrono::steady_clock::time_point start,
                                                 LatencyCalibration* calibration) {
  std::map<std::string, double> scaled;
  std::map<std::string, SweepResults> results_by_probe;
  const std::vector<SlowProbePoint> slow = SlowProbePoints(*calibration, kSlowPoint);
  const size_t most = std::max<size_t>(kMostPointsAgain, calibration->points / 20);
  for (size_t i = 0; i < slow.size() && i < most; ++i) {
    const SlowProbePoint& point = slow[i];
    const size_t space = point.point.find(' ');
    if (space == std::string::npos) continue;
    const std::string name = point.point.substr(0, space), id = point.point.substr(space + 1);
    const auto probe =
        std::find_if(ran.begin(), ran.end(), [&](const ProbeRun& p) { return p.name == name; });
    if (probe == ran.end()) continue;
    // Read once per probe: a results file holds every point's run (megabytes).
    auto read = results_by_probe.find(name);
    if (read == results_by_probe.end()) {
      read = results_by_probe.emplace(name, ReadSweepResults(probe->sweep.output)).first;
    }
    const SweepResults& results = read->second;
    const SweepPointResult* first = results.Find(id);
    if (!first || !first->ok) continue;
    const double first_ms = PointLatencyMs(*first, results.file);
    const std::string again_file =
        (std::filesystem::path(o.work) / (name + ".again.json")).string();
    nlohmann::json again = nlohmann::json::object();
    if (std::filesystem::exists(again_file)) {
      again = nlohmann::json::parse(ReadTextFile(again_file, 1 << 20), nullptr, false);
      if (!again.is_object()) again = nlohmann::json::object();
    }
    double again_ms = 0;
    const nlohmann::json& kept = again.value(id, nlohmann::json());
    if (kept.is_object() && kept.value("first_ms", nlohmann::json()).is_number() &&
        kept["first_ms"].get<double>() == first_ms &&
        kept.value("again_ms", nlohmann::json()).is_number() &&
        kept["again_ms"].get<double>() > 0) {
      again_ms = kept["again_ms"].get<double>();
    } else if (o.budget > 0 &&
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
                   o.budget) {
      continue;  // --budget is spent: the same command with a larger one looks again
    } else {
      std::string why;
      const std::optional<double> ms =
          MeasureSweepPoint(probe->sweep.file, probe->sweep.base, id, o.point_timeout, &why);
      if (!ms) {
        std::fprintf(stderr, "ntpbench calibrate: %s could not run again: %s\n",
                     point.point.c_str(), why.c_str());
        continue;
      }
      again_ms = *ms;
      again[id] = {{"first_ms", first_ms}, {"again_ms", again_ms}};
      WriteFileAtomically(again_file, again.dump() + "\n");
    }
    const bool faster = again_ms < first_ms;
    std::fprintf(stderr,
                 "ntpbench calibrate: %s ran %.1fx what the rest of the calibration prices its "
                 "steps at; run again: %.3f ms against %.3f%s\n",
                 point.point.c_str(), point.Ratio(), again_ms, first_ms,
                 faster ? " (the faster run is kept)" : " (kept as measured)");
    if (!faster) continue;
    ScalePointSamples(calibration, point.point, again_ms / first_ms);
    scaled[point.point] = again_ms / first_ms;
    calibration->problems.push_back(point.point + ": ran " + FormatNumber("%.1f", point.Ratio()) +
                                    "x what the other points price its steps at, and " +
                                    FormatNumber("%.3f", again_ms) + " ms against " +
                                    FormatNumber("%.3f", first_ms) +
                                    " when run again: its samples are scaled to the second run");
  }
  return scaled;
}

// The probe's drift (SweepOutcome::drift) into the calibration, against its reference point's
// first run as the second look left it (`first_run_scales`), and its problem line.
void AddDrift(ProbeRun& p, const std::map<std::string, double>& first_run_scales,
              LatencyCalibration* calibration) {
  SweepOutcome& outcome = p.outcome;
  if (!outcome.drift) return;
  ReferenceDrift reference{*outcome.drift, outcome.drift_point_ms};
  if (auto it = first_run_scales.find(p.name + " " + outcome.drift_point);
      it != first_run_scales.end()) {
    reference = DriftWithFirstRunScaled(reference, it->second);
  }
  const double drift = reference.drift;
  calibration->probe_drift[p.name] = drift;
  calibration->speed_references[p.name] = {p.sweep.file, p.sweep.base, outcome.drift_point,
                                           reference.ms};
  if (std::abs(drift) > LatencyCalibration::kDriftLimit) {
    calibration->problems.insert(
        calibration->problems.begin(),
        p.name + ": the machine's speed moved while it ran: " + outcome.drift_point + " took " +
            FormatNumber("%.0f", 100 * std::abs(drift)) + (drift > 0 ? "% longer" : "% less") +
            " when run again at its end; its samples are kept, but a calibration made on a "
            "quiet machine prices better");
  }
}

// A probe's sweep that did not finish (`rc`): says where what ran is kept when interrupted.
int Interrupted(int rc, const std::string& work) {
  if (rc == 130) {
    std::fprintf(stderr,
                 "ntpbench calibrate: interrupted; what ran is kept in %s, and the same command "
                 "goes on from there\n",
                 work.c_str());
  }
  return rc;
}

// Passes 2 and on (CalibrateOptions::passes): every probe's points again, each pass into results
// of its own in the work folder (resumable as the first), each of `calibration`'s samples kept at
// its faster time (KeepFasterSamples). Returns a probe's sweep's status where one did not finish.
int RunLaterPasses(const CalibrateOptions& o, const std::vector<ProbeRun>& ran,
                   const RunConfig& config, LatencyCalibration* calibration) {
  for (int pass = 2; pass <= o.passes; ++pass) {
    LatencyCalibration later;
    later.vector_lanes = calibration->vector_lanes;
    for (const ProbeRun& p : ran) {
      std::fprintf(stderr, "ntpbench calibrate: pass %d of %d: %s\n", pass, o.passes,
                   p.name.c_str());
      SweepOptions s = p.sweep;
      s.output = (std::filesystem::path(o.work) /
                  (p.name + ".pass" + std::to_string(pass) + ".results.json"))
                     .string();
      s.resume = std::filesystem::exists(s.output);
      s.measure_drift = false;
      s.budget_seconds = o.budget > 0 ? p.sweep.budget_seconds : 0;
      SweepOutcome outcome;
      if (const int rc = RunSweep(s, {}, &outcome); rc != 0) return rc;
      AddProbeSamples(ReadSweepResults(s.output), ReadTopologyShapes(p.topology),
                      *FindBackend(o.backend), config, &later);
    }
    // The nearest placement of the cores either pass saw (0 where neither measured one).
    const double a = NearestCorePlacementNs(*calibration), b = NearestCorePlacementNs(later);
    const double nearest = a > 0 && b > 0 ? std::min(a, b) : std::max(a, b);
    const int better = KeepFasterSamples(later, calibration, nearest);
    std::fprintf(stderr,
                 "ntpbench calibrate: pass %d: %d of %zu samples ran faster than before, or with "
                 "the cores placed nearer\n",
                 pass, better, calibration->samples.size());
  }
  return 0;
}

// The points whose samples were all measured while the cores were placed farther apart than the
// calibration's nearest placement (a VM's host moves its virtual CPUs; a small network's steps
// then take up to half again as long): each runs again, up to kPlacementRounds times, and each
// of its samples keeps the run placed as the nearest, else the faster (KeepFasterSamples), with
// that run's placement. None runs once --budget is spent. Returns the status of an interrupted
// run (130), else 0.
constexpr int kPlacementRounds = 2;
int RunPointsPlacedApartAgain(const CalibrateOptions& o, const std::vector<ProbeRun>& ran,
                              const RunConfig& config, std::chrono::steady_clock::time_point start,
                              LatencyCalibration* calibration) {
  const double nearest = NearestCorePlacementNs(*calibration);
  if (!(nearest > 0)) return 0;
  for (int round = 1; round <= kPlacementRounds; ++round) {
    const std::vector<std::string> apart = PointsPlacedApart(*calibration, nearest);
    if (apart.empty()) return 0;
    std::fprintf(stderr,
                 "ntpbench calibrate: %zu probe points ran with the cores placed farther apart "
                 "than %.0f ns (core to core); running them again (%d of %d)\n",
                 apart.size(), nearest, round, kPlacementRounds);
    LatencyCalibration again;
    again.vector_lanes = calibration->vector_lanes;
    for (size_t i = 0; i < apart.size(); ++i) {
      if (o.budget > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
              o.budget * o.passes) {
        break;
      }
      const size_t space = apart[i].find(' ');
      if (space == std::string::npos) continue;
      const std::string name = apart[i].substr(0, space), id = apart[i].substr(space + 1);
      const auto probe =
          std::find_if(ran.begin(), ran.end(), [&](const ProbeRun& p) { return p.name == name; });
      if (probe == ran.end()) continue;
      std::string why;
      std::optional<SweepPointResult> result =
          RunSweepPointAgain(probe->sweep.file, probe->sweep.base, id, o.point_timeout, &why);
      if (cli::Interrupted()) return 130;
      if (!result) {
        std::fprintf(stderr, "ntpbench calibrate: %s could not run again: %s\n", apart[i].c_str(),
                     why.c_str());
        continue;
      }
      const RunResults run = result->Run(probe->sweep.output);
      std::fprintf(stderr, "[%zu/%zu] %s: cores %.0f ns apart\n", i + 1, apart.size(),
                   apart[i].c_str(), run.benchmarks.begin()->second.CoreToCoreNs());
      SweepResults one;
      one.file = probe->sweep.output;
      one.sweep = {{"name", name}};
      one.points = {std::move(*result)};
      AddProbeSamples(one, ReadTopologyShapes(probe->topology), *FindBackend(o.backend), config,
                      &again);
    }
    KeepFasterSamples(again, calibration, nearest);
  }
  if (const size_t left = PointsPlacedApart(*calibration, nearest).size(); left > 0) {
    calibration->problems.push_back(
        std::to_string(left) + " probe points ran only with the cores placed farther apart than " +
        FormatNumber("%.0f", nearest) +
        " ns (core to core): their steps are priced slower than the nearest placement runs them");
  }
  return 0;
}

int Calibrate(const CalibrateOptions& given) {
  CalibrateOptions o = given;
  // The first pass spends its share of --budget as a whole calibration did; each later pass
  // runs what the first ran.
  o.budget = given.budget / given.passes;
  if (o.probes.empty()) o.probes = DefaultProbes();
  if (const std::string problem = UnknownBackendProblem(o.backend); !problem.empty()) {
    throw Error("", "", "--backend", problem);
  }
  const Precision precision = ParsePrecision(o.precision, "--precision");
  RunConfig config;
  config.threads = o.threads;
  config.precision = precision;
  const int threads = EffectiveThreads(config);
  if (o.output.empty()) {
    o.output =
        "calibration-" + o.backend + "-" + o.precision + "-" + std::to_string(threads) + "t.json";
  }
  if (o.work.empty()) o.work = o.output + ".d";
  RefuseOutputOverInput(o.output, o.probes, "--output");
  std::error_code error;
  std::filesystem::create_directories(o.work, error);
  if (error) throw Error(o.work, "", "--work", "cannot make the folder: " + error.message());

  const std::set<std::string> backends = {o.backend};
  LatencyCalibration calibration;
  calibration.machine = DetectMachineClass(&backends);
  calibration.backend = o.backend;
  calibration.precision = PrecisionName(precision);
  calibration.threads = threads;
  calibration.vector_lanes = FindBackend(o.backend)->VectorLanes();
  if (calibration.vector_lanes == 0) calibration.vector_lanes = VectorLanes(calibration.machine);
  calibration.cache_bytes = ThisMachine().CacheBytesFor(threads);
  // The probes' runs plan with the last-level cache `ntpbench machine` saw by reads (a VM may
  // report its host's) and its f32 ridge; a prediction from this calibration plans as they did.
  if (const std::optional<MachinePeaks> peaks = bench::MeasuredPeaks(threads)) {
    if (peaks->cache_bytes > 0 && !calibration.cache_bytes.empty()) {
      calibration.cache_bytes.back() = std::min(calibration.cache_bytes.back(), peaks->cache_bytes);
    }
    calibration.f32_ridge_flops_per_byte = peaks->RidgeFlopsPerByte("f32");
  }
  calibration.backend_choices = FindBackend(o.backend)->PlanChoices(config);
  calibration.created = UtcTimestamp();
  const auto start = std::chrono::steady_clock::now();
  std::vector<ProbeRun> ran;
  for (size_t i = 0; i < o.probes.size(); ++i) {
    const Sweep probe = ReadSweepFile(o.probes[i]);
    std::fprintf(stderr, "ntpbench calibrate: probe %zu of %zu: %s\n", i + 1, o.probes.size(),
                 probe.name.c_str());
    SweepOptions s;
    s.file = o.probes[i];
    s.output = (std::filesystem::path(o.work) / (probe.name + ".results.json")).string();
    s.base = {"backend=" + o.backend, "precision=" + calibration.precision,
              "threads=" + std::to_string(o.threads)};
    s.resume = std::filesystem::exists(s.output);
    s.point_timeout = o.point_timeout;
    s.print_table = false;
    s.measure_drift = true;
    if (o.budget > 0) {
      // What is left, shared by the probes left: one that finishes early leaves its time to the
      // next.
      const double spent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      s.budget_seconds =
          std::max(1.0, (o.budget - spent) / static_cast<double>(o.probes.size() - i));
    }
    int rc = 0;
    SweepOutcome outcome;
    try {
      rc = RunSweep(s, {}, &outcome);
    } catch (const Error& e) {
      if (e.field() != "--resume") throw;
      throw Error(s.output, "", "--work",
                  "holds the runs of another version of the probe " + probe.name +
                      " (or of other settings): remove it to measure again, or give --work "
                      "another folder");
    }
    if (rc != 0) return Interrupted(rc, o.work);
    // Kept beside the probe's results: a calibration run again over a finished probe (to go on
    // after an interrupt) measures no drift for it, and keeps what the first one measured.
    const std::string drift_file =
        (std::filesystem::path(o.work) / (probe.name + ".drift.json")).string();
    if (outcome.drift) {
      WriteFileAtomically(drift_file, nlohmann::json({{"drift", *outcome.drift},
                                                      {"point", outcome.drift_point},
                                                      {"ms", outcome.drift_point_ms}})
                                              .dump() +
                                          "\n");
    } else if (std::filesystem::exists(drift_file)) {
      const nlohmann::json kept =
          nlohmann::json::parse(ReadTextFile(drift_file, 1 << 16), nullptr, false);
      if (kept.is_object() && kept.value("drift", nlohmann::json()).is_number() &&
          kept.value("point", nlohmann::json()).is_string() &&
          kept.value("ms", nlohmann::json()).is_number() && kept["ms"].get<double>() > 0) {
        outcome.drift = kept["drift"].get<double>();
        outcome.drift_point = kept["point"].get<std::string>();
        outcome.drift_point_ms = kept["ms"].get<double>();
      }
    }
    ran.push_back({probe.name, probe.topology_path, s, outcome});
  }
  // Each probe had its share of what was left when it began; the first ones, whose points are
  // the slowest (convolutions), stop at their share while later ones leave time unspent. What is
  // left goes to the probes cut short, in turn (their drift stays the first run's), less a
  // twentieth kept for the second look at slow points.
  for (ProbeRun& p : ran) {
    if (o.budget <= 0 || !p.outcome.budget_reached) continue;
    const double left =
        0.95 * o.budget -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left < 1) break;
    std::fprintf(stderr, "ntpbench calibrate: %s again with the budget left (%.0f s)\n",
                 p.name.c_str(), left);
    SweepOptions more = p.sweep;
    more.resume = true;
    more.measure_drift = false;
    more.budget_seconds = left;
    SweepOutcome outcome;
    if (const int rc = RunSweep(more, {}, &outcome); rc != 0) return Interrupted(rc, o.work);
    p.outcome.recorded = outcome.recorded;
    p.outcome.budget_reached = outcome.budget_reached;
  }
  std::vector<std::string> budget_lines;  // probes measured in part
  for (const ProbeRun& p : ran) {
    AddProbeSamples(ReadSweepResults(p.sweep.output), ReadTopologyShapes(p.topology),
                    *FindBackend(o.backend), config, &calibration);
    calibration.probes.push_back(p.name);
    if (p.outcome.budget_reached) {
      budget_lines.push_back(
          p.name + ": " + std::to_string(p.outcome.recorded) + " of its " +
          std::to_string(p.outcome.points) +
          " points measured within --budget (spread over its design); the same command with a "
          "larger budget measures the rest");
    }
  }
  if (calibration.samples.empty()) {
    throw Error(o.output, "", "", "no probe point measured anything: nothing written");
  }
  const std::map<std::string, double> first_run_scales =
      RunSlowPointsAgain(o, ran, start, &calibration);
  for (ProbeRun& p : ran) AddDrift(p, first_run_scales, &calibration);
  if (const int rc = RunLaterPasses(o, ran, config, &calibration); rc != 0) {
    return Interrupted(rc, o.work);
  }
  if (const int rc = RunPointsPlacedApartAgain(o, ran, config, start, &calibration); rc != 0) {
    return Interrupted(rc, o.work);
  }
  calibration.passes = o.passes;
  calibration.core_to_core_ns = CalibratedCorePlacementNs(calibration);
  // First: the problems printed at the end are the first few.
  calibration.problems.insert(calibration.problems.begin(), budget_lines.begin(),
                              budget_lines.end());
  WriteLatencyCalibration(calibration, o.output);
  std::fputs(SummaryTable(calibration).c_str(), stdout);
  std::fprintf(stderr,
               "ntpbench calibrate: %zu samples from %d probe runs (%d failed, %d unreliable) "
               "in %s; `ntpbench predict TOPOLOGY --calibration %s` prices a topology with it\n",
               calibration.samples.size(), calibration.points, calibration.failed_points,
               calibration.unreliable_points, o.output.c_str(), o.output.c_str());
  for (size_t i = 0; i < calibration.problems.size() && i < 5; ++i) {
    std::fprintf(stderr, "  %s\n", calibration.problems[i].c_str());
  }
  return 0;
}

}  // namespace

Command AddCalibrateCommand(CLI::App* app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* c = app->add_subcommand(
      "calibrate",
      "measure this machine's cost of each kind of step (the probe sweeps in calibration/: "
      "convolutions by kind, kernel, channels and size; dense layers; pooling, normalization, "
      "elementwise, attention, recurrent layers) for one backend, precision and thread count, "
      "into a latency calibration file that `ntpbench predict` prices topologies with, here or "
      "on any other machine");
  c->add_option("PROBES", o->probes,
                "probe sweep files (default: calibration/*.json in this folder)")
      ->type_name("SWEEP");
  c->add_option("--backend", o->backend, "the backend to calibrate (default onednn)")
      ->type_name("NAME");
  c->add_option("--precision", o->precision, "f32, bf16, f16, i8, w8 or w4 (default f32)")
      ->type_name("P");
  c->add_option("--threads", o->threads, "threads per run (default 0: one per core)")
      ->check(IntegerAtLeast(0, 4096))
      ->type_name("N");
  c->add_option("-o,--output", o->output,
                "the calibration file (default calibration-<backend>-<precision>-<N>t.json)")
      ->type_name("FILE");
  c->add_option("--work", o->work,
                "where the probe runs are kept as they finish (default <output>.d); running "
                "again goes on from there")
      ->type_name("DIR");
  c->add_option("--budget", o->budget,
                "seconds for the whole calibration (default: no limit): each probe gets its "
                "share and runs its points coarse to fine, stopping when the next would not "
                "fit; the calibration says how much of each probe it holds, and running again "
                "measures the rest")
      ->check(NumberBetween(0, 1e7, "a number of seconds above 0"))
      ->type_name("S");
  c->add_option("--passes", o->passes,
                "passes over every probe point, minutes apart (default 2); each step keeps its "
                "fastest pass, the machine's own speed where its neighbours slow it at times "
                "(a VM's small steps moved by a third between passes); N passes take N times "
                "as long, or share --budget")
      ->check(IntegerAtLeast(1, 10))
      ->type_name("N");
  c->add_option("--point-timeout", o->point_timeout,
                "seconds after which a probe run is stopped and recorded as failed (default 600)")
      ->check(NumberBetween(1, 1e6, "seconds"))
      ->type_name("S");
  return {c, {}, [o](const std::vector<std::string>& passed) {
            if (!passed.empty()) {
              throw Error("", "", passed.front(), "calibrate takes no Google Benchmark flags");
            }
            return Calibrate(*o);
          }};
}

}  // namespace ntpb::cli
