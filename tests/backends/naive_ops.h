// Naive loop implementations of every op: the reference the Eigen backend is tested against.
// Written for obviousness, one output element at a time; no Eigen.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/resolve.h"

namespace ntpb::testing {

using Values = std::vector<float>;

// Computes the output of `layer` from its inputs and weights (in layer.weights order).
// CTC by enumeration, for tiny T and C: every one of C^T paths' probability (the product of its
// frames' `probs`, [T, C]) summed into the label sequence it collapses to; the most probable
// (ties: the shorter). `probability` gets its sum.
std::vector<int> NaiveCtcBest(const std::vector<double>& probs, int64_t frames, int64_t classes,
                              int64_t blank, double* probability = nullptr);

// `output`: which of the layer's outputs (lstm's 1: the final cell state).
Values NaiveOp(const ResolvedLayer& layer, const std::vector<Values>& inputs,
               const std::vector<Values>& weights, size_t output = 0);

}  // namespace ntpb::testing
