#!/usr/bin/env bash
# How good is the perf gate on this machine, as `ctest -L perf` runs it in BUILD?
#  (a) `ctest -L perf` N times with no change: count false regressions (target 0, at most 1);
#  (b) one layer made 15% more expensive (DeepSpeech's bilstm, --ntpb_inject_slowdown): count
#      detections over N runs of the gate with ctest's arguments (target N/N);
#  (c) an activation grown (n_classes + 1): the memory/analytic signature must fail every time.
# BUILD configured with -DNTPBENCH_PERF_CONTROL_REF=<ref> measures the A/B mode (against the
# control build of <ref>); without it, the stored baseline (baselines/<machine class>/).
# Usage: tools/gate_quality.sh [build-dir] [N]
set -uo pipefail
build=${1:-build}
runs=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
gate=("$build/ntpbench" gate --suite-binary "$build/shipped_suite" --suite shipped
      --baseline-dir "$root/baselines" --repetitions 6 --min-time 0.2 --confirm)
if grep -q '^NTPBENCH_PERF_CONTROL_REF:STRING=..*' "$build/CMakeCache.txt"; then
  mode="A/B against the control build of $(sed -n 's/^NTPBENCH_PERF_CONTROL_REF:STRING=//p' \
    "$build/CMakeCache.txt")"
  ctest --test-dir "$build" -R '^perf\.control\.' >/dev/null || { echo "control build failed" >&2; exit 1; }
  gate+=(--control-dir "$build/perf-control")
else
  mode="against the stored baseline"
fi
echo "gate quality, $mode" >&2

verdicts() { grep 'latency_ms' "$1" | grep -v unchanged | awk '{printf "%s %s %s; ", $1, $5, $NF}'; }

false_alarms=0 inconclusive=0
start=$(date +%s)
for i in $(seq "$runs"); do
  out=$(ctest --test-dir "$build" -L perf -V 2>&1)
  echo "$out" >/tmp/gate_a.txt
  if echo "$out" | grep -q "tests failed out of" && ! echo "$out" | grep -q " 0 tests failed"; then
    false_alarms=$((false_alarms + 1)); verdict=FAIL
  elif echo "$out" | grep -q "\*\*\*Skipped"; then
    inconclusive=$((inconclusive + 1)); verdict=skipped
  else
    verdict=pass
  fi
  echo "(a) run $i: $verdict $(grep -E '^[0-9]+: .*latency_ms' /tmp/gate_a.txt | grep -v unchanged | awk '{printf "%s %s %s; ", $2, $6, $NF}')" >&2
done
per_run=$(( ($(date +%s) - start) / runs ))

# The injection only touches deepspeech, so only deepspeech (and the calibration kernels) run.
detected=0
for i in $(seq "$runs"); do
  "${gate[@]}" --filter deepspeech --ntpb_inject_slowdown=bilstm:1.15 >/tmp/gate_b.txt 2>/dev/null
  rc=$?
  [ $rc -eq 1 ] && detected=$((detected + 1))
  echo "(b) run $i: exit $rc $(grep -m1 'deepspeech.*latency_ms' /tmp/gate_b.txt | awk '{print $5, $6, $7}')" >&2
done

"${gate[@]}" --filter mlp --ntpb_set=n_classes=11 >/tmp/gate_c.txt 2>/dev/null
rc_c=$?
flops=$(grep -m1 'net.flops' /tmp/gate_c.txt | awk '{print $3, "->", $4, $7}')

echo "gate quality, $mode"
echo "(a) no change, ctest -L perf x$runs: $false_alarms false regressions, $inconclusive inconclusive (skipped); about ${per_run}s per ctest -L perf"
echo "(b) bilstm 15% slower x$runs: $detected/$runs detected"
echo "(c) n_classes + 1: exit $rc_c (1 = fail), net.flops $flops"
