// What a benchmark instance runs with besides the machine: its params, seed, threads and backend
// options. One place makes the benchmark's name from them, so two runs that differ in any of them
// never share a name (nor a baseline entry), and records them in the JSON context.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/expression.h"
#include "ntpbench/ntpbench.h"
#include "src/bench/run_settings.h"

namespace ntpb::bench {

// The params that override the file's defaults: Set(), then --ntpb_set (for the params the
// topology has; T always), then the family's `values` of the listed params.
ParamEnv ParamOverrides(const TopologyBenchmark& tb, const Topology& topology,
                        const ParamEnv& values);

// Every combination of the listed params' values (Values(), then --ntpb_set lists for the params
// the topology has), one family each; one empty combination when nothing is listed.
std::vector<ParamEnv> ValueCombinations(const TopologyBenchmark& tb, const Topology& topology);

// The run configuration of one instance: threads (--ntpb_threads over Threads()), seed
// (--ntpb_seed over Seed()), and the backend's options (--ntpb_backend_option over
// BackendOption(), then the backend's environment variables and defaults, resolved: every option
// has its value). Throws ntpb::Error naming an unknown option or value.
RunConfig ConfigFor(const TopologyBenchmark& tb, const std::string& backend, Precision precision);

// `<name>/<backend>/<precision>` followed by what the command line or the environment changed
// from the benchmark as registered (its file, Set, Seed, Threads, BackendOption), in this order:
// `/<param>:<value>` per param --ntpb_set changed or `values` lists, `/seed:<S>`, `/nthreads:<N>`,
// `/<option>:<value>` per backend option. So a run with other settings never shares a name (or a
// baseline entry) with the registered benchmark. Google Benchmark appends `/batch:<N>/real_time`.
std::string FamilyName(const TopologyBenchmark& tb, const Topology& topology,
                       const std::string& backend, Precision precision, const ParamEnv& values);

// The whole configuration, defaults included, for the JSON context: topology file, params with
// their values, seed, threads (effective), backend options.
nlohmann::json ConfigJson(const TopologyBenchmark& tb, const Topology& topology,
                          const std::string& backend, Precision precision, const ParamEnv& values);

}  // namespace ntpb::bench
