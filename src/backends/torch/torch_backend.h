// The torch backend: every op run as PyTorch eager runs it, by ATen calls (libtorch, Debian's
// libtorch-dev): conv2d, linear, lstm, batch_norm, ... on ATen tensors in f32 or bf16, under
// inference mode, with ATen's own threads sized by --threads. It puts a framework in the same
// per-layer table as the libraries ntpbench drives itself (NTP's framework comparison): what
// PyTorch's dispatcher and its choices of kernels cost, layer by layer.
#pragma once

#include "ntpbench/backend.h"

namespace ntpb {

const Backend* TorchBackendInstance();

}  // namespace ntpb
