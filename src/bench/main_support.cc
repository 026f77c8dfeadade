// --ntpb_* flags, ntpb::Initialize and ntpb::Main.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
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
#include "src/bench/json_reporter.h"
#include "src/bench/machine_class_detect.h"
#include "src/bench/openmp_wait_policy.h"
#include "src/bench/run_settings.h"
#include "src/common/nearest_name.h"

namespace ntpb {

std::vector<std::unique_ptr<TopologyBenchmark>>& RegisteredTopologyBenchmarks();

namespace bench {

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

namespace {

int64_t IntegerFlag(const std::string& value, const std::string& option, int64_t lo, int64_t hi,
                    const char* what) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);  // checked before any cast
  if (value.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    throw Error("", "", option, std::string("expected ") + what + ", got '" + value + "'");
  }
  return v;
}

bool SwitchFlag(const std::string& value, const std::string& option) {
  if (value.empty() || value == "true") return true;
  if (value == "false") return false;
  throw Error("", "", option, "expected no value, =true or =false, got '" + value + "'");
}

}  // namespace

const std::vector<RunSettingFlag>& RunSettingFlags() {
  using S = RunSettings;
  using V = const std::string&;
  static const std::vector<RunSettingFlag> flags = {
      {"set", "NAME=V[,V..][,NAME=V..]", "topology params; a list runs one family per value", false,
       true, [](V v, V o, S* s) { ParseAssignments(v, o, &s->sets, &s->set_lists); }},
      {"threads", "N", "threads per run (default: the cores this process may use)", true, false,
       [](V v, V o, S* s) {
         s->threads = static_cast<int>(
             IntegerFlag(v, o, 1, 4096, "a count from 1 to 4096 (leave it out for one per core)"));
       }},
      {"seed", "S", "seed of the random weights and inputs (default 42)", true, false,
       [](V v, V o, S* s) {
         s->seed = IntegerFlag(v, o, 0, std::numeric_limits<int64_t>::max(), "a seed >= 0");
       }},
      {"backend_option", "BACKEND.OPTION=VALUE[,..]",
       "e.g. onednn.fusion=off; `ntpbench --help` lists them (repeatable)", true, true,
       [](V v, V o, S* s) { ParseBackendOptions(v, o, &s->backend_options); }},
      {"device", "SPEC",
       "the device of the opencl backend: opencl:PLATFORM:DEVICE, each an index or part of a "
       "name (`ntpbench devices` lists them; default the first)",
       true, false, [](V v, V, S* s) { s->device = v; }},
      {"place", "LAYER=BACKEND,..",
       "the hetero backend's placement: layers on other backends in one run, e.g. "
       "bilstm=onednn,default=opencl[,fallback=onednn] (with --backend hetero)",
       true, false, [](V v, V o, S* s) { s->placement = ParsePlacement(v, o); }},
      {"topology_dir", "DIR", "where topology files are looked for ($NTPB_TOPOLOGY_DIR)", false,
       false, [](V v, V, S* s) { s->topology_dir = v; }},
      {"counters", "LIST", "counter sources and events per region ($NTPB_COUNTERS)", false, false,
       [](V v, V, S* s) { s->counters = ParseCounterList(v); }},
      {"layer_counters", nullptr, "the counters per layer too, not only time", true, false,
       [](V v, V o, S* s) { s->layer_counters = SwitchFlag(v, o); }},
      {"console_layers", nullptr, "every counter on the console", false, false,
       [](V v, V o, S* s) { s->console_layers = SwitchFlag(v, o); }},
      {"trace", nullptr, "each run's first measured iterations' step times in its description",
       false, false, [](V v, V o, S* s) { s->trace = SwitchFlag(v, o); }},
      {"scenario_seconds", "S", "a scenario measurement starts no query after S seconds", false,
       false,
       [](V v, V o, S* s) {
         char* end = nullptr;
         const double seconds = std::strtod(v.c_str(), &end);
         if (v.empty() || *end != '\0' || !(seconds > 0 && seconds <= 86400)) {
           throw Error("", "", o, "expected seconds from 0 to 86400, got '" + v + "'");
         }
         s->scenario_seconds = seconds;
       }},
      {"calibration", nullptr, "also run the machine calibration benchmarks", false, false,
       [](V v, V o, S* s) { s->calibration = SwitchFlag(v, o); }},
      {"inject_slowdown", "LAYER:FACTOR", "slow one layer down (validating the perf gate)", false,
       false, [](V v, V, S* s) { s->inject_slowdown = v; }},
  };
  return flags;
}

