// The torch backend: every op run as PyTorch eager runs it, by ATen calls (libtorch, Debian's
// libtorch-dev): conv2d, linear, lstm, batch_norm, ... on ATen tensors in f32 or bf16, under
// inference mode, with ATen's own threads sized by --threads. It puts a framework in the same
// per-layer table as the libraries ntpbench drives itself (NTP's framework comparison): what
// PyTorch's dispatcher and its choices of kernels cost, layer by layer.
//
// It is built as a module, libntpbench_torch.so (module_backend.h), loaded the first time a run
// uses it: src/backends/torch/ is the module, torch_loader.cc what the library holds of it.
#pragma once

#include <vector>

#include "ntpbench/backend.h"

namespace ntpb {

// The backend as the registry lists it (null where the build left torch out); the module is
// loaded on first use.
const Backend* TorchBackendInstance();

// Its options, known to the library without loading the module.
std::vector<BackendOption> TorchBackendOptions();

}  // namespace ntpb
