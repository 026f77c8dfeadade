// Registering topology benchmarks with Google Benchmark.
//
//   NTPB_TOPOLOGY_BENCHMARK(deepspeech, "topologies/deepspeech.json")
//       ->Backends({"eigen"})->Batches({1, 4})->Precisions({ntpb::f32})
//       ->Set("T", 100)->Markers({{"fc1_3", "fc1", "fc3"}});
//
// Each (backend, precision) becomes one Google Benchmark family named
// `<name>/<backend>/<precision>` with the batch as its argument, so instances read
// `deepspeech/eigen/f32/batch:4` and every --benchmark_* flag works as usual. Whatever else
// changes what is measured is part of the name when it differs from the default: params set
// (`/T:100`), seed (`/seed:7`), threads (`/nthreads:1`), backend options (`/fusion:off`).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ntpbench/expression.h"
#include "ntpbench/precision.h"
#include "ntpbench/scenario.h"
#include "ntpbench/topology.h"

namespace benchmark::internal {
class Benchmark;
}
namespace ntpb::bench {
struct RunSettings;  // src/bench/run_settings.h
}

namespace ntpb {

class TopologyBenchmark {
 public:
  // `path` is looked up as given, then under --ntpb_topology_dir / $NTPB_TOPOLOGY_DIR, then in
  // the folders above `source_file` (so suites/x.cc finds topologies/x.json of its project).
  TopologyBenchmark(std::string name, std::string path, std::string source_file = "");

  TopologyBenchmark* Backends(std::vector<std::string> backends);
  TopologyBenchmark* Batches(std::vector<int64_t> batches);
  TopologyBenchmark* Precisions(std::vector<Precision> precisions);
  // Overrides a param of the topology (n_hidden, T, ...). N comes from the batch.
  TopologyBenchmark* Set(const std::string& param, int64_t value);
  // Runs one family per value of a param, each named `/<param>:<value>`:
  // Values("n_hidden", {512, 1024, 2048}). Several Values run every combination.
  TopologyBenchmark* Values(const std::string& param, std::vector<int64_t> values);
  // Adds markers to those in the file.
  TopologyBenchmark* Markers(std::vector<Marker> markers);
  // OpenMP/Eigen threads for backends; 0 (the default) means one per core.
  TopologyBenchmark* Threads(int threads);
  TopologyBenchmark* Seed(uint64_t seed);
  // Sets an option of a backend, "<backend>.<option>" (`ntpbench --help` lists them): e.g.
  // BackendOption("onednn.fusion", "off"). A value other than the default is part of the name.
  TopologyBenchmark* BackendOption(const std::string& option, const std::string& value);
  // Adds a way queries arrive (scenario.h); with none, single-stream. Scenarios other than
  // single-stream run on each of Streams() concurrent streams (default {1}), the threads split
  // evenly between them (at least one each), and are their own families:
  // `<name>/<backend>/<precision>/offline/streams:2/batch:4`.
  TopologyBenchmark* Scenario(const ntpb::Scenario& scenario);
  TopologyBenchmark* Streams(std::vector<int64_t> streams);
  // Counter sources and PAPI events measured per marker, layer and net, on top of time:
  // "sde", "perf", "rusage", "memory", "PAPI_TOT_CYC", "perf::TASK-CLOCK", ... Joined with
  // --ntpb_counters (default $NTPB_COUNTERS).
  TopologyBenchmark* Counters(std::vector<std::string> counters);
  // What the command line changes from the registration (a suite's --ntpb_* flags, or
  // `ntpbench run`'s options); Initialize gives every registered benchmark the flags'.
  TopologyBenchmark* Settings(std::shared_ptr<const bench::RunSettings> settings);
  const bench::RunSettings& settings() const;

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  const std::vector<std::string>& backends() const { return backends_; }
  const std::vector<int64_t>& batches() const { return batches_; }
  // Scenario()'s, in order; {single-stream} when none was added.
  std::vector<ntpb::Scenario> scenarios() const;
  const std::vector<int64_t>& streams() const { return streams_; }
  const std::vector<Precision>& precisions() const { return precisions_; }
  const std::map<std::string, int64_t>& params() const { return params_; }
  const ParamLists& values() const { return values_; }
  const std::vector<Marker>& markers() const { return markers_; }
  int threads() const { return threads_; }
  uint64_t seed() const { return seed_; }
  const std::map<std::string, std::string>& backend_options() const { return backend_options_; }
  // This benchmark's counters joined with --ntpb_counters / $NTPB_COUNTERS.
  std::vector<std::string> EffectiveCounters() const;

