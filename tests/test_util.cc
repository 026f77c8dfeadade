#include "tests/test_util.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "ntpbench/counters.h"
#include "ntpbench/json_format.h"

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
