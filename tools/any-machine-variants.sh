#!/usr/bin/env bash
# The default test run as other machines would see it, from this one: oneDNN capped at older
# ISAs (ONEDNN_MAX_CPU_ISA=AVX2, =AVX512_CORE), one core (taskset -c 0), and PAPI's perf_event
# component unavailable (kernel.perf_event_paranoid=3, as root; restored afterwards). For each:
# the ctest summary, the perf signature test, and every skipped test grouped by its reason.
#
# Usage: tools/any-machine-variants.sh [BUILD_DIR]        default BUILD_DIR: build
# Exit status 0 only when every variation passes.
set -uo pipefail

build="${1:-build}"
status=0

# Runs the gtest binaries and prints "count  reason" for every skip (GTEST_SKIP prints
# "file:line: Skipped", then the reason on the next line).
skips() {
  for bin in "$build/tests/ntpbench_tests" "$build/tests/registration_tests"; do
    "$@" "$bin" 2>&1 | awk '/: Skipped$/ { getline reason; print reason }
                              /^\[  SKIPPED \] [a-z0-9]+: / { sub(/^\[  SKIPPED \] /, ""); print }'
  done | sort | uniq -c | sort -rn
}

variation() {
  local name="$1"
  shift
  echo "== $name"
  local out
  out=$("$@" ctest --test-dir "$build" -j2 -LE perf 2>&1)
  echo "$out" | grep -E "tests passed|\(Failed\)"
  grep -q "100% tests passed" <<<"$out" || status=1  # not echo | grep -q: SIGPIPE under pipefail
  out=$("$@" ctest --test-dir "$build" -L perf -R signature 2>&1)
  echo "$out" | grep -E "tests passed|\(Failed\)" | sed 's/^/signature: /'
  grep -q "100% tests passed" <<<"$out" || status=1  # not echo | grep -q: SIGPIPE under pipefail
  echo "skipped tests, by reason:"
  skips "$@" | sed 's/^/  /'
}

variation "this machine" env
variation "ONEDNN_MAX_CPU_ISA=AVX2" env ONEDNN_MAX_CPU_ISA=AVX2
variation "ONEDNN_MAX_CPU_ISA=AVX512_CORE" env ONEDNN_MAX_CPU_ISA=AVX512_CORE
variation "one core (taskset -c 0)" taskset -c 0
if [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/kernel/perf_event_paranoid ]; then
  old=$(cat /proc/sys/kernel/perf_event_paranoid)
  echo 3 >/proc/sys/kernel/perf_event_paranoid
  variation "perf_event unavailable (perf_event_paranoid=3)" env
  echo "$old" >/proc/sys/kernel/perf_event_paranoid
else
  echo "== perf_event unavailable: not tried (needs root to set kernel.perf_event_paranoid)"
fi
exit $status
