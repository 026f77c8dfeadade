#!/usr/bin/env bash
# Installs what ntpbench needs to build and test on Debian 12, and nothing when it is all there.
# Usage: ./setup.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  build-essential cmake git pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libeigen3-dev nlohmann-json3-dev
  libpapi-dev
  libdnnl-dev
  libpugixml-dev
  libonnx-dev
  libprotobuf-dev
  protobuf-compiler
  clang
  libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
