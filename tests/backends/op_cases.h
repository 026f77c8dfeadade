// Small cases of every op, shared by the backends' tests (each backend against the naive loops
// or against the Eigen reference).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "ntpbench/shape.h"
#include "ntpbench/topology.h"

namespace ntpb::testing {

struct OpCase {
  std::string label;
  std::string op;
  std::vector<Shape> inputs;
  nlohmann::json attrs;
  // The op is defined for x >= 0 only (sqrt, fractional powers): its inputs are squared first,
  // by a pow layer in front of it ("x0" -> "x0.squared" -> op -> "y").
  bool nonnegative_inputs = false;
  // Inputs that hold integers (ids, conditions, values compared for equality), by index.
  std::map<int, IntegerRange> integer_inputs = {};
  // How many outputs the layer lists (lstm's second: its final cell state).
  int outputs = 1;
};

// The case's output tensors: y, then y_1, y_2, ... for the further outputs.
std::vector<std::string> OpCaseOutputs(const OpCase& c);

// The case as a topology: its op as the last layer, reading x0, x1, ... and writing y (and
// y_1, ...: OpCaseOutputs).
Topology OpCaseTopology(const OpCase& c);

inline std::ostream& operator<<(std::ostream& os, const OpCase& c) { return os << c.label; }

const std::vector<OpCase>& OpCases();

// Every shipped topology at sizes small enough for tensor-by-tensor checks.
struct TopologyCase {
  std::string file;
  std::map<std::string, int64_t> params;
  std::string variant = "";  // tells apart cases of one file (the test name's suffix)
  // The largest relative error of a tensor in i8 against the f32 reference, as a multiple of the
  // backend's usual bound (which depends on the CPU's integer path), with the reason in the list.
  double i8_error_factor = 1;
};

inline std::ostream& operator<<(std::ostream& os, const TopologyCase& c) { return os << c.file; }

const std::vector<TopologyCase>& ShippedTopologyCases();
// "tiny_cnn.json" -> "tiny_cnn", for test names.
inline std::string TopologyCaseName(const TopologyCase& c) {
  return c.file.substr(0, c.file.find('.')) + (c.variant.empty() ? "" : "_" + c.variant);
}

}  // namespace ntpb::testing
