// `ntpbench run`: registers the topology's families, runs them through Google Benchmark and
// prints the per-layer breakdown of each result.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "ntpbench/counters.h"
#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/ntpbench.h"
#include "ntpbench/precision_report.h"
#include "ntpbench/reliability.h"
#include "ntpbench/report.h"
#include "ntpbench/reporting.h"
#include "ntpbench/results.h"
#include "ntpbench/roofline.h"
#include "ntpbench/scenario.h"
#include "ntpbench/scenario_report.h"
#include "ntpbench/tensor_file.h"
#include "ntpbench/topology_file.h"
#include "src/bench/benchmark_config.h"
#include "src/bench/benchmark_flags.h"
#include "src/bench/json_reporter.h"
#include "src/bench/machine_class_detect.h"
#include "src/bench/prepared_run.h"
#include "src/bench/run_settings.h"
#include "src/cli/audio_file.h"
#include "src/cli/commands.h"
#include "src/cli/output_check.h"
#include "src/cli/run_summaries.h"
#include "src/cli/topology_options.h"
#include "src/cli/trace_file.h"
#include "src/common/benchmark_json.h"
#include "src/common/file_io.h"
#include "src/common/nearest_name.h"
#include "src/common/run_key.h"

namespace ntpb::cli {
namespace {

// Prints like ntpbench's console reporter and keeps the runs for the tables.
class CapturingReporter : public ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;
  bool quiet = false;  // --quiet: no context block
  bool ReportContext(const Context& context) override {
    return quiet || ConsoleReporter::ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) captured.push_back(r);
  }
  std::vector<Run> captured;
};

// Keeps the runs that stand for a result: the median when there are repetitions.
std::vector<benchmark::BenchmarkReporter::Run> Representative(
    const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  std::vector<benchmark::BenchmarkReporter::Run> out;
  for (const auto& r : runs) {
    if (r.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate) {
      if (r.aggregate_name == "median") out.push_back(r);
    } else if (r.repetitions <= 1) {
      out.push_back(r);
    }
  }
  return out;
}

// Whether the machine let `name` measure: each repetition's interference and their spread
// (reliability.h), from the runs Google Benchmark reported.
Reliability JudgeCaptured(const std::vector<benchmark::BenchmarkReporter::Run>& runs,
                          const std::string& name) {
  BenchmarkResult result;
  for (const auto& r : runs) {
    if (r.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration || r.error_occurred ||
        r.run_name.function_name + "/" + r.run_name.args != name) {
      continue;
    }
    result.real_time_ms.push_back(r.GetAdjustedRealTime());  // the spread is unit-free
    std::map<std::string, double>& counters = result.repetitions.emplace_back();
    for (const auto& [k, c] : r.counters) counters[k] = c.value;
  }
  return JudgeBenchmark(result);
}

// --input NAME=FILE: the recording, checked against the input it feeds (one batch item's samples,
// the sample rate of the mfcc layers that read it); a shorter one is zero-padded, and said.
bool IsTensorFile(const std::string& path) {
  const size_t dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  return ext == ".pb" || ext == ".npy";
}

