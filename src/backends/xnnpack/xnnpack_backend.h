// The xnnpack backend: the operators of XNNPACK (Debian's libxnnpack-dev), the CPU engine under
// TensorFlow Lite and PyTorch Mobile, created once per layer at compile time and run per step
// with XNNPACK's own thread pool (pthreadpool, sized by --threads). Convolutions and pooling run
// in NHWC, as XNNPACK wants: the NCHW <-> NHWC conversions around them are steps of their own
// ("reorder" inlays, as on oneDNN). A convolution absorbs the batchnorm after it (folded into
// its weights, as TFLite's converter does) and a relu or clipped relu (XNNPACK's output clamp).
//
// XNNPACK is an engine of a fixed set of operators: a topology with a layer it has no operator
// for (an LSTM, an attention) is refused with the layer named, and runs with
// `--backend hetero --place default=xnnpack,fallback=onednn` (those layers elsewhere, as TFLite
// leaves the nodes its XNNPACK delegate does not take to its own kernels).
//
// Built as a module, libntpbench_xnnpack.so (module_backend.h): src/backends/xnnpack/ is the
// module, xnnpack_loader.cc what the library holds of it.
#pragma once

#include "ntpbench/backend.h"

namespace ntpb {

// The backend as the registry lists it (null where the build left XNNPACK out).
const Backend* XnnpackBackendInstance();

}  // namespace ntpb
