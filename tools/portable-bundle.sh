#!/bin/bash
# Builds ntpbench for another x86-64 Linux machine that lacks Debian's packages (a GPU host, say)
# and gathers it into one folder: the CLI and the test binary built for baseline x86-64
# (-DNTPBENCH_NATIVE=OFF), oneDNN and torch left out (their libraries alone are larger than the
# rest), the shared libraries they load except glibc's, and env.sh, which points the loader at
# them and, given a vendor's OpenCL library, names it to Debian's ICD loader.
#
#   tools/portable-bundle.sh OUT_DIR [BUILD_DIR]      (BUILD_DIR default: build-portable)
#   on the other machine, from a checkout of the same commit (the tests read topologies/ there):
#   . OUT_DIR/env.sh [/path/to/libnvidia-opencl.so.1]; OUT_DIR/ntpbench devices
#
# docs/opencl.md ("A decode step's dense layers on a GPU") measured an H100 this way.
set -euo pipefail
out=${1:?usage: tools/portable-bundle.sh OUT_DIR [BUILD_DIR]}
build=${2:-build-portable}
root=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNTPBENCH_NATIVE=OFF \
  -DNTPBENCH_WITH_ONEDNN=OFF -DNTPBENCH_WITH_TORCH=OFF -DNTPBENCH_WITH_XNNPACK=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target ntpbench_cli ntpbench_tests
mkdir -p "$out/lib"
cp "$build/ntpbench" "$build/tests/ntpbench_tests" "$out/"
strip "$out/ntpbench" "$out/ntpbench_tests"
# glibc's own libraries stay the other machine's: a newer glibc runs these binaries.
ldd "$out/ntpbench" "$out/ntpbench_tests" | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libgcc_s|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
cat >"$out/env.sh" <<'ENV'
# . env.sh [VENDOR_OPENCL_LIBRARY]: the bundle's libraries first; a vendor's OpenCL library
# (e.g. /usr/local/nvidia/lib64/libnvidia-opencl.so.1) named in an ICD folder of its own.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -n "${1:-}" ]; then
  mkdir -p "$here/icd" && echo "$1" >"$here/icd/vendor.icd"
  export OCL_ICD_VENDORS="$here/icd"
fi
ENV
du -sh "$out"