// A tensor file given for a graph input (`shape` at batch 1): one batch item (with or without
// its batch dim), repeated for every item, or a whole batch of the one batch size run.
std::vector<float> TensorInput(const std::string& path, const std::string& name, const Shape& shape,
                               const std::vector<int64_t>& batches) {
  TensorValues t = ReadTensorFile(path);
  // A NaN or an infinity would run (and be timed) as if it were data, every output NaN.
  const auto bad =
      std::find_if(t.values.begin(), t.values.end(), [](float v) { return !std::isfinite(v); });
  if (bad != t.values.end()) {
    throw Error(path, "", "--input",
                "value " + std::to_string(bad - t.values.begin()) + " of input '" + name + "' is " +
                    (std::isnan(*bad) ? "NaN" : "infinite") + ": an input holds finite numbers");
  }
  const Shape item(shape.begin() + (shape.empty() ? 0 : 1), shape.end());
  Shape batch_of = t.dims;
  if (!batch_of.empty()) batch_of[0] = 1;
  // The input's own shape (a model of fixed sizes whose batch is not the first axis: an RNN's
  // [T, N, C]), one batch item, or a batch of one.
  if (t.dims == shape || t.dims == item || (batch_of == shape && t.dims[0] == 1)) {
    return std::move(t.values);
  }
  if (batch_of == shape && batches.size() == 1 && batches[0] == t.dims[0]) {
    return std::move(t.values);
  }
  // The whole batch of an input whose batch is another axis (an RNN's initial state
  // [layers, N, H]): the one axis of size 1 at batch 1 that holds the batch size.
  if (batches.size() == 1 && t.dims.size() == shape.size()) {
    int batch_axes = 0;
    bool others_match = true;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (t.dims[i] == shape[i]) continue;
      if (shape[i] == 1 && t.dims[i] == batches[0]) {
        ++batch_axes;
      } else {
        others_match = false;
      }
    }
    if (others_match && batch_axes == 1) return std::move(t.values);
  }
  std::string batch_list;
  for (int64_t b : batches) batch_list += (batch_list.empty() ? "" : ",") + std::to_string(b);
  throw Error(path, "", "--input",
              "holds a " + ShapeToString(t.dims) + " tensor; input '" + name + "' is " +
                  ShapeToString(shape) + " at batch 1 (give one batch item" +
                  (batches.size() == 1 ? " or the whole batch of --batch " + batch_list : "") +
                  ", or bind the sizes with --batch and --set)");
}

void LoadInputFiles(const TopologyOptions& o, const Topology& topology, const ResolvedTopology& r,
                    std::map<std::string, std::vector<float>>* inputs) {
  for (const auto& [name, path] : o.input_files) {
    const auto input = std::find_if(r.inputs.begin(), r.inputs.end(),
                                    [&](const auto& in) { return in.first == name; });
    if (input == r.inputs.end()) {
      std::string names;
      for (const auto& in : r.inputs) names += (names.empty() ? "" : ", ") + in.first;
      throw Error("", "", "--input",
                  "the topology has no input '" + name + "' (inputs: " + names + ")");
    }
    const Shape& shape = input->second;
    if (IsTensorFile(path)) {  // read for each listed value: it must fit each one's shape
      (*inputs)[name] = TensorInput(path, name, shape, o.batches);
      continue;
    }
    const int64_t item = shape.empty() || shape[0] <= 0 ? 0 : NumElements(shape) / shape[0];
    const auto loaded = inputs->find(name);
    if (loaded != inputs->end()) {  // loaded for another listed --set value
      if (static_cast<int64_t>(loaded->second.size()) == item) continue;
      throw Error("", "", "--input",
                  "input '" + name + "' takes " + std::to_string(loaded->second.size()) +
                      " samples per batch item at one listed --set value and " +
                      std::to_string(item) + " at another: run those values one at a time");
    }
    Audio audio = ReadAudioFile(path);
    for (const ResolvedLayer& l : r.layers) {
      if (l.op != "mfcc" || l.inputs[0] != name) continue;
      const int64_t rate = l.attrs.Int("sample_rate");
      if (rate != audio.sample_rate) {
        throw Error(path, l.name, "sample_rate",
                    "the recording is sampled at " + std::to_string(audio.sample_rate) +
                        " Hz, the layer reads " + std::to_string(rate) +
                        " Hz (resample it first, e.g. sox in.wav -r " + std::to_string(rate) +
                        " out.wav)");
      }
    }
    const auto samples = static_cast<int64_t>(audio.samples.size());
    if (samples > item) {
      const std::string hint =
          topology.params.count("seconds") && audio.sample_rate > 0
              ? ": --set seconds=" +
                    std::to_string((samples + audio.sample_rate - 1) / audio.sample_rate)
              : ": set the topology's params so that it holds them";
      throw Error(path, "", "--input",
                  "the recording holds " + std::to_string(samples) + " samples; input '" + name +
                      "' takes " + std::to_string(item) + " per batch item" + hint);
    }
    if (samples < item) {
      std::fprintf(stderr, "ntpbench: --input %s: %s holds %lld samples, zero-padded to %lld\n",
                   name.c_str(), path.c_str(), static_cast<long long>(samples),
                   static_cast<long long>(item));
      audio.samples.resize(static_cast<size_t>(item), 0.0f);
    }
    (*inputs)[name] = std::move(audio.samples);
  }
}

