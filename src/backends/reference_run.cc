#include "src/backends/reference_run.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <sstream>

#include "ntpbench/error.h"
#include "src/topology/numeric_outputs.h"

namespace ntpb {
namespace {

// Everything the reference's numbers depend on: the layers with their attributes and weights
// (shapes, and a sample of the source's values), the inputs, the seed and the threads.
std::string Fingerprint(const ResolvedTopology& t, const RunConfig& config) {
  std::ostringstream key;
  key << t.file << '|' << t.name << '|' << config.seed << '|' << EffectiveThreads(config);
  for (const auto& [name, shape] : t.inputs) key << "|in " << name << ShapeToString(shape);
  for (const auto& [name, values] : config.inputs) {
    key << "|given " << name << ' ' << values.size() << ':';
    const size_t step = std::max<size_t>(1, values.size() / 4096);
    for (size_t i = 0; i < values.size(); i += step) key << values[i] << ',';
  }
  for (const ResolvedLayer& l : t.layers) {
    key << "|" << l.name << ' ' << l.op << ' ' << l.attrs.json().dump();
    for (const std::string& in : l.inputs) key << " <" << in;
    for (const std::string& out : l.outputs) key << " >" << out;
    for (const Shape& s : l.output_shapes) key << ShapeToString(s);
    for (const WeightSpec& w : l.weights) key << " w" << ShapeToString(w.shape);
    for (const auto& v : l.weight_values) {
      if (!v) continue;
      // The source's values: their count and a sample of 4096 of them (cheap next to a run).
      key << " v" << v->size() << ':';
      const size_t step = std::max<size_t>(1, v->size() / 4096);
      for (size_t i = 0; i < v->size(); i += step) key << (*v)[i] << ',';
    }
  }
  for (const std::string& out : t.outputs) key << "|out " << out;
  return key.str();
}

std::shared_ptr<const ReferenceRun> Compute(const ResolvedTopology& t, RunConfig config) {
  config.precision = Precision::kF32;
  const Backend* eigen = FindBackend("eigen");
  if (!eigen) throw Error(t.file, "", "backend", "the eigen reference backend is not built");
  const std::unique_ptr<Executable> exe = eigen->Compile(t, config);
  exe->Run();
  auto run = std::make_shared<ReferenceRun>();
  auto measure = [&](const std::string& tensor) {
    const std::vector<float> v = exe->ReadTensor(tensor);
    if (v.empty()) return;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    run->ranges[tensor] = {*lo, *hi};
  };
  for (const auto& input : t.inputs) measure(input.first);
  for (const ResolvedLayer& l : t.layers) {
    for (const std::string& out : l.outputs) measure(out);
  }
  for (const std::string& out : t.outputs) run->outputs[out] = exe->ReadTensor(out);
  for (const std::string& out : NumericOutputs(t)) run->outputs[out] = exe->ReadTensor(out);
  return run;
}

}  // namespace

std::shared_ptr<const ReferenceRun> EigenReference(const ResolvedTopology& topology,
                                                   const RunConfig& config) {
  // A few recent runs: a benchmark program runs each topology's precisions one after another.
  constexpr size_t kKept = 4;
  static std::mutex mutex;
  static std::deque<std::pair<std::string, std::shared_ptr<const ReferenceRun>>> cache;
  const std::string key = Fingerprint(topology, config);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [k, run] : cache) {
      if (k == key) return run;
    }
  }
  std::shared_ptr<const ReferenceRun> run = Compute(topology, config);
  const std::lock_guard<std::mutex> lock(mutex);
  cache.emplace_back(key, run);
  if (cache.size() > kKept) cache.pop_front();
  return run;
}

}  // namespace ntpb
