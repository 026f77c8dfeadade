#!/usr/bin/env bash
# The README's quick start on a fresh Debian 12, proved: builds a clean Debian 12 (bookworm) root
# with mmdebstrap from the Debian apt sources this machine uses, copies a clean clone of this
# repository's HEAD into it, and runs the README's two commands there (./run-benchmark.sh, then
# ./run-tests.sh), each with its exit code and time. Nothing installed on this machine by hand
# can leak in: the root has only what `mmdebstrap --variant=apt` and the commands install.
#
# Usage (as root): tools/fresh-root-check.sh [WORKDIR]      default WORKDIR: /var/tmp/ntpbench-fresh
#   KEEP_ROOT=1 keeps the root afterwards (default: removed).
# Output: one summary line per command on stdout; full logs in WORKDIR/*.log, fuzz findings in
# WORKDIR/fuzz-findings/. Exit status 0 only
# when both commands exit 0.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-root-check: needs root (mmdebstrap, chroot, mounts)" >&2
  exit 2
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-/var/tmp/ntpbench-fresh}"
root="$work/root"

if ! command -v mmdebstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap
fi

# The Debian sources this machine uses (deb822 .sources and one-line .list files), so the root
# sees the same archive snapshot; other vendors' repositories are left out.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  grep -Eq '^[^#]*(deb\.debian\.org|security\.debian\.org|snapshot\.debian\.org|/debian)' "$f" ||
    continue
  sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || sources=("http://deb.debian.org/debian")

cleanup() {
  # What a fuzz target found (crash-, oom-, timeout- units) outlives the root: the next session
  # needs the input to reproduce it.
  mkdir -p "$work/fuzz-findings"
  cp "$root"/root/ntpbench/build-fuzz/tests/fuzz/findings-* "$work/fuzz-findings/" 2>/dev/null || true
  for m in dev/pts dev proc sys; do
    mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m" || true
  done
  if [ "${KEEP_ROOT:-0}" != 1 ]; then rm -rf "$root"; fi
}
trap cleanup EXIT

rm -rf "$root"
mkdir -p "$work"
echo "fresh-root-check: building a Debian 12 root in $root from ${sources[*]}" >&2
start=$(date +%s)
mmdebstrap --variant=apt --quiet bookworm "$root" "${sources[@]}" >"$work/mmdebstrap.log" 2>&1
echo "fresh-root-check: root ready in $(($(date +%s) - start)) s" >&2

# A clean clone: what is committed, nothing untracked or ignored (no build folders).
git clone --quiet --no-local "$repo" "$root/root/ntpbench"
git -C "$root/root/ntpbench" log --oneline -1 >"$work/commit.txt"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount --bind /proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

status=0
run() {
  local name="$1" command="$2" begin rc
  begin=$(date +%s)
  set +e
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    /bin/bash -c "cd /root/ntpbench && $command" >"$work/$name.log" 2>&1
  rc=$?
  set -e
  local seconds=$(($(date +%s) - begin))
  printf '%-22s exit %d  %4d s  (log: %s)\n' "$command" "$rc" "$seconds" "$work/$name.log"
  [ "$rc" -eq 0 ] || status=1
}

echo "fresh Debian 12 root, commit $(cat "$work/commit.txt"), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'))"
run benchmark ./run-benchmark.sh
run tests ./run-tests.sh
exit "$status"
