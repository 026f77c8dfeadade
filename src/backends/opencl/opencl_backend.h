// The OpenCL backend: every op on any OpenCL 1.2 device (PoCL's CPU device on these machines,
// a GPU's driver elsewhere). Tensors live in device buffers; a graph input arrives on the host
// and a graph output is wanted there, so their transfers are copy steps of the run, as are those
// around the inlays that run on the host (MFCC, the CTC beam search). Each step's device time
// comes from profiling events.
#pragma once

#include "ntpbench/backend.h"

namespace ntpb {

const Backend* OpenclBackendInstance();

}  // namespace ntpb
