#!/usr/bin/env bash
# Quick start, part 2: set up, build everything, and run the test suite (plain ctest: unit,
# integration and packaging tests; performance gates run with `ctest -L perf`).
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE perf
