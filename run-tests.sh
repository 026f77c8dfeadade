#!/usr/bin/env bash
# Quick start, part 2: set up, build everything, and run the test suite (plain ctest: unit,
# integration and packaging tests; performance gates run with `ctest -L perf`), then the
# readers' fuzz tests.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE perf
# The topology readers under libFuzzer with ASan and UBSan (clang): `ctest -L fuzz`, each
# reader for NTPBENCH_FUZZ_SECONDS (60) from the shipped topologies and the ONNX test models.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DNTPBENCH_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)"
ctest --test-dir build-fuzz --output-on-failure -j"$(nproc)" -L fuzz
