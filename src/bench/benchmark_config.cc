#include "src/bench/benchmark_config.h"

#include <optional>

#include "ntpbench/machine_peaks.h"
#include "src/backends/hetero/hetero_backend.h"
#include "src/bench/run_settings.h"

namespace ntpb::bench {
namespace {

// Options given as "<backend>.<option>" that belong to `backend`.
void AddOptionsOf(const std::string& backend, const std::map<std::string, std::string>& qualified,
                  std::map<std::string, std::string>* into) {
  const std::string prefix = backend + ".";
  for (const auto& [name, value] : qualified) {
    if (name.rfind(prefix, 0) == 0) (*into)[name.substr(prefix.size())] = value;
  }
}

}  // namespace

ParamEnv ParamOverrides(const TopologyBenchmark& tb, const Topology& topology,
                        const ParamEnv& values) {
  ParamEnv env = tb.params();
  for (const auto& [k, v] : tb.settings().sets) {
    if (k == "T" || topology.params.count(k)) env[k] = v;
  }
  for (const auto& [k, v] : values) env[k] = v;
  return env;
}

std::vector<ParamEnv> ValueCombinations(const TopologyBenchmark& tb, const Topology& topology) {
  ParamLists lists = tb.values();
  for (const auto& [k, v] : tb.settings().set_lists) {
    if (k == "T" || topology.params.count(k)) lists[k] = v;
  }
  std::vector<ParamEnv> combinations = {{}};
  for (const auto& [param, values] : lists) {
    std::vector<ParamEnv> next;
    for (const ParamEnv& c : combinations) {
      for (const int64_t v : values) {
        next.push_back(c);
        next.back()[param] = v;
      }
    }
    combinations = std::move(next);
  }
  return combinations;
}

RunConfig ConfigFor(const TopologyBenchmark& tb, const std::string& backend, Precision precision) {
  RunConfig config;
  config.precision = precision;
  config.threads = tb.settings().threads >= 0 ? tb.settings().threads : tb.threads();
  config.seed = tb.settings().seed >= 0 ? static_cast<uint64_t>(tb.settings().seed) : tb.seed();
  config.inputs = tb.settings().inputs;
  // The cache the reads showed, where `ntpbench machine` measured this thread count.
  if (const std::optional<MachinePeaks>& peaks = tb.settings().peaks;
      peaks && peaks->threads == EffectiveThreads(config)) {
    config.last_level_cache_bytes = peaks->cache_bytes;
    config.f32_ridge_flops_per_byte = peaks->RidgeFlopsPerByte("f32");
  }
  if (const Backend* b = FindBackend(backend)) {
    if (b->HasDevices()) config.device = tb.settings().device;
    if (b->UsesPlacement()) config.placement = tb.settings().placement;
  }
  std::map<std::string, std::string> asked;
  AddOptionsOf(backend, tb.backend_options(), &asked);
  AddOptionsOf(backend, tb.settings().backend_options, &asked);
  config.options = asked;
  if (const Backend* b = FindBackend(backend)) config.options = BackendOptionValues(*b, config);
  return config;
}

std::string FamilyName(const TopologyBenchmark& tb, const Topology& topology,
                       const std::string& backend, Precision precision, const ParamEnv& values) {
  // The registration (the macro's Set, Seed, Threads, BackendOption) defines the benchmark; what
  // the command line or the environment changes from it is named, and a listed value always.
  std::string name = tb.name() + "/" + backend + "/" + PrecisionName(precision);
  ParamEnv named = tb.settings().sets;
  for (const auto& [param, value] : values) named[param] = value;
  for (const auto& [param, value] : named) {
    if (param == "N" || !(param == "T" || topology.params.count(param))) continue;
    if (values.count(param)) {
      name += "/" + param + ":" + std::to_string(value);
      continue;
    }
    auto defined = tb.params().find(param);
    auto in_file = topology.params.find(param);
    const bool same = defined != tb.params().end()
                          ? defined->second == value
                          : in_file != topology.params.end() && in_file->second == value;
    if (!same) name += "/" + param + ":" + std::to_string(value);
  }
  const RunConfig config = ConfigFor(tb, backend, precision);
  if (config.seed != tb.seed()) name += "/seed:" + std::to_string(config.seed);
  if (config.threads != tb.threads()) name += "/nthreads:" + std::to_string(config.threads);
  if (!config.device.empty()) name += "/device:" + config.device;
  if (!config.placement.empty()) name += "/place:" + PlacementText(config.placement);
  if (const Backend* b = FindBackend(backend)) {
    std::map<std::string, std::string> registered;  // BackendOption() of the registration
    AddOptionsOf(backend, tb.backend_options(), &registered);
    for (const BackendOption& o : b->Options()) {
      auto it = registered.find(o.name);
      const std::string& defined = it != registered.end() ? it->second : o.values.front();
      const std::string& value = config.options.at(o.name);
      if (value != defined) name += "/" + o.name + ":" + value;
    }
  }
  return name;
}

nlohmann::json ConfigJson(const TopologyBenchmark& tb, const Topology& topology,
                          const std::string& backend, Precision precision, const ParamEnv& values) {
  const RunConfig config = ConfigFor(tb, backend, precision);
  std::map<std::string, int64_t> params = topology.params;
  for (const auto& [param, value] : ParamOverrides(tb, topology, values)) params[param] = value;
  params.erase("N");
  nlohmann::json j = {{"topology", topology.file},
                      {"params", params},
                      {"seed", config.seed},
                      {"threads", EffectiveThreads(config)},
                      {"threads_set", config.threads > 0},
                      {"backend_options", config.options},
                      // Whether the backend sets aside the same memory on every machine (workspace,
                      // activation buffers, allocations per inference): the perf gate checks those
                      // exactly everywhere when it does, per machine class when it does not.
                      {"portable_memory_plan",
                       FindBackend(backend) ? FindBackend(backend)->MemoryPlanIsPortable() : true}};
  // Only where chosen: the configurations recorded before devices existed stay equal.
  if (!config.device.empty()) j["device"] = config.device;
  if (!config.placement.empty()) j["placement"] = PlacementText(config.placement);
  return j;
}

}  // namespace ntpb::bench
