// The oneDNN backend: every op on oneDNN primitives (Debian's libdnnl 2.6), layouts chosen by
// the primitives, weights reordered once at compile time, activations fused as post-ops.
#pragma once

#include "ntpbench/backend.h"

namespace ntpb {

const Backend* OnednnBackendInstance();

}  // namespace ntpb
