#!/usr/bin/env bash
# How good is the perf gate on this machine?
#  (a) `ctest -L perf` N times with no change: count false regressions (target 0, at most 1);
#  (b) one layer made 15% more expensive (DeepSpeech's bilstm, --ntpb_inject_slowdown): count
#      detections over N runs of the whole gate, as ctest runs it (target N/N);
#  (c) an activation grown (n_classes + 1): the memory/analytic signature must fail every time.
# Usage: tools/gate_quality.sh [build-dir] [N]   (needs the committed baseline of this machine)
#        AB=1 tools/gate_quality.sh ...          also the A/B mode (--control-binary)
#        STORED=0 AB=1 tools/gate_quality.sh ... the A/B mode only
set -uo pipefail
build=${1:-build}
runs=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
gate=("$build/ntpbench" gate --suite-binary "$build/shipped_suite" --suite shipped
      --baseline-dir "$root/baselines" --repetitions 6 --min-time 0.2 --confirm --filter /eigen/)

if [ "${STORED:-1}" = 1 ]; then
false_alarms=0 inconclusive=0
start=$(date +%s)
for i in $(seq "$runs"); do
  out=$(ctest --test-dir "$build" -L perf 2>&1)
  if echo "$out" | grep -q "tests failed out of" && ! echo "$out" | grep -q "0 tests failed"; then
    false_alarms=$((false_alarms + 1)); verdict=FAIL
  elif echo "$out" | grep -q "Skipped"; then
    inconclusive=$((inconclusive + 1)); verdict=skipped
  else
    verdict=pass
  fi
  echo "(a) run $i: $verdict" >&2
done
per_run=$(( ($(date +%s) - start) / runs ))

detected=0
for i in $(seq "$runs"); do
  "${gate[@]}" --ntpb_inject_slowdown=bilstm:1.15 >/tmp/gate_b.txt 2>/dev/null
  rc=$?
  [ $rc -eq 1 ] && detected=$((detected + 1))
  echo "(b) run $i: exit $rc $(grep -m1 'deepspeech.*latency_ms' /tmp/gate_b.txt | awk '{print $5, $6, $7}')" >&2
done

"${gate[@]}" --filter mlp --ntpb_set=n_classes=11 >/tmp/gate_c.txt 2>/dev/null
rc_c=$?
flops=$(grep -m1 'net.flops' /tmp/gate_c.txt | awk '{print $3, "->", $4, $7}')

echo "(a) no change, ctest -L perf x$runs: $false_alarms false regressions, $inconclusive inconclusive (skipped); about ${per_run}s per ctest -L perf"
echo "(b) bilstm 15% slower x$runs: $detected/$runs detected"
echo "(c) n_classes + 1: exit $rc_c (1 = fail), net.flops $flops"
fi

# The same questions for the A/B mode (`ntpbench gate --control-binary`): the control is the
# unchanged suite binary itself, the candidate gets the injected slowdown or nothing.
if [ "${AB:-0}" = 1 ]; then
  ab=("$build/ntpbench" gate --suite-binary "$build/shipped_suite" --control-binary
      "$build/shipped_suite" --suite shipped --repetitions 6 --min-time 0.2)
  ab_false=0 ab_inconclusive=0
  start=$(date +%s)
  for i in $(seq "$runs"); do
    "${ab[@]}" --filter /eigen/ >/tmp/gate_ab_a.txt 2>/dev/null
    rc=$?
    [ $rc -eq 1 ] && ab_false=$((ab_false + 1))
    [ $rc -eq 77 ] && ab_inconclusive=$((ab_inconclusive + 1))
    echo "(a, A/B) run $i: exit $rc $(grep 'latency_ms' /tmp/gate_ab_a.txt | awk '{printf "%s %s; ", $1, $5}')" >&2
  done
  ab_per_run=$(( ($(date +%s) - start) / runs ))
  ab_detected=0
  for i in $(seq "$runs"); do
    "${ab[@]}" --filter deepspeech --ntpb_inject_slowdown=bilstm:1.15 >/tmp/gate_ab_b.txt 2>/dev/null
    rc=$?
    [ $rc -eq 1 ] && ab_detected=$((ab_detected + 1))
    echo "(b, A/B) run $i: exit $rc $(grep -m1 'deepspeech.*latency_ms' /tmp/gate_ab_b.txt | awk '{print $5, $6, $7}')" >&2
  done
  echo "(a, A/B) no change x$runs: $ab_false false regressions, $ab_inconclusive inconclusive; about ${ab_per_run}s per gate"
  echo "(b, A/B) bilstm 15% slower x$runs: $ab_detected/$runs detected"
fi
