#include "src/cli/output_check.h"

#include <algorithm>
#include <cmath>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/ntpbench.h"
#include "ntpbench/precision.h"
#include "ntpbench/resolve.h"
#include "ntpbench/tensor_file.h"
#include "src/bench/accuracy.h"
#include "src/bench/benchmark_config.h"

namespace ntpb::cli {

bool CheckOutputs(const TopologyBenchmark& tb, const Topology& topology, const TopologyOptions& o,
                  std::FILE* out) {
  ParamEnv env = o.sets;
  env["N"] = o.batches.front();
  const ResolvedTopology r = Resolve(topology, env);
  std::map<std::string, std::vector<float>> expected;
  for (const auto& [name, path] : o.check_outputs) {
    if (std::find(r.outputs.begin(), r.outputs.end(), name) == r.outputs.end()) {
      std::string names;
      for (const std::string& n : r.outputs) names += (names.empty() ? "" : ", ") + n;
      throw Error("", "", "--check-output",
                  "the topology has no output '" + name + "' (outputs: " + names + ")");
    }
    TensorValues t = ReadTensorFile(path);
    const Shape& shape = r.shapes.at(name);
    if (t.dims != shape) {
      throw Error(path, "", "--check-output",
                  "holds a " + ShapeToString(t.dims) + " tensor; output '" + name + "' is " +
                      ShapeToString(shape) + " at batch " + std::to_string(o.batches.front()) +
                      " (bind the sizes of the stored input with --batch and --set)");
    }
    expected[name] = std::move(t.values);
  }
  bool all_ok = true;
  for (const std::string& backend_name : o.backends) {
    const Backend* backend = FindBackend(backend_name);
    if (!backend) continue;  // named unavailable by the run's own checks
    for (const Precision precision : o.precisions) {
      const RunConfig config = bench::ConfigFor(tb, backend_name, precision);
      const Support support = backend->Supports(r, config);
      if (!support.ok) {
        std::fprintf(out, "check-output %s %s: skipped (%s)\n", backend_name.c_str(),
                     PrecisionName(precision), support.reason.c_str());
        continue;
      }
      auto exe = backend->Compile(r, config);
      exe->Run();
      exe->Wait();
      for (const auto& [name, want] : expected) {
        const AccuracyDelta a = CompareOutputs(exe->ReadTensor(name), want);
        const bool ok = a.norm_rel_err <= o.check_tolerance;
        all_ok = all_ok && ok;
        std::fprintf(out,
                     "check-output %s %s output '%s': relative error %.2e, cosine %.6f "
                     "(tolerance %.1e): %s\n",
                     backend_name.c_str(), PrecisionName(precision), name.c_str(), a.norm_rel_err,
                     a.cosine, o.check_tolerance, ok ? "ok" : "BEYOND TOLERANCE");
      }
    }
  }
  return all_ok;
}

}  // namespace ntpb::cli
