// Latency thresholds from measured noise: a benchmark whose median moves 20% between two runs of
// unchanged code cannot be gated at 5% on this machine. The baseline update runs the suite
// several times (sessions) and raises each benchmark's threshold to `factor` times the largest
// change the gate would have seen between the first session and the others.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ntpbench/baseline.h"

namespace ntpb {

struct NoiseThreshold {
  double noise = 0;      // largest relative change seen between sessions (suite-relative)
  double threshold = 0;  // max(default, factor * noise), rounded up to whole percent, <= 1
};

// sessions[0] is the run that becomes the baseline. Only benchmarks in every session count.
std::map<std::string, NoiseThreshold> DeriveNoiseThresholds(const std::vector<RunResults>& sessions,
                                                            double default_threshold,
                                                            double factor = 1.25,
                                                            int min_references = 3);

}  // namespace ntpb
