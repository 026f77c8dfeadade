// The Eigen reference backend: every op in f32, written to be obviously right; the numerical
// oracle the other backends are checked against.
#pragma once

#include "ntpbench/backend.h"

namespace ntpb {

const Backend* EigenBackendInstance();

}  // namespace ntpb
