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
#include <set>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/latency_calibration.h"
#include "ntpbench/sweep.h"
#include "ntpbench/sweep_results.h"
#include "ntpbench/topology_file.h"
#include "src/bench/machine_class_detect.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"
#include "src/cli/sweep_run.h"
#include "src/common/file_io.h"
#include "src/common/utc_time.h"
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
};

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

int Calibrate(const CalibrateOptions& given) {
  CalibrateOptions o = given;
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
  calibration.created = UtcTimestamp();
  const auto start = std::chrono::steady_clock::now();
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
    if (rc != 0) {
      if (rc == 130) {
        std::fprintf(stderr,
                     "ntpbench calibrate: interrupted; what ran is kept in %s, and the same "
                     "command goes on from there\n",
                     o.work.c_str());
      }
      return rc;
    }
    const Topology topology = ReadTopologyShapes(probe.topology_path);
    AddProbeSamples(ReadSweepResults(s.output), topology, *FindBackend(o.backend), config,
                    &calibration);
    calibration.probes.push_back(probe.name);
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
    if (outcome.drift) {
      const double drift = *outcome.drift;
      calibration.probe_drift[probe.name] = drift;
      calibration.speed_references[probe.name] = {s.file, s.base, outcome.drift_point,
                                                  outcome.drift_point_ms};
      if (std::abs(drift) > LatencyCalibration::kDriftLimit) {
        calibration.problems.insert(
            calibration.problems.begin(),
            probe.name + ": the machine's speed moved while it ran: " + outcome.drift_point +
                " took " + FormatNumber("%.0f", 100 * std::abs(drift)) +
                (drift > 0 ? "% longer" : "% less") +
                " when run again at its end; its samples are kept, but a calibration made "
                "on a quiet machine prices better");
      }
    }
    if (outcome.budget_reached) {
      // First: the problems printed at the end are the first few.
      calibration.problems.insert(
          calibration.problems.begin(),
          probe.name + ": " + std::to_string(outcome.recorded) + " of its " +
              std::to_string(outcome.points) +
              " points measured within --budget (spread over its design); the same command with a "
              "larger budget measures the rest");
    }
  }
  if (calibration.samples.empty()) {
    throw Error(o.output, "", "", "no probe point measured anything: nothing written");
  }
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
