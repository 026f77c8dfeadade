// What a run is given besides its registration: the --ntpb_* flags of a suite (ntpb::Initialize
// strips them from argv) or `ntpbench run`'s options. A value, handed to each TopologyBenchmark
// (TopologyBenchmark::Settings): no process-wide state. The flags are declared once, in
// RunSettingFlags(): their parsing, "did you mean" and the usage line all come from that table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ntpbench/expression.h"
#include "ntpbench/machine_peaks.h"

namespace ntpb::bench {

struct RunSettings {
  ParamEnv sets;  // --ntpb_set=name=value[,name=value...] (repeatable)
  // --ntpb_set=name=v1,v2,...: one family per value (per combination when several), each named.
  ParamLists set_lists;
  // --ntpb_backend_option=backend.option=value[,...] (repeatable), e.g. onednn.fusion=off
  std::map<std::string, std::string> backend_options;
  int threads = -1;  // --ntpb_threads=N; -1: as registered
  // --ntpb_device=opencl:PLATFORM:DEVICE: the device of backends that have devices.
  std::string device;
  // --ntpb_place=layer=backend,...,default=backend[,fallback=backend]: the hetero backend's.
  std::map<std::string, std::string> placement;
  int64_t seed = -1;                  // --ntpb_seed=S; -1: as registered
  std::string topology_dir;           // --ntpb_topology_dir=DIR (else $NTPB_TOPOLOGY_DIR)
  bool console_layers = false;        // --ntpb_console_layers: every counter on the console
  std::vector<std::string> counters;  // --ntpb_counters=sde,perf,... (default $NTPB_COUNTERS)
  bool layer_counters = false;  // --ntpb_layer_counters: counter metrics per layer, not only time
  bool calibration = false;     // --ntpb_calibration: also run the machine calibration benchmarks
  std::string inject_slowdown;  // --ntpb_inject_slowdown=LAYER:FACTOR (validating the perf gate)
  // --ntpb_trace (`ntpbench run --trace`): the first measured iterations' step times go into each
  // run's description, for `ntpbench trace` (a Chrome trace-event file).
  bool trace = false;
  // --ntpb_scenario_seconds=S: a scenario measurement starts no query after S seconds (each
  // rate of a max-QPS search likewise), so a slow topology ends in time with fewer queries.
  double scenario_seconds = 10;
  // Graph inputs given as one batch item's values (`ntpbench run --input`), repeated per item.
  std::map<std::string, std::vector<float>> inputs;
  // Not a flag: the machine's ceilings for the run's thread count, read once with the context
  // when `ntpbench machine` has measured them; each step's roofline bound in the JSON.
  std::optional<MachinePeaks> peaks;
};

// One setting: the suite flag --ntpb_<name> and, where `run_option`, `ntpbench run`'s option
// --<name with '-' for '_'> (cli/topology_options.cc declares those from this table). Its
// value's name (null for a switch, which also takes =true), its help, whether it may be given
// again to add to it, and how it sets
// RunSettings (throws ntpb::Error naming `option` on a bad value).
struct RunSettingFlag {
  const char* name;
  const char* value;
  const char* help;
  bool run_option;
  bool repeatable;  // each occurrence adds to what the others set (otherwise the last counts)
  void (*apply)(const std::string& value, const std::string& option, RunSettings* settings);
};
const std::vector<RunSettingFlag>& RunSettingFlags();

// Parses "name=value[,name=value...]"; a bare value extends the list of the name before it
// ("n_hidden=512,1024,T=50"). A param with one value goes into `env`, one with several into
// `lists`; without `lists` a list is refused. Throws ntpb::Error naming `field`.
void ParseAssignments(const std::string& text, const std::string& field, ParamEnv* env,
                      ParamLists* lists = nullptr);

// Parses "backend.option=value[,...]" into `options`; throws ntpb::Error naming `field`.
void ParseBackendOptions(const std::string& text, const std::string& field,
                         std::map<std::string, std::string>* options);

// Removes the --ntpb_* flags from argv and returns what they set ($NTPB_COUNTERS under
// --ntpb_counters); throws ntpb::Error on a bad one.
RunSettings ParseNtpbFlags(int* argc, char** argv);

// The ceilings `ntpbench machine` measured for this machine and `threads` (0: one per core), if
// it has; RunSettings::peaks.
std::optional<MachinePeaks> MeasuredPeaks(int threads);

}  // namespace ntpb::bench
