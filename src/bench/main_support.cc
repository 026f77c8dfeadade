// --ntpb_* flags, ntpb::Initialize and ntpb::Main.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

#include "ntpbench/backend.h"
#include "ntpbench/counters.h"
#include "ntpbench/error.h"
#include "ntpbench/machine.h"
#include "ntpbench/machine_class.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/memory_manager.h"
#include "ntpbench/ntpbench.h"
#include "ntpbench/reporting.h"
#include "src/backends/hetero/hetero_backend.h"
#include "src/bench/benchmark_flags.h"
#include "src/bench/calibration.h"
#include "src/bench/global_options.h"
#include "src/bench/json_reporter.h"
#include "src/bench/machine_class_detect.h"
#include "src/bench/openmp_wait_policy.h"
#include "src/common/nearest_name.h"

namespace ntpb {

std::vector<std::unique_ptr<TopologyBenchmark>>& RegisteredTopologyBenchmarks();

namespace bench {

GlobalOptions& Options() {
  static GlobalOptions options;
  return options;
}

void ParseAssignments(const std::string& text, const std::string& field, ParamEnv* env,
                      ParamLists* lists) {
  ParamLists parsed;  // in the order given: a bare value extends the list of the name before it
  std::vector<std::string> order;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    const size_t eq = item.find('=');
    if (eq == 0 || (eq == std::string::npos && order.empty())) {
      throw Error("", "", field, "expected name=value, got '" + item + "'");
    }
    const std::string name = eq == std::string::npos ? order.back() : item.substr(0, eq);
    const std::string value = eq == std::string::npos ? item : item.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE) {
      throw Error("", "", field, "value of '" + name + "' is not an integer: '" + value + "'");
    }
    if (name == "N") {  // it would be overwritten by each batch, silently
      throw Error("", "", field, "N is the batch size: set it with --batch, not " + field);
    }
    if (eq != std::string::npos) {
      if (parsed.count(name)) throw Error("", "", field, "'" + name + "' is given twice");
      order.push_back(name);
    }
    std::vector<int64_t>& values = parsed[name];
    if (std::find(values.begin(), values.end(), v) != values.end()) {
      throw Error("", "", field, "'" + name + "' lists " + value + " twice");
    }
    values.push_back(v);
  }
  for (auto& [name, values] : parsed) {
    if (values.size() == 1) {
      (*env)[name] = values[0];
      if (lists) lists->erase(name);
      continue;
    }
    if (!lists) {
      throw Error("", "", field,
                  "'" + name + "' takes one value here, got " + std::to_string(values.size()));
    }
    env->erase(name);
    (*lists)[name] = std::move(values);
  }
}

void ParseBackendOptions(const std::string& text, const std::string& field,
                         std::map<std::string, std::string>* options) {
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const size_t eq = item.find('='), dot = item.find('.');
    if (eq == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 >= eq ||
        eq + 1 == item.size()) {
      throw Error("", "", field,
                  "expected backend.option=value (e.g. onednn.fusion=off), got '" + item + "'");
    }
    const std::string backend = item.substr(0, dot);
    if (!FindBackend(backend)) {
      std::string known;
      for (const std::string& n : BackendNames()) known += (known.empty() ? "" : ", ") + n;
      throw Error("", "", field,
                  "unknown backend '" + backend + "' in '" + item + "' (known: " + known + ")");
    }
    RunConfig probe;  // the option and its value are checked now, not at the first run
    probe.options[item.substr(dot + 1, eq - dot - 1)] = item.substr(eq + 1);
    BackendOptionValues(*FindBackend(backend), probe);
    (*options)[item.substr(0, eq)] = item.substr(eq + 1);
    pos = comma + 1;
  }
}

