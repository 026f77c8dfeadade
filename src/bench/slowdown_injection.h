// Fault injection for validating the perf gate: --ntpb_inject_slowdown=LAYER:FACTOR makes every
// step of LAYER take FACTOR times as long (busy waiting after the real work). Never on by default.
#pragma once

#include <memory>
#include <string>

#include "ntpbench/backend.h"

namespace ntpb::bench {

// Wraps `inner` when `spec` ("fc2:1.15") names one of its steps; throws ntpb::Error on a bad spec.
std::unique_ptr<Executable> InjectSlowdown(std::unique_ptr<Executable> inner,
                                           const std::string& spec);

}  // namespace ntpb::bench