// The scenarios --scenario and its options ask for; throws ntpb::Error naming an option that
// none of them takes (the scenario table says which takes what).
std::vector<Scenario> ScenariosFrom(const TopologyOptions& o) {
  std::vector<Scenario> out;
  unsigned asked = 0;  // the traits of the scenarios asked for
  std::string names;
  for (const std::string& name : o.scenarios) {
    Scenario s;
    s.kind = ParseScenarioKind(name, "--scenario");
    const ScenarioInfo& info = InfoOf(s.kind);
    asked |= info.traits;
    names += (names.empty() ? "" : ", ") + name;
    s.queries = o.queries;
    if (info.Has(kScenarioP99Search) && o.find_max_qps) {
      if (o.p99_bound_ms <= 0) {
        throw Error("", "", "--find-max-qps", "needs the bound: --p99 TIME (e.g. 50ms)");
      }
      s.p99_bound_ms = o.p99_bound_ms;
    } else if (info.Has(kScenarioRate)) {
      s.target_qps = o.target_qps;
    }
    if (info.Has(kScenarioSamplesPerQuery)) s.samples_per_query = o.samples_per_query;
    if (const std::string problem = ScenarioProblem(s); !problem.empty()) {
      throw Error("", "", "--scenario", problem);
    }
    out.push_back(s);
  }
  // An option that no scenario asked for takes.
  auto refuse_unless = [&](bool given, ScenarioTrait trait, const char* option) {
    if (!given || (asked & trait)) return;
    std::string why = "applies to --scenario " + ScenarioNamesWith(trait);
    if (!names.empty()) why = "does not apply to --scenario " + names + " (it " + why + ")";
    throw Error("", "", option, why);
  };
  refuse_unless(!o.streams.empty(), kScenarioStreams, "--streams");
  refuse_unless(o.find_max_qps, kScenarioP99Search, "--find-max-qps");
  refuse_unless(o.target_qps > 0, kScenarioRate, "--target-qps");
  refuse_unless(o.samples_per_query > 0, kScenarioSamplesPerQuery, "--samples-per-query");
  refuse_unless(o.queries > 0, kScenarioServesQueries, "--queries");
  refuse_unless(o.scenario_seconds > 0, kScenarioServesQueries, "--scenario-seconds");
  if (o.p99_bound_ms > 0 && !o.find_max_qps) {
    throw Error("", "", "--p99", "is the bound of --find-max-qps");
  }
  if (o.find_max_qps && o.target_qps > 0) {
    throw Error("", "", "--target-qps", "--find-max-qps searches the rate: give one or the other");
  }
  return out;
}

// `run -`: the benchmark families load their topology by path when they run, so standard input
// is read once into a temporary file of its format ('{' JSON, '<' XML, else ONNX; a UTF-8
// byte-order mark skipped), removed when the run ends.
class StandardInputTopology {
 public:
  explicit StandardInputTopology(const std::string& file) {
    if (file != "-") return;
    std::string extension;
    const std::string text = ReadStandardInputTopology(&extension);
    path_ = (std::filesystem::temp_directory_path() /
             ("ntpbench-stdin-" + std::to_string(getpid()) + "." + extension))
                .string();
    WriteFileAtomically(path_, text);
  }
  ~StandardInputTopology() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  StandardInputTopology(const StandardInputTopology&) = delete;
  StandardInputTopology& operator=(const StandardInputTopology&) = delete;
  // The file to read: the temporary one for "-", else `file` itself.
  const std::string& Path(const std::string& file) const { return path_.empty() ? file : path_; }

 private:
  std::string path_;
};

// A placement names layers: a typo is said now, with the nearest, not as a skipped row later.
void CheckPlacement(const Topology& topology, const TopologyOptions& o) {
  for (const auto& [layer, backend] : o.settings.placement) {
    if (layer == "default" || layer == "fallback") continue;
    if (std::none_of(topology.layers.begin(), topology.layers.end(),
                     [&](const Layer& l) { return l.name == layer; })) {
      std::vector<std::string> names;
      for (const Layer& l : topology.layers) names.push_back(l.name);
      throw Error(o.file, layer, "--place",
                  "no layer named '" + layer + "' in the topology" + DidYouMean(layer, names));
    }
  }
}

