// Deterministic random weights and inputs, shared by every backend so that backends can be
// compared number for number. Each tensor's stream depends only on the seed and its name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/resolve.h"

namespace ntpb {

// Values for one weight of `layer` (uniform in +-1/sqrt(fan_in); gamma near 1, variance in
// [0.5, 1.5], beta and means small).
std::vector<float> RandomWeight(uint64_t seed, const std::string& layer, const WeightSpec& spec);
// Values for a graph input, uniform in [-1, 1].
std::vector<float> RandomInput(uint64_t seed, const std::string& name, int64_t elements);
// Values for an input of integers (token ids), uniform over the range.
std::vector<float> RandomIntegers(uint64_t seed, const std::string& name, int64_t elements,
                                  const IntegerRange& range);
// A graph input's values: integers where the topology declares a range, else RandomInput.
std::vector<float> RandomGraphInput(uint64_t seed, const ResolvedTopology& t,
                                    const std::string& name, const Shape& shape);
// What a backend writes into a graph input at compile time: the run's given values
// (RunConfig::inputs; a wrong size is an ntpb::Error), else RandomGraphInput.
std::vector<float> GraphInputValues(const RunConfig& config, const ResolvedTopology& t,
                                    const std::string& name, const Shape& shape);

}  // namespace ntpb
