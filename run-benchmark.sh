#!/usr/bin/env bash
# Quick start, part 1: set up, build, and benchmark DeepSpeech on the Eigen reference backend.
# Extra arguments go to `ntpbench run` (e.g. --batch 1,4 --set n_hidden=1024).
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target ntpbench_cli
./build/ntpbench run topologies/deepspeech.json --backend eigen "$@"