// An unknown param, or a batch the shapes cannot take, is one error line here, before Google
// Benchmark starts (not a failed row per benchmark); the --input files are read on the way.
void CheckEveryCombination(const TopologyBenchmark& tb, const Topology& topology,
                           const TopologyOptions& o, bench::RunSettings* settings) {
  for (const ParamEnv& values : bench::ValueCombinations(tb, topology)) {
    ParamEnv sets = o.sets;
    for (const auto& [param, value] : values) sets[param] = value;
    std::string listed;  // which listed values a mistake is at
    for (const auto& [param, values] : o.set_lists) {
      listed += ", --set " + param + "=" + std::to_string(sets.at(param));
    }
    try {
      // Audio is one batch item's samples: every listed value must take the same.
      LoadInputFiles(o, topology, Resolve(topology, sets), &settings->inputs);
    } catch (const Error& e) {
      if (listed.empty()) throw;
      throw Error(e.file(), e.layer(), e.field(), e.message() + " (at" + listed.substr(1) + ")");
    }
    for (const int64_t batch : o.batches) {
      ParamEnv env = sets;
      env["N"] = batch;
      try {
        Resolve(topology, env);
      } catch (const Error& e) {
        throw Error(e.file(), e.layer(), e.field(),
                    e.message() + " (at --batch " + std::to_string(batch) + listed + ")");
      }
    }
  }
}

// What Google Benchmark is given, from the options passed through to it.
struct BenchmarkArgs {
  std::vector<std::string> args;
  // The JSON files asked for: --json, and Google Benchmark's own --benchmark_out in JSON. Both
  // get the same document, with ntpbench's descriptions (one reporter writes it once; Google
  // Benchmark alone would write one file and drop the other).
  std::vector<std::string> json_outs;
  std::string json_tmp;  // where Google Benchmark writes it, committed after the runs
  bool console = true;   // Google Benchmark's console format (ntpbench's tables after it)
  bool list_only = false;
};

BenchmarkArgs BenchmarkArgsFor(const std::string& program, const TopologyOptions& o,
                               const std::vector<std::string>& passthrough, TableView* view) {
  BenchmarkArgs b;
  // A topology iteration can take a second: measure for 2 s by default (not Google Benchmark's
  // 0.5 s) so a run is more than one iteration; --benchmark_min_time overrides it.
  b.args = {program, "--benchmark_min_time=2"};
  if (!o.json_out.empty()) b.json_outs.push_back(o.json_out);
  std::string gb_out, gb_out_format;
  for (const std::string& given : passthrough) {
    const std::string a = bench::NormalizeBenchmarkFlag(given);  // 0.5s: seconds, as 1.7 reads
    const std::string unit_flag = "--benchmark_time_unit=";
    if (a.rfind(unit_flag, 0) == 0) view->time_unit = a.substr(unit_flag.size());
    if (a.rfind("--benchmark_format=", 0) == 0 && a != "--benchmark_format=console") {
      b.console = false;
    }
    if (a == "--benchmark_list_tests" || a == "--benchmark_list_tests=true") b.list_only = true;
    if (a.rfind("--benchmark_out=", 0) == 0) {
      gb_out = a.substr(16);
      continue;
    }
    if (a.rfind("--benchmark_out_format=", 0) == 0) {
      gb_out_format = a.substr(23);
      continue;
    }
    b.args.push_back(a);
  }
  if (!gb_out.empty() && (gb_out_format.empty() || gb_out_format == "json")) {
    if (std::find(b.json_outs.begin(), b.json_outs.end(), gb_out) == b.json_outs.end()) {
      b.json_outs.push_back(gb_out);
    }
  } else if (!gb_out.empty()) {  // console or csv: Google Benchmark's own file
    if (!o.json_out.empty()) {
      throw Error("", "", "--json",
                  "and --benchmark_out_format=" + gb_out_format +
                      " ask for two files of two formats; Google Benchmark writes one: give "
                      "one, or --benchmark_out in JSON");
    }
    b.args.push_back("--benchmark_out=" + gb_out);
    b.args.push_back("--benchmark_out_format=" + gb_out_format);
  } else if (!gb_out_format.empty()) {
    b.args.push_back("--benchmark_out_format=" + gb_out_format);
  }
  // Google Benchmark writes a temporary that is committed after the runs; next to a device
  // (--json /dev/stdout) it goes to the temporary folder instead, whose device may be read-only.
  if (!b.json_outs.empty()) {
    b.json_tmp = IsSpecialFile(b.json_outs.front())
                     ? (std::filesystem::temp_directory_path() /
                        ("ntpbench-json.tmp." + std::to_string(getpid())))
                           .string()
                     : b.json_outs.front() + ".tmp." + std::to_string(getpid());
    b.args.push_back("--benchmark_out=" + b.json_tmp);
    b.args.push_back("--benchmark_out_format=json");
  }
  return b;
}