void ParseNtpbFlags(int* argc, char** argv) {
  GlobalOptions& o = Options();
  if (const char* env = std::getenv("NTPB_COUNTERS")) o.counters = ParseCounterList(env);
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    auto value_of = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return arg.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value_of("--ntpb_set=")) {
      ParseAssignments(v, "--ntpb_set", &o.sets, &o.set_lists);
    } else if (const char* sec = value_of("--ntpb_scenario_seconds=")) {
      char* end = nullptr;
      o.scenario_seconds = std::strtod(sec, &end);
      if (*sec == '\0' || *end != '\0' ||
          !(o.scenario_seconds > 0 && o.scenario_seconds <= 86400)) {
        throw Error("", "", "--ntpb_scenario_seconds",
                    std::string("expected seconds from 0 to 86400, got '") + sec + "'");
      }
    } else if (const char* seed = value_of("--ntpb_seed=")) {
      char* end = nullptr;
      errno = 0;
      o.seed = std::strtoll(seed, &end, 10);
      if (*seed == '\0' || *end != '\0' || errno == ERANGE || o.seed < 0) {
        throw Error("", "", "--ntpb_seed", std::string("expected a seed >= 0, got '") + seed + "'");
      }
    } else if (const char* bo = value_of("--ntpb_backend_option=")) {
      ParseBackendOptions(bo, "--ntpb_backend_option", &o.backend_options);
    } else if (const char* t = value_of("--ntpb_threads=")) {
      char* end = nullptr;
      errno = 0;
      const long threads = std::strtol(t, &end, 10);  // checked before the int cast wraps it
      if (*t == '\0' || *end != '\0' || errno == ERANGE || threads < 0 || threads > 4096) {
        throw Error("", "", "--ntpb_threads",
                    std::string("expected a count from 0 to 4096, got '") + t + "'");
      }
      o.threads = static_cast<int>(threads);
    } else if (const char* place = value_of("--ntpb_place=")) {
      o.placement = ParsePlacement(place, "--ntpb_place");
    } else if (const char* dev = value_of("--ntpb_device=")) {
      o.device = dev;
    } else if (const char* d = value_of("--ntpb_topology_dir=")) {
      o.topology_dir = d;
    } else if (arg == "--ntpb_console_layers" || arg == "--ntpb_console_layers=true") {
      o.console_layers = true;
    } else if (const char* c = value_of("--ntpb_counters=")) {
      o.counters = ParseCounterList(c);
    } else if (arg == "--ntpb_calibration" || arg == "--ntpb_calibration=true") {
      o.calibration = true;
    } else if (arg == "--ntpb_trace" || arg == "--ntpb_trace=true") {
      o.trace = true;
    } else if (const char* slow = value_of("--ntpb_inject_slowdown=")) {
      o.inject_slowdown = slow;
    } else if (arg == "--ntpb_layer_counters" || arg == "--ntpb_layer_counters=true") {
      o.layer_counters = true;
    } else if (arg.rfind("--ntpb_", 0) == 0) {
      const std::string name = arg.substr(0, arg.find('='));
      throw Error(
          "", "", name,
          "unknown flag" +
              DidYouMean(name, {"--ntpb_set", "--ntpb_threads", "--ntpb_seed",
                                "--ntpb_backend_option", "--ntpb_topology_dir", "--ntpb_counters",
                                "--ntpb_layer_counters", "--ntpb_console_layers",
                                "--ntpb_calibration", "--ntpb_inject_slowdown", "--ntpb_trace",
                                "--ntpb_scenario_seconds", "--ntpb_device", "--ntpb_place"}) +
              " (ntpbench flags: --ntpb_set=name=value, --ntpb_threads=N, "
              "--ntpb_seed=S, --ntpb_backend_option=backend.option=value, "
              "--ntpb_topology_dir=DIR, --ntpb_counters=LIST, --ntpb_layer_counters, "
              "--ntpb_console_layers, --ntpb_trace, --ntpb_scenario_seconds=S, "
              "--ntpb_device=SPEC, --ntpb_place=LAYER=BACKEND,..,default=BACKEND)");
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
}

}  // namespace bench

void AddBenchmarkContext(const std::vector<std::vector<std::string>>& counter_requests) {
  benchmark::AddCustomContext("ntpbench_version", NTPBENCH_VERSION);
  const MachineClass machine = DetectMachineClass();
  benchmark::AddCustomContext("ntpbench_machine_class", machine.id());
  benchmark::AddCustomContext("ntpbench_machine", machine.human());
  benchmark::AddCustomContext("ntpbench_machine_json", machine.ToJson().dump());
  // Probe every distinct counter request now: the fallback lines print once, before any run,
  // and the JSON context says what is missing and why.
  std::set<std::string> requested, missing;
  bool memory = false;
  for (const auto& request : counter_requests) {
    if (request.empty()) continue;
    for (const std::string& c : request) {
      requested.insert(c);
      memory = memory || c == "memory";
    }
    const std::unique_ptr<CounterSet> probe = CounterSet::Create(request);
    for (const CounterNote& n : probe->notes()) {
      missing.insert(n.what + ": " + n.reason);
    }
  }
  if (!requested.empty()) {
    std::string list, why;
    for (const std::string& c : requested) list += (list.empty() ? "" : ",") + c;
    for (const std::string& m : missing) why += (why.empty() ? "" : "; ") + m;
    benchmark::AddCustomContext("ntpbench_counters", list);
    if (!why.empty()) benchmark::AddCustomContext("ntpbench_counters_missing", why);
  }
  if (memory) RegisterAllocationMemoryManager();
  benchmark::AddCustomContext("ntpbench_machine_facts", ThisMachine().ToJson().dump());
  for (const std::string& name : BackendNames()) {
    const Backend* backend = FindBackend(name);
    benchmark::AddCustomContext("ntpbench_backend." + name, backend->version());
    // Which path each precision takes on this machine (native bf16 or emulated, VNNI or not).
    for (Precision p : {Precision::kF32, Precision::kBf16, Precision::kF16, Precision::kI8}) {
      const std::string path = backend->PrecisionPath(p);
      if (!path.empty()) {
        benchmark::AddCustomContext("ntpbench_path." + name + "." + PrecisionName(p), path);
      }
    }
  }
  RunConfig config;
  config.threads = std::max(bench::Options().threads, 0);
  benchmark::AddCustomContext("ntpbench_openmp_wait", bench::OpenMpWaitPolicy());
  benchmark::AddCustomContext("ntpbench_threads", std::to_string(EffectiveThreads(config)));
  // The ceilings `ntpbench machine` measured for this machine and thread count, if it has: a
  // report draws every run's roofline under its own machine's.
  try {
    if (const auto peaks = ReadMachinePeaks(MachinePeaksPath(machine, EffectiveThreads(config)))) {
      benchmark::AddCustomContext("ntpbench_machine_peaks", peaks->ToJson().dump());
      bench::Options().peaks = peaks;
    }
  } catch (const Error&) {
    // A corrupt cache is said by `ntpbench run` and rewritten by `ntpbench machine`.
  }
}

