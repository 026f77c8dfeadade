#!/usr/bin/env bash
# Before/after timing of two ntpbench builds: `ntpbench run` of each shipped topology on each
# backend, the two builds alternating A B B A ... round by round so both see the same moments of
# a shared machine. Prints, per topology and backend, each build's median time per iteration and
# the ratio after/before (1.00 = unchanged; below 1 = faster). Progress on stderr.
#
# Usage: tools/ab_topologies.sh BEFORE/ntpbench AFTER/ntpbench [ROUNDS (3)] [MIN_TIME_S (0.5)]
#   TOPOLOGIES="mlp tiny_cnn" BACKENDS="eigen" narrow the set.
set -euo pipefail
before="$1"
after="$2"
rounds="${3:-3}"
min_time="${4:-0.5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
topologies=(${TOPOLOGIES:-mlp tiny_cnn mobilenet_v2 resnet50 deepspeech})
backends=(${BACKENDS:-eigen onednn})
results="$(mktemp)"
trap 'rm -f "$results"' EXIT

# One run: the time of one benchmark (ms per iteration), from GB's JSON on stdout.
time_of() {
  "$1" run "$root/topologies/$2.json" --backend "$3" --batch 1 \
    --benchmark_min_time="$min_time" --benchmark_format=json 2>/dev/null |
    python3 -c 'import json,sys; b=json.load(sys.stdin)["benchmarks"]; print(b[0]["real_time"], b[0]["time_unit"])'
}

total=$(( ${#topologies[@]} * ${#backends[@]} * rounds * 2 ))
done_runs=0
start=$(date +%s)
for t in "${topologies[@]}"; do
  for b in "${backends[@]}"; do
    for ((r = 0; r < rounds; r++)); do
      order=(before after)
      ((r % 2 == 1)) && order=(after before)
      for which in "${order[@]}"; do
        bin="$before"
        [ "$which" = after ] && bin="$after"
        echo "$t $b $which $(time_of "$bin" "$t" "$b")" >>"$results"
        done_runs=$((done_runs + 1))
        elapsed=$(( $(date +%s) - start ))
        echo "ab_topologies: $done_runs/$total, ETA $(( elapsed * (total - done_runs) / done_runs )) s" >&2
      done
    done
  done
done

python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    t, b, which, value, unit = line.split()
    rows.setdefault((t, b), {}).setdefault(which, []).append(float(value))
    rows[(t, b)]["unit"] = unit
print(f"{'topology':<14}{'backend':<9}{'before':>12}{'after':>12}{'after/before':>14}")
for (t, b), r in rows.items():
    bm, am = statistics.median(r["before"]), statistics.median(r["after"])
    print(f"{t:<14}{b:<9}{bm:>10.3f}{r['unit']:>2}{am:>10.3f}{r['unit']:>2}{am / bm:>14.3f}")
PY
