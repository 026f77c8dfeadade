// What every fusing backend agrees on (oneDNN's post-ops, XNNPACK's clamped outputs): which
// layer may join the step computing the layer before it, and a batchnorm folded into the
// convolution in front of it.
#pragma once

#include <vector>

#include "ntpbench/analysis.h"
#include "ntpbench/resolve.h"

namespace ntpb {

// Whether layers[j] may join the step that computes layers[j - 1]: it reads that output as its
// only input (`residual`: as one operand of an add of two same-shaped tensors), that output has
// no other reader and is not a graph output, and no marker boundary lies between them, so a
// marker still times exactly its layers.
bool JoinsPreviousStep(const ResolvedTopology& t, const TensorUses& uses, int j,
                       bool residual = false);

// Folds an inference batchnorm (scale, shift, mean, variance; epsilon) into the weights of the
// conv in front of it (output channel outermost) and its bias (empty: none yet).
void FoldBatchnorm(const std::vector<std::vector<float>>& bn, double epsilon,
                   std::vector<float>* weights, std::vector<float>* bias);

}  // namespace ntpb
