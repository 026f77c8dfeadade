// Naive loop implementations of every op: the reference the Eigen backend is tested against.
// Written for obviousness, one output element at a time; no Eigen.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/resolve.h"

namespace ntpb::testing {

using Values = std::vector<float>;

// Computes the output of `layer` from its inputs and weights (in layer.weights order).
Values NaiveOp(const ResolvedLayer& layer, const std::vector<Values>& inputs,
               const std::vector<Values>& weights);

}  // namespace ntpb::testing