bool Initialize(int* argc, char** argv) {
  bool ok = true;
  try {
    bench::ParseNtpbFlags(argc, argv);
    bench::CheckBenchmarkFlags(std::vector<std::string>(argv + 1, argv + *argc));
  } catch (const Error& e) {
    std::fprintf(stderr, "ntpbench: %s\n", e.what());
    return false;
  }
  std::set<std::string> known_params = {"N", "T"};
  std::vector<std::vector<std::string>> counter_requests;
  for (const auto& tb : RegisteredTopologyBenchmarks()) {
    try {
      counter_requests.push_back(tb->EffectiveCounters());
      for (const auto& [name, value] : tb->RegisterFamilies()) known_params.insert(name);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ntpbench: %s: %s\n", tb->name().c_str(), e.what());
      ok = false;
    }
  }
  std::vector<std::string> set_names;
  for (const auto& [name, value] : bench::Options().sets) set_names.push_back(name);
  for (const auto& [name, values] : bench::Options().set_lists) set_names.push_back(name);
  for (const std::string& name : set_names) {
    if (name == "N") {
      std::fprintf(stderr, "ntpbench: --ntpb_set: N is the batch; choose it per benchmark\n");
      ok = false;
    } else if (!known_params.count(name)) {
      std::string known;
      for (const std::string& k : known_params) known += (known.empty() ? "" : ", ") + k;
      std::fprintf(stderr,
                   "ntpbench: --ntpb_set: no registered topology has a param '%s' "
                   "(params: %s)\n",
                   name.c_str(), known.c_str());
      ok = false;
    }
  }
  if (bench::Options().calibration) bench::RegisterCalibrationBenchmarks();
  // A topology iteration takes milliseconds: ms unless --benchmark_time_unit says otherwise
  // (Initialize applies the flag over this default).
  benchmark::SetDefaultTimeUnit(benchmark::kMillisecond);
  try {
    AddBenchmarkContext(counter_requests);
  } catch (const Error& e) {
    std::fprintf(stderr, "ntpbench: %s\n", e.what());
    return false;
  }
  benchmark::Initialize(argc, argv);
  return ok;
}

int Main(int argc, char** argv) {
  bench::ApplyOpenMpWaitPolicy(argv);  // may run this program again, with the policy set
  // Read before Initialize: benchmark::Initialize removes the flags it knows from argv.
  const bool console = !NonConsoleFormatRequested(argc, argv);
  const bool json_display = bench::JsonToConsoleRequested(argc, argv);
  const bool json_file = bench::JsonFileRequested(argc, argv);
  const auto console_options = ConsoleOptionsFromArgs(argc, argv);
  if (!Initialize(&argc, argv)) return 1;
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // JSON, to the console or a file, carries each run's description (json_reporter.h).
  bench::JsonReporter json_to_console, json_to_file;
  ConsoleReporter console_reporter(console_options, bench::Options().console_layers);
  benchmark::BenchmarkReporter* display = nullptr;
  if (console) display = &console_reporter;
  if (json_display) display = &json_to_console;
  // No display reporter (csv): Google Benchmark makes its own.
  benchmark::RunSpecifiedBenchmarks(display, json_file ? &json_to_file : nullptr);
  benchmark::Shutdown();
  return 0;
}

}  // namespace ntpb
