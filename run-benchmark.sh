#!/usr/bin/env bash
# Quick start, part 1: set up, build, and benchmark DeepSpeech on the oneDNN backend in f32, bf16
# and i8 (each with its per-layer table; bf16 and i8 also with their accuracy against Eigen f32).
# Extra arguments go to `ntpbench run` and override these (e.g. --backend eigen, --batch 1,4,
# --set n_hidden=1024).
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target ntpbench_cli
./build/ntpbench run topologies/deepspeech.json --backend onednn --precision f32,bf16,i8 "$@"