// The files the run will write, checked before it starts: none over what it reads (a recording
// must not be overwritten by a report), each in a folder it can write, named as asked.
void CheckOutputFiles(const TopologyOptions& o, const std::vector<std::string>& json_outs) {
  std::vector<std::string> read_files = {o.file};
  for (const auto& [name, file] : o.input_files) read_files.push_back(file);
  for (const std::string& out : json_outs) {
    RefuseOutputOverInput(out, read_files, out == o.json_out ? "--json" : "--benchmark_out");
    if (!IsSpecialFile(out)) MakeParentFolder(out);
    const size_t slash = out.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "." : out.substr(0, slash + 1);
    if (!IsSpecialFile(out) && access(folder.c_str(), W_OK) != 0) {
      throw Error(out, "", "", "cannot write the JSON report: no writable folder " + folder);
    }
  }
  if (!o.trace_out.empty()) {
    std::vector<std::string> inputs = read_files;
    inputs.insert(inputs.end(), json_outs.begin(), json_outs.end());
    RefuseOutputOverInput(o.trace_out, inputs, "--trace");
    if (!IsSpecialFile(o.trace_out)) MakeParentFolder(o.trace_out);
  }
}

// Google Benchmark wrote the temporary file and does not report a write error (a full disk):
// the report is replaced only when it reads back as complete JSON.
void CommitJsonReport(const BenchmarkArgs& b) {
  std::string text;
  try {
    text = ReadTextFile(b.json_tmp, std::size_t{1} << 30);
    const nlohmann::json written = ParseBenchmarkJson(text, b.json_tmp);
    if (!written.contains("benchmarks")) throw Error(b.json_tmp, "", "", "no benchmarks");
  } catch (const Error& e) {
    std::remove(b.json_tmp.c_str());
    throw Error(b.json_outs.front(), "", "",
                "the JSON report was not written completely (disk full?): " + e.message());
  }
  for (size_t i = 1; i < b.json_outs.size(); ++i) WriteFileAtomically(b.json_outs[i], text);
  CommitFile(b.json_tmp, b.json_outs.front());
}

// The roofline of `ntpbench machine`, if it was measured for this machine and thread count.
std::optional<MachinePeaks> RunPeaks(int threads, std::set<std::string>* backends, bool console) {
  RunConfig threads_config;
  threads_config.threads = threads;
  const MachineClass machine = DetectMachineClass(backends);
  const std::string peaks_path = MachinePeaksPath(machine, EffectiveThreads(threads_config));
  std::optional<MachinePeaks> peaks;
  try {
    peaks = ReadMachinePeaks(peaks_path);
  } catch (const Error& e) {
    std::fprintf(stderr, "ntpbench: no roofline column: %s\n", e.what());
  }
  if (!peaks && console) {
    std::fprintf(stderr,
                 "ntpbench: no roofline for this machine and thread count yet; `ntpbench machine%s`"
                 " measures it once (seconds) and adds a \"roof\" column\n",
                 threads > 0 ? (" --threads " + std::to_string(threads)).c_str() : "");
  }
  return peaks;
}

// A captured run decoded from its counters and its description.
RunMeasurement MeasurementOf(const benchmark::BenchmarkReporter::Run& run) {
  std::map<std::string, double> counters;
  for (const auto& [k, c] : run.counters) counters[k] = c.value;
  RunMeasurement m = DecodeCounters(counters);
  if (const nlohmann::json* d =
          bench::FindRunDescription(run.run_name.function_name + "/" + run.run_name.args)) {
    DecodeDescription(*d, &m);
  }
  return m;
}

