// Where a lower precision loses accuracy: a run's outputs, its logits (the input of a final
// softmax) and each step's output against the Eigen f32 reference with the same weights and
// inputs, and a classifier's top-1 agreement and top-5 overlap over many seeded inputs.
#pragma once

#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/resolve.h"
#include "ntpbench/results.h"

namespace ntpb::bench {

// Inputs used for the top-1 agreement: enough seeded inputs for this many predictions (rows of
// the output's class axis) and at least min_inputs (one utterance's frames are not independent),
// at most max_inputs, and no new input after `seconds`.
struct AccuracyBudget {
  int64_t predictions = 64;
  int64_t min_inputs = 4;
  int64_t max_inputs = 64;
  double seconds = 10;
};

// Measures `executable` (compiled for `config`, of `topology`) against a fresh Eigen f32 run:
// step by step on the first input (each step's output error into `step_errors`, indexed as
// executable.steps(); -1 where not measured), then end to end on further seeded inputs (the
// run's own inputs only, when the run was given them). Leaves the executable's inputs as they
// were. Throws ntpb::Error when the eigen backend cannot run the topology.
OutputAccuracy MeasureAccuracy(const ResolvedTopology& topology, Executable& executable,
                               const RunConfig& config, std::vector<double>* step_errors,
                               const AccuracyBudget& budget = {});

// ||actual - reference|| / ||reference|| (infinity with a NaN, or when the reference is all zeros
// and the actual is not).
double RmsRelativeError(const std::vector<float>& actual, const std::vector<float>& reference);

}  // namespace ntpb::bench