  // Finds and reads the topology file and checks params and markers (throws ntpb::Error), then
  // registers its Google Benchmark families. Called by ntpb::Initialize for every macro.
  // Returns the topology's params with their defaults.
  std::map<std::string, int64_t> RegisterFamilies();

  // The Google Benchmark families RegisterFamilies made: their names and what each runs.
  struct Family {
    std::string name;  // e.g. "mlp/eigen/f32/n_hidden:256"
    std::string backend;
    Precision precision;
    ParamEnv values;  // this family's value of each listed param (Values, --ntpb_set lists)
    ntpb::Scenario scenario;
  };
  const std::vector<Family>& families() const { return families_; }

 private:
  void RegisterArgs(benchmark::internal::Benchmark* b, const ntpb::Scenario& scenario) const;

  std::string name_, path_, source_file_;
  std::string installed_data_dir_;  // RegisterTopologyBenchmark's data_dir
  friend TopologyBenchmark* RegisterTopologyBenchmark(const char*, const char*, const char*,
                                                      const char*);
  std::vector<std::string> backends_ = {"eigen"};
  std::vector<int64_t> batches_ = {1};
  std::vector<ntpb::Scenario> scenarios_;
  std::vector<int64_t> streams_ = {1};
  std::vector<Precision> precisions_ = {Precision::kF32};
  std::map<std::string, int64_t> params_;
  ParamLists values_;
  std::vector<Marker> markers_;
  int threads_ = 0;
  uint64_t seed_ = 42;
  std::map<std::string, std::string> backend_options_;
  std::vector<std::string> counters_;
  std::shared_ptr<const bench::RunSettings> settings_;
  std::vector<Family> families_;
};

// What NTPB_TOPOLOGY_BENCHMARK expands to; the object lives until the process ends. `data_dir`:
// where the installed ntpbench that the suite was built against keeps its shipped topologies
// (<prefix>/share/ntpbench, which find_package(ntpbench) passes as NTPB_INSTALLED_DATADIR,
// whatever prefix it was installed to); searched after the topology dir, before the folders
// above the suite's source.
TopologyBenchmark* RegisterTopologyBenchmark(const char* name, const char* path,
                                             const char* source_file, const char* data_dir = "");

// Strips and applies the --ntpb_* flags, registers every topology benchmark, then calls
// benchmark::Initialize. Prints each problem as one line and returns false on any.
bool Initialize(int* argc, char** argv);
// Adds ntpbench's entries to Google Benchmark's JSON context: version, threads (`threads` as
// --ntpb_threads: 0 is one per core) and each built-in backend with what it runs on. Called by
// Initialize.
// Probes the counter requests (printing what is unavailable, once) and registers the
// allocation MemoryManager when one asks for "memory". Throws ntpb::Error on a misspelled event.
// `backends_in_use`: the backends the registered families run on; a backend whose version would
// start a driver (OpenCL) is asked only when among them (or hetero is).
void AddBenchmarkContext(const std::vector<std::vector<std::string>>& counter_requests,
                         int threads = 0, const std::set<std::string>& backends_in_use = {});
// Initialize, then run the selected benchmarks with ntpbench's console reporter.
int Main(int argc, char** argv);

}  // namespace ntpb

#define NTPB_CONCAT_INNER(a, b) a##b
#define NTPB_CONCAT(a, b) NTPB_CONCAT_INNER(a, b)
#ifndef NTPB_INSTALLED_DATADIR
#define NTPB_INSTALLED_DATADIR ""
#endif
#define NTPB_TOPOLOGY_BENCHMARK(id, path)                                                        \
  [[maybe_unused]] static ::ntpb::TopologyBenchmark* const NTPB_CONCAT(ntpb_topology_benchmark_, \
                                                                       id) =                     \
      ::ntpb::RegisterTopologyBenchmark(#id, path, __FILE__, NTPB_INSTALLED_DATADIR)
#define NTPB_MAIN() \
  int main(int argc, char** argv) { return ::ntpb::Main(argc, argv); }
