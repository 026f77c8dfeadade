// The steps of two runs, aligned as a person would: by layer name where the names agree (a
// fused step of one run faces the steps of the other that compute its layers), else by op and
// output shape in execution order (two exports of one network name their layers differently);
// what remains is on one side only.
#pragma once

#include <vector>

#include "ntpbench/results.h"

namespace ntpb::report {

struct AlignedSteps {
  enum class By { kName, kOpShape, kOnlyA, kOnlyB };
  By by = By::kName;
  std::vector<int> a, b;  // indices into each run's steps, in execution order
};

// Rows in execution order (a's; b's own steps where a has none).
std::vector<AlignedSteps> AlignSteps(const RunMeasurement& a, const RunMeasurement& b);

// b's steps in the rows of `alignment` that hold any of `a_steps`: what faces them in b (a third
// run aligned with the same reference, whose rows may group the reference's steps otherwise).
std::vector<int> StepsFacing(const std::vector<AlignedSteps>& alignment,
                             const std::vector<int>& a_steps);

}  // namespace ntpb::report