struct RunCounts {
  int ran = 0;
  int failed = 0;  // errors, not skips
};

// Each run's tables on stdout in `format`: the per-layer table, a decoder's per-phase table,
// the reliability verdict and the precision path; then the scenario and precision summaries.
RunCounts PrintRunTables(const std::vector<benchmark::BenchmarkReporter::Run>& captured,
                         const TopologyBenchmark& tb, const RunReportFormat& format,
                         const std::optional<MachinePeaks>& peaks, const TableView& view,
                         int threads) {
  RunCounts counts;
  std::vector<ScenarioRun> scenario_runs;    // the batching decision's table, after the others
  std::vector<PrecisionRun> precision_runs;  // speed against accuracy, after the others
  std::fputs(format.header, stdout);
  for (const auto& run : Representative(captured)) {
    const std::string name = run.benchmark_name();
    if (run.error_occurred) {
      counts.failed += run.error_message.rfind("skipped:", 0) != 0;
      continue;
    }
    ++counts.ran;
    const RunMeasurement measurement = MeasurementOf(run);
    const std::string run_key = run.run_name.function_name + "/" + run.run_name.args;
    // A scenario measures no accuracy (single-stream runs do): nothing to set against speed.
    if (format.heading && run.run_type == benchmark::BenchmarkReporter::Run::RT_Iteration &&
        !measurement.scenario) {
      precision_runs.push_back({name, measurement});
    }
    const std::optional<RunKey> key = RunKey::Parse(run_key);
    if (format.heading) {
      ScenarioRun row{run_key, measurement, threads};
      if (row.measured.setup.batch == 0 && key) row.measured.setup.batch = key->batch;
      scenario_runs.push_back(std::move(row));
    }
    // What ran: the family registered under this name, and the batch (the argument).
    const auto family = std::find_if(
        tb.families().begin(), tb.families().end(),
        [&](const TopologyBenchmark::Family& f) { return f.name == run.run_name.function_name; });
    if (format.heading && measurement.scenario &&
        measurement.scenario->kind == ScenarioKind::kGenerate && !measurement.phases.empty()) {
      std::printf("\n%s  (per layer and phase)\n%s", name.c_str(),
                  RenderPhaseTable(measurement, peaks ? peaks->bandwidth_gbs : 0).c_str());
    }
    if (family == tb.families().end() || !key || key->streams > 0) continue;
    if (format.heading) {
      const char* unit = benchmark::GetTimeUnitString(run.time_unit);
      const bool aggregate = run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate;
      std::printf(aggregate ? "\n%s  (%.3f %s per iteration = one batch of %lld, median of %lld "
                              "repetitions)\n"
                            : "\n%s  (mean %.3f %s per iteration = one batch of %lld, %lld "
                              "iterations)\n",
                  name.c_str(), run.GetAdjustedRealTime(), unit, static_cast<long long>(key->batch),
                  static_cast<long long>(aggregate ? run.repetitions : run.iterations));
      const Reliability reliability = JudgeCaptured(captured, run_key);
      if (!reliability.reliable) std::printf("%s\n", reliability.Verdict().c_str());
    }
    std::fputs(format.render({name, measurement, peaks ? &*peaks : nullptr, view}).c_str(), stdout);
    if (!format.heading) continue;  // a machine-readable format: rows only
    // How this machine ran the precision (native bf16 or emulated, VNNI or not).
    const std::string path = FindBackend(family->backend)->PrecisionPath(family->precision);
    if (!path.empty()) {
      std::printf("%s %s here: %s\n", family->backend.c_str(), PrecisionName(family->precision),
                  path.c_str());
    }
  }
  PrintRunSummaries(std::move(scenario_runs), precision_runs);
  return counts;
}

