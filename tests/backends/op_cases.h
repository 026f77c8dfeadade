// Small cases of every op, shared by the backends' tests (each backend against the naive loops
// or against the Eigen reference).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "ntpbench/shape.h"

namespace ntpb::testing {

struct OpCase {
  std::string label;
  std::string op;
  std::vector<Shape> inputs;
  nlohmann::json attrs;
};

inline std::ostream& operator<<(std::ostream& os, const OpCase& c) { return os << c.label; }

const std::vector<OpCase>& OpCases();

}  // namespace ntpb::testing