RunSettings ParseNtpbFlags(int* argc, char** argv) {
  RunSettings settings;
  if (const char* env = std::getenv("NTPB_COUNTERS")) settings.counters = ParseCounterList(env);
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--ntpb_", 0) != 0) {
      argv[out++] = argv[i];
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string option = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const RunSettingFlag* flag = nullptr;
    for (const RunSettingFlag& f : RunSettingFlags()) {
      if (option == std::string("--ntpb_") + f.name) flag = &f;
    }
    if (!flag) {
      std::vector<std::string> names;
      std::string usage;
      for (const RunSettingFlag& f : RunSettingFlags()) {
        names.push_back(std::string("--ntpb_") + f.name);
        usage += (usage.empty() ? "" : ", ") + names.back() + (f.value ? "=" : "") +
                 (f.value ? f.value : "");
      }
      throw Error("", "", option,
                  "unknown flag" + DidYouMean(option, names) + " (ntpbench flags: " + usage + ")");
    }
    if (flag->value && eq == std::string::npos) {
      throw Error("", "", option, std::string("needs a value: ") + option + "=" + flag->value);
    }
    flag->apply(value, option, &settings);
  }
  *argc = out;
  return settings;
}

}  // namespace bench

void AddBenchmarkContext(const std::vector<std::vector<std::string>>& counter_requests, int threads,
                         const std::set<std::string>& backends_in_use) {
  benchmark::AddCustomContext("ntpbench_version", NTPBENCH_VERSION);
  // Google Benchmark's library_build_type is its own (Debian's is built without NDEBUG); this is
  // ntpbench's, which compiles the timed code.
#ifdef NDEBUG
  benchmark::AddCustomContext("ntpbench_build_type", "release");
#else
  benchmark::AddCustomContext("ntpbench_build_type", "debug");
#endif
  const MachineClass machine = DetectMachineClass(&backends_in_use);
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
    if (DriverNotInUse(name, &backends_in_use)) {
      benchmark::AddCustomContext("ntpbench_backend." + name, MachineClass::kNotStarted);
      continue;
    }
    benchmark::AddCustomContext("ntpbench_backend." + name, backend->version());
    // Which path each precision takes on this machine (native bf16 or emulated, VNNI or not).
    for (Precision p : kAllPrecisions) {
      const std::string path = backend->PrecisionPath(p);
      if (!path.empty()) {
        benchmark::AddCustomContext("ntpbench_path." + name + "." + PrecisionName(p), path);
      }
    }
  }
  RunConfig config;
  config.threads = std::max(threads, 0);
  benchmark::AddCustomContext("ntpbench_openmp_wait", bench::OpenMpWaitPolicy());
  benchmark::AddCustomContext("ntpbench_threads", std::to_string(EffectiveThreads(config)));
  // The ceilings `ntpbench machine` measured for this machine and thread count, if it has: a
  // report draws every run's roofline under its own machine's.
  if (const auto peaks = bench::MeasuredPeaks(threads)) {
    benchmark::AddCustomContext("ntpbench_machine_peaks", peaks->ToJson().dump());
  }
}

