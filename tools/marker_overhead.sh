#!/usr/bin/env bash
# End-to-end cost of instrumentation: DeepSpeech batch 1 with counters on every layer (per-layer
# regions, all counter sources) against the same run with time only. Target: within 2%.
# Usage: tools/marker_overhead.sh [build-dir] [repetitions]
set -euo pipefail
build=${1:-build}
reps=${2:-5}
topology="$(dirname "$0")/../topologies/deepspeech.json"
run() {
  "$build/ntpbench" run "$topology" --batch 1 --benchmark_repetitions="$reps" \
    --benchmark_min_time=1 --benchmark_format=json "$@" 2>/dev/null
}
median() {
  python3 -c 'import json,sys
d = json.load(sys.stdin)
print([b["real_time"] for b in d["benchmarks"] if b.get("aggregate_name") == "median"][0])'
}
# Sequential runs differ by +-10% on a shared VM; benchmarks/marker_overhead_suite.cc
# interleaves both in one process and is the better measurement.
plain=$(run | median)
counted=$(run --counters sde,perf,rusage,memory --layer-counters | median)
python3 - "$plain" "$counted" <<'PY'
import sys
plain, counted = map(float, sys.argv[1:])
print(f"deepspeech b1 median, time only:                {plain:9.3f} ms")
print(f"deepspeech b1 median, all counters every layer: {counted:9.3f} ms")
print(f"overhead: {100 * (counted - plain) / plain:+.2f}% (target within 2%)")
PY
