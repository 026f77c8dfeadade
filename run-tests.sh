#!/usr/bin/env bash
# Quick start, part 2: set up, build everything, and run the test suite (plain ctest: unit,
# integration and packaging tests; performance gates run with `ctest -L perf`), then the ONNX
# corpus exported by PyTorch, then the same for the minimal configuration, then the readers' fuzz
# tests. The torch and xnnpack backends (modules, loaded when a run uses them) are tested with
# every other backend.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --with-torch
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE "perf|onnx-corpus"
# 35 models from torch.onnx.export (torchvision's classifiers, a U-Net, RNNs, a small BERT),
# exported and checked against PyTorch's outputs: about a minute.
ctest --test-dir build --output-on-failure -L onnx-corpus
# The core alone: oneDNN, torch, XNNPACK, ONNX and PAPI left out (NTPBENCH_WITH_*=OFF), as on a machine
# without them; their tests skip with the reason, everything else must pass.
cmake -S . -B build-minimal -DCMAKE_BUILD_TYPE=Release -DNTPBENCH_WITH_ONEDNN=OFF \
  -DNTPBENCH_WITH_TORCH=OFF -DNTPBENCH_WITH_XNNPACK=OFF -DNTPBENCH_WITH_ONNX=OFF -DNTPBENCH_WITH_PAPI=OFF >/dev/null
cmake --build build-minimal -j"$(nproc)"
ctest --test-dir build-minimal --output-on-failure -j"$(nproc)" -LE perf
# The topology readers under libFuzzer with ASan and UBSan (clang): `ctest -L fuzz`, each
# reader for NTPBENCH_FUZZ_SECONDS (60) from the shipped topologies and the ONNX test models.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DNTPBENCH_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)"
ctest --test-dir build-fuzz --output-on-failure -j"$(nproc)" -L fuzz
