#include "tests/test_util.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "ntpbench/counters.h"
#include "ntpbench/json_format.h"
#include "src/bench/step_description.h"

namespace ntpb::testing {

std::string TestDir() {
  struct Dir {
    std::string path;
    Dir() {
      std::string pattern = ::testing::TempDir();
      if (pattern.empty() || pattern.back() != '/') pattern += '/';
      pattern += "ntpb_test_XXXXXX";
      if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make " + pattern);
      path = pattern;
    }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}

std::string MissingPath(const std::string& name) { return TestDir() + "/missing/" + name; }

Topology SingleLayer(const std::string& op, const std::vector<Shape>& inputs,
                     const nlohmann::json& attrs) {
  Topology t;
  t.name = "single_" + op;
  t.file = "<" + op + " test>";
  Layer l;
  l.name = "layer";
  l.op = op;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorDecl d{"x" + std::to_string(i), {}, std::nullopt};
    for (int64_t dim : inputs[i]) d.shape.push_back(std::to_string(dim));
    t.inputs.push_back(d);
    l.inputs.push_back(d.name);
  }
  l.outputs = {"y"};
  l.attrs = attrs.is_null() ? nlohmann::json::object() : attrs;
  t.layers = {l};
  t.outputs = {"y"};
  return t;
}

RunMeasurement DescribedLikeARun(const ResolvedTopology& t, const TopologyAnalysis& a,
                                 RunMeasurement measured, Precision precision,
                                 const MachinePeaks* peaks) {
  RunMeasurement m = measured;
  m.steps.clear();
  m.net.params = static_cast<double>(a.total.params);
  m.memory.weight_bytes = static_cast<double>(a.total.weight_bytes);
  m.memory.peak_activation_bytes = static_cast<double>(a.peak_activation_bytes);
  std::vector<int> step_of_layer(t.layers.size(), -1);
  for (int i = 0; i < static_cast<int>(t.layers.size());) {
    for (const StepMeasure& s : measured.steps) {
      if (s.kind != StepKind::kInlay || s.feeds != i) continue;
      StepInfo info;
      info.name = s.name;
      info.op = s.inlay_op;
      info.inlay = true;
      info.feeds = i;
      StepMeasure& inlay = m.steps.emplace_back();
      bench::DescribeStep(t, a, info, precision, peaks, &inlay);
      inlay.measure = s.measure;
    }
    const StepMeasure* own = measured.FindStep(t.layers[i].name);
    StepInfo info;
    info.name = t.layers[i].name;
    info.op = t.layers[i].op;
    info.layer = i;
    info.fused = own ? std::min(own->fused_layers, static_cast<int>(t.layers.size()) - 1 - i) : 0;
    StepMeasure& step = m.steps.emplace_back();
    bench::DescribeStep(t, a, info, precision, peaks, &step);
    if (own) {
      step.measure = own->measure;
      step.rms_rel_err = own->rms_rel_err;
    }
    for (int k = i; k <= i + info.fused; ++k)
      step_of_layer[k] = static_cast<int>(m.steps.size()) - 1;
    i += info.fused + 1;
  }
  for (const MarkerAnalysis& marker : a.markers) {
    MarkerMeasure placed;
    placed.name = marker.name;
    if (const MarkerMeasure* mk = measured.FindMarker(marker.name)) placed.measure = mk->measure;
    placed.first_step = step_of_layer[marker.first];
    placed.last_step = step_of_layer[marker.last];
    m.markers.erase(std::remove_if(m.markers.begin(), m.markers.end(),
                                   [&](const MarkerMeasure& x) { return x.name == marker.name; }),
                    m.markers.end());
    m.markers.push_back(placed);
  }
  return m;
}

std::string SourcePath(const std::string& relative) {
  return std::string(NTPBENCH_SOURCE_DIR) + "/" + relative;
}

double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) throw std::runtime_error("size mismatch");
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double err = std::abs(double{a[i]} - b[i]) / std::max(1.0, std::abs(double{b[i]}));
    worst = std::max(worst, std::isnan(err) ? 1e30 : err);
  }
  return worst;
}

std::string CounterUnavailableReason(const std::string& counter) {
  const std::unique_ptr<CounterSet> set = CounterSet::Create({counter});
  return set->notes().empty() ? "" : set->notes()[0].reason;
}

Support BackendSupportFor(const std::string& backend, Precision precision) {
  if (!FindBackend(backend)) return {false, BackendUnavailableReason(backend)};
  RunConfig config;
  config.precision = precision;
  return FindBackend(backend)->Supports(
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {}), config);
}

}  // namespace ntpb::testing
