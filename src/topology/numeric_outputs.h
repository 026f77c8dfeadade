// What stands for a topology's outputs when two runs' numbers are compared (a lower precision's
// accuracy against the f32 reference, backend equivalence tests): each graph output, except that
// an op with a discrete output (a CTC decoder's labels) is represented by its first input (the
// probabilities it chose from). Labels flip wherever two prefixes tie within rounding, so
// comparing them would report a near-perfect i8 network as wrong.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/resolve.h"

namespace ntpb {

// The tensor compared in place of `tensor`: the first input of the op producing it when that op
// has a discrete output (repeated, through a chain of them), else `tensor` itself.
std::string NumericStandIn(const ResolvedTopology& topology, const std::string& tensor);

// NumericStandIn of each graph output, in the outputs' order, without repeats.
std::vector<std::string> NumericOutputs(const ResolvedTopology& topology);

}  // namespace ntpb
