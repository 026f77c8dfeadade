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

// Rows in execution order (a's; b's own steps where a has none). Time and memory grow about
// linearly with the steps: the op-and-shape matching is a longest common subsequence where the
// unmatched steps' table stays small (kExactAlignmentCells), else a greedy match within a window.
std::vector<AlignedSteps> AlignSteps(const RunMeasurement& a, const RunMeasurement& b);

// Beyond this many cells (unmatched steps of a x of b) the op-and-shape matching is greedy: two
// 60,000-step run files would need a 3.6e9-cell table.
constexpr long long kExactAlignmentCells = 4'000'000;

// An alignment indexed by a's steps: what faces a group of the reference's steps in b (a third
// run aligned with the same reference, whose rows may group the reference's steps otherwise),
// found in time linear in the steps asked for.
class StepsFacingIndex {
 public:
  explicit StepsFacingIndex(const std::vector<AlignedSteps>& alignment);
  // b's steps in the rows that hold any of `a_steps`, in row order.
  std::vector<int> StepsFacing(const std::vector<int>& a_steps) const;

 private:
  const std::vector<AlignedSteps>* alignment_;
  std::vector<int> row_of_a_;  // a's step -> its row, -1 where none
};

}  // namespace ntpb::report