// Every benchmark that ran, once, with the trace its description carries.
void WriteRunTrace(const std::vector<benchmark::BenchmarkReporter::Run>& captured,
                   const std::string& trace_out) {
  std::vector<std::pair<std::string, RunMeasurement>> traced;
  for (const auto& r : captured) {
    const std::string name = r.run_name.function_name + "/" + r.run_name.args;
    const bool seen =
        std::any_of(traced.begin(), traced.end(), [&](const auto& t) { return t.first == name; });
    if (!bench::FindRunDescription(name) || seen || r.error_occurred) continue;
    traced.emplace_back(name, MeasurementOf(r));
  }
  WriteTraceFile(traced, trace_out, "no benchmark ran");
}

int Run(const std::string& program, const TopologyOptions& from_command_line,
        const std::vector<std::string>& passthrough) {
  const StandardInputTopology stdin_topology(from_command_line.file);
  TopologyOptions given = from_command_line;
  given.file = stdin_topology.Path(given.file);
  const Topology topology = ReadTopologyFile(given.file);
  TopologyOptions canonical = given;
  CanonicalizeParams(topology, &canonical);
  const TopologyOptions& o = canonical;
  CheckPlacement(topology, o);
  TopologyBenchmark tb(o.name.empty() ? topology.name : o.name, o.file);
  tb.Backends(o.backends)->Batches(o.batches)->Precisions(o.precisions)->Markers(o.markers);
  for (const auto& [param, values] : o.set_lists) tb.Values(param, values);
  for (const Scenario& s : ScenariosFrom(o)) tb.Scenario(s);
  if (!o.streams.empty()) tb.Streams(o.streams);
  // The topology file defines the benchmark; what the command line changes is set as a suite's
  // --ntpb_* flags would, so it is named (/n_hidden:512, /seed:7, /nthreads:1, /fusion:off).
  auto settings = std::make_shared<bench::RunSettings>(o.settings);
  if (o.scenario_seconds > 0) settings->scenario_seconds = o.scenario_seconds;
  settings->sets = o.sets;
  settings->trace = !o.trace_out.empty();
  // As for a suite: $NTPB_COUNTERS joins --counters (the run never read it before).
  if (const char* env = std::getenv("NTPB_COUNTERS"); env && *env) {
    settings->counters = ParseCounterList(env);
  }
  const int threads = std::max(settings->threads, 0);  // 0: one per core
  settings->peaks = bench::MeasuredPeaks(threads);
  tb.Settings(settings);
  CheckEveryCombination(tb, topology, o, settings.get());
  tb.Counters(o.counters);
  if (!o.check_outputs.empty() && !CheckOutputs(tb, topology, o, stdout)) {
    std::fprintf(stderr,
                 "ntpbench: not benchmarked: an output differs from --check-output's beyond "
                 "--check-tolerance %.1e\n",
                 o.check_tolerance);
    return 1;
  }

  TableView view = o.view;
  view.by_time = o.sort == "time";
  BenchmarkArgs gb = BenchmarkArgsFor(program, o, passthrough, &view);
  CheckOutputFiles(o, gb.json_outs);
  std::vector<char*> argv;
  for (std::string& a : gb.args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);
  const auto console_options = ConsoleOptionsFromArgs(argc, argv.data());
  const bool json_display = bench::JsonToConsoleRequested(argc, argv.data());

  tb.RegisterFamilies();
  std::set<std::string> backends;  // a driver starts only for a backend the run uses
  for (const TopologyBenchmark::Family& f : tb.families()) backends.insert(f.backend);
  AddBenchmarkContext({tb.EffectiveCounters()}, threads, backends);
  benchmark::AddCustomContext("ntpbench_topology", o.file);
  // ms unless --benchmark_time_unit says otherwise (Initialize applies the flag over this).
  benchmark::SetDefaultTimeUnit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) return 2;

  CapturingReporter reporter(console_options, false);
  reporter.quiet = o.quiet;
  // Checked by the option parser.
  const RunReportFormat* format = FindRunReportFormat(o.table);
  // A machine-readable table owns stdout; Google Benchmark's own goes to stderr.
  if (!format->heading) reporter.SetOutputStream(&std::cerr);
  // JSON, to stdout or --json's file, carries each run's description (json_reporter.h).
  bench::JsonReporter json_to_file, json_to_console;
  // No display reporter (csv): Google Benchmark makes its own.
  benchmark::BenchmarkReporter* display = &reporter;
  if (!gb.console) display = json_display ? &json_to_console : nullptr;
  benchmark::RunSpecifiedBenchmarks(display, gb.json_tmp.empty() ? nullptr : &json_to_file);
  if (gb.list_only) {  // --benchmark_list_tests: the names, as Google Benchmark lists them
    if (!gb.json_tmp.empty()) std::remove(gb.json_tmp.c_str());
    benchmark::Shutdown();
    return 0;
  }
  if (!gb.json_tmp.empty()) CommitJsonReport(gb);

  const std::optional<MachinePeaks> peaks = RunPeaks(threads, &backends, gb.console);
  RunConfig threads_config;
  threads_config.threads = threads;
  const RunCounts counts =
      PrintRunTables(reporter.captured, tb, *format, peaks, view, EffectiveThreads(threads_config));
  benchmark::Shutdown();
  if (!o.trace_out.empty()) WriteRunTrace(reporter.captured, o.trace_out);
  if (counts.failed > 0) return 1;
  return gb.console && counts.ran == 0 ? 1 : 0;
}

}  // namespace

