#!/usr/bin/env bash
# The same topology on several backends (libraries and frameworks: onednn, torch, xnnpack),
# each run in its own process, the backends alternating in a rotated order round by round so each
# sees the same moments of a shared machine. Prints, per topology, each backend's median p50
# latency over the rounds with its range, and its ratio to the first backend. Progress on stderr.
#
# Usage: tools/compare_frameworks.sh [BUILD (build)] [ROUNDS (3)] [MIN_TIME_S (1)]
#   TOPOLOGIES="resnet50 mlp" narrows the topologies (default: resnet50 mobilenet_v2 mlp deepspeech).
#   BACKENDS="onednn torch xnnpack" the backends, the first the reference. A backend that cannot
#   run a topology whole (xnnpack has no LSTM) runs it as `hetero --place default=B,fallback=F`,
#   F the first backend; such rows say "(+F)".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
rounds="${2:-3}"
min_time="${3:-1}"
cli="$build/ntpbench"
topologies=(${TOPOLOGIES:-resnet50 mobilenet_v2 mlp deepspeech})
backends=(${BACKENDS:-onednn torch xnnpack})
results="$(mktemp)"
trap 'rm -f "$results"' EXIT

# The p50 latency (ms) of one run, or "refused" with the reason on stderr.
p50_of() {
  local topology="$1" backend="$2"
  shift 2
  "$cli" run "$root/topologies/$topology.json" --backend "$backend" "$@" --batch 1 \
    --benchmark_min_time="$min_time" --benchmark_format=json 2>/dev/null |
    python3 -c '
import json, sys
b = json.load(sys.stdin)["benchmarks"][0]
if b.get("error_occurred"):
    print("refused", b.get("error_message", "")); sys.exit(0)
print(b.get("net.p50_ms", b["real_time"]))'
}

total=$(( ${#topologies[@]} * ${#backends[@]} * rounds ))
done_runs=0
start=$(date +%s)
for t in "${topologies[@]}"; do
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#backends[@]}; i++)); do
      b="${backends[$(( (i + r) % ${#backends[@]} ))]}"
      got="$(p50_of "$t" "$b")"
      label="$b"
      if [[ "$got" == refused* ]]; then
        got="$(p50_of "$t" hetero --place "default=$b,fallback=${backends[0]}")"
        label="$b(+${backends[0]})"
      fi
      echo "$t $label $got" >>"$results"
      done_runs=$((done_runs + 1))
      elapsed=$(( $(date +%s) - start ))
      echo "[$done_runs/$total] $t $label: $got ms (ETA $(( elapsed * (total - done_runs) / done_runs )) s)" >&2
    done
  done
done

python3 - "$results" "${backends[0]}" <<'PY'
import collections, statistics, sys
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    t, b, ms = line.split()[:3]
    if ms == "refused":
        continue
    rows.setdefault(t, collections.OrderedDict()).setdefault(b, []).append(float(ms))
print(f"{'topology':<14} {'backend':<18} {'p50 ms (median)':>16} {'range':>19} {'ratio':>7}")
for t, per in rows.items():
    ref = statistics.median(per[sys.argv[2]]) if sys.argv[2] in per else None
    for b, v in per.items():
        m = statistics.median(v)
        ratio = f"{m / ref:.2f}" if ref else "-"
        print(f"{t:<14} {b:<18} {m:>16.3f} {min(v):>9.3f}..{max(v):<9.3f} {ratio:>7}")
PY
