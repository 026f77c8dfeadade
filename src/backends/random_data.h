// Deterministic random weights and inputs, shared by every backend so that backends can be
// compared number for number. Each tensor's stream depends only on the seed and its name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ntpbench/resolve.h"

namespace ntpb {

// Values for one weight of `layer` (uniform in +-1/sqrt(fan_in); gamma near 1, variance in
// [0.5, 1.5], beta and means small).
std::vector<float> RandomWeight(uint64_t seed, const std::string& layer, const WeightSpec& spec);
// Values for a graph input, uniform in [-1, 1].
std::vector<float> RandomInput(uint64_t seed, const std::string& name, int64_t elements);

}  // namespace ntpb
