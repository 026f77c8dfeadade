// The Eigen f32 reference run of a topology, done once per process for each (topology, seed,
// threads): i8 calibration needs every tensor's range, and each lower-precision run's accuracy
// counters need the outputs. Sharing it saves a full f32 inference per use (a second or more
// for DeepSpeech, three times in a run of f32,bf16,i8).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/resolve.h"

namespace ntpb {

struct ReferenceRun {
  // Every graph input and layer output: its smallest and largest value.
  std::map<std::string, std::pair<float, float>> ranges;
  // The values of the graph outputs and of what stands for them in comparisons
  // (numeric_outputs.h: a decoder's input next to its labels).
  std::map<std::string, std::vector<float>> outputs;
};

// The reference run of `topology` with `config`'s seed and threads (its precision is ignored:
// the reference is f32). Computed on first use; later calls with the same topology and config
// get the same result. Throws ntpb::Error when the eigen backend cannot run the topology.
std::shared_ptr<const ReferenceRun> EigenReference(const ResolvedTopology& topology,
                                                   const RunConfig& config);

}  // namespace ntpb
