// `ntpbench run --check-output NAME=FILE`: the model's outputs on each backend and precision,
// given its stored inputs (--input), against stored outputs (the ONNX test-data layout's
// output_0.pb, or .npy), before anything is benchmarked.
#pragma once

#include <cstdio>

#include "ntpbench/topology.h"
#include "src/cli/topology_options.h"

namespace ntpb {
class TopologyBenchmark;
}

namespace ntpb::cli {

// One line per output, backend and precision: the norm-wise relative error (max |diff| over
// max |expected|) and the cosine similarity against the file, and whether it is within
// o.check_tolerance. Returns false when any is not. Throws ntpb::Error naming the option or the
// file (an unknown output, a file of another shape).
bool CheckOutputs(const TopologyBenchmark& tb, const Topology& topology, const TopologyOptions& o,
                  std::FILE* out);

}  // namespace ntpb::cli