// Options that cannot apply to what was asked: a usage error (exit 2) before anything runs.
void CheckRunOptions(const TopologyOptions& o) {
  const auto any_backend = [&](auto&& has) {
    return std::any_of(o.backends.begin(), o.backends.end(), [&](const std::string& name) {
      const Backend* b = FindBackend(name);
      return b && has(*b);
    });
  };
  std::string backends;
  for (const std::string& b : o.backends) backends += (backends.empty() ? "" : ",") + b;
  if (!o.settings.placement.empty() &&
      !any_backend([](const Backend& b) { return b.UsesPlacement(); })) {
    throw Error("", "", "--place",
                "applies to --backend hetero, which places layers on others (asked: --backend " +
                    backends + ")");
  }
  for (const std::string& name : o.backends) {
    const Backend* b = FindBackend(name);
    if (b && b->UsesPlacement() && o.settings.placement.empty()) {
      throw Error("", "", "--backend",
                  name +
                      " places layers on the other backends: it needs --place "
                      "layer=backend,...,default=backend");
    }
  }
  if (!o.settings.device.empty() && !any_backend([](const Backend& b) { return b.HasDevices(); })) {
    throw Error(
        "", "", "--device",
        "applies to a backend with devices, such as opencl (asked: --backend " + backends + ")");
  }
  ScenariosFrom(o);  // the scenario options that do not apply
  // A value listed twice would register the same benchmark twice (one name, two rows that
  // collide in the JSON and in compare).
  auto once = [](const auto& values, const char* option, auto text) {
    for (size_t i = 0; i < values.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (values[j] == values[i]) {
          throw Error("", "", option, text(values[i]) + " is listed twice");
        }
      }
    }
  };
  once(o.backends, "--backend", [](const std::string& v) { return v; });
  once(o.batches, "--batch", [](int64_t v) { return std::to_string(v); });
  once(o.precisions, "--precision", [](Precision v) { return std::string(PrecisionName(v)); });
  once(o.streams, "--streams", [](int64_t v) { return std::to_string(v); });
  once(o.scenarios, "--scenario", [](const std::string& v) { return v; });
}

Command AddRunCommand(CLI::App* app, const std::string& program) {
  auto o = std::make_shared<TopologyOptions>();
  CLI::App* c = app->add_subcommand(
      "run",
      "benchmark a topology: Google Benchmark families over backend x batch x precision, then "
      "a per-layer table (time, share, GFLOP/s, bytes, roofline). Params set, seed, threads and "
      "backend options other than the defaults are part of each benchmark's name "
      "(/n_hidden:512).");
  AddTopologyOptions(c, o.get(), TopologyCommand::kRun);
  c->parse_complete_callback([o] { CheckRunOptions(*o); });
  c->footer(
      "Any Google Benchmark flag passes through: --benchmark_min_time=S (default 2 here), "
      "--benchmark_repetitions=N, --benchmark_filter=REGEX, --benchmark_format=json, ...");
  return {c, {"--benchmark_"}, [o, program](const std::vector<std::string>& passed) {
            return Run(program, *o, passed);
          }};
}

}  // namespace ntpb::cli