namespace bench {

std::optional<MachinePeaks> MeasuredPeaks(int threads) {
  RunConfig config;
  config.threads = std::max(threads, 0);
  try {
    const std::set<std::string> none;  // the class's id only: no driver started for it
    return ReadMachinePeaks(MachinePeaksPath(DetectMachineClass(&none), EffectiveThreads(config)));
  } catch (const Error&) {
    // A corrupt cache is said by `ntpbench run` and rewritten by `ntpbench machine`.
    return std::nullopt;
  }
}

namespace {

// Initialize, keeping the settings for Main's reporters.
bool InitializeWith(int* argc, char** argv, std::shared_ptr<RunSettings>* out) {
  auto settings = std::make_shared<RunSettings>();
  // Newer Google Benchmarks' forms (--benchmark_min_time=0.5s) as the linked one reads them.
  static std::deque<std::string> normalized;  // argv points into it: elements never move
  for (int i = 1; i < *argc; ++i) {
    const std::string n = NormalizeBenchmarkFlag(argv[i]);
    if (n == argv[i]) continue;
    normalized.push_back(n);
    argv[i] = normalized.back().data();
  }
  try {
    *settings = ParseNtpbFlags(argc, argv);
    CheckBenchmarkFlags(std::vector<std::string>(argv + 1, argv + *argc));
  } catch (const Error& e) {
    std::fprintf(stderr, "ntpbench: %s\n", e.what());
    return false;
  }
  settings->peaks = MeasuredPeaks(settings->threads);
  *out = settings;
  bool ok = true;
  std::set<std::string> known_params = {"N", "T"};
  std::vector<std::vector<std::string>> counter_requests;
  std::set<std::string> backends;  // what the registered families run on
  for (const auto& tb : RegisteredTopologyBenchmarks()) {
    try {
      tb->Settings(settings);
      counter_requests.push_back(tb->EffectiveCounters());
      for (const auto& [name, value] : tb->RegisterFamilies()) known_params.insert(name);
      for (const TopologyBenchmark::Family& f : tb->families()) backends.insert(f.backend);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ntpbench: %s: %s\n", tb->name().c_str(), e.what());
      ok = false;
    }
  }
  std::vector<std::string> set_names;
  for (const auto& [name, value] : settings->sets) set_names.push_back(name);
  for (const auto& [name, values] : settings->set_lists) set_names.push_back(name);
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
  if (settings->calibration) RegisterCalibrationBenchmarks();
  // A topology iteration takes milliseconds: ms unless --benchmark_time_unit says otherwise
  // (Initialize applies the flag over this default).
  benchmark::SetDefaultTimeUnit(benchmark::kMillisecond);
  try {
    AddBenchmarkContext(counter_requests, settings->threads, backends);
  } catch (const Error& e) {
    std::fprintf(stderr, "ntpbench: %s\n", e.what());
    return false;
  }
  benchmark::Initialize(argc, argv);
  return ok;
}

}  // namespace
}  // namespace bench

bool Initialize(int* argc, char** argv) {
  std::shared_ptr<bench::RunSettings> settings;
  return bench::InitializeWith(argc, argv, &settings);
}

int Main(int argc, char** argv) {
  bench::ApplyOpenMpWaitPolicy(argv);  // may run this program again, with the policy set
  // Read before Initialize: benchmark::Initialize removes the flags it knows from argv.
  const bool console = !NonConsoleFormatRequested(argc, argv);
  const bool json_display = bench::JsonToConsoleRequested(argc, argv);
  const bool json_file = bench::JsonFileRequested(argc, argv);
  const auto console_options = ConsoleOptionsFromArgs(argc, argv);
  std::shared_ptr<bench::RunSettings> settings;
  if (!bench::InitializeWith(&argc, argv, &settings)) return 1;
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // JSON, to the console or a file, carries each run's description (json_reporter.h).
  bench::JsonReporter json_to_console, json_to_file;
  ConsoleReporter console_reporter(console_options, settings->console_layers);
  benchmark::BenchmarkReporter* display = nullptr;
  if (console) display = &console_reporter;
  if (json_display) display = &json_to_console;
  // No display reporter (csv): Google Benchmark makes its own.
  benchmark::RunSpecifiedBenchmarks(display, json_file ? &json_to_file : nullptr);
  benchmark::Shutdown();
  return 0;
}

}  // namespace ntpb
