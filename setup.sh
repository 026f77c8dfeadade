#!/usr/bin/env bash
# Installs what ntpbench needs to build and test on Debian 12, and nothing when it is all there.
# Usage: ./setup.sh [--with-torch]   (as root, or with sudo available)
#   --with-torch  also Debian's PyTorch, torchvision and onnx for Python: the ONNX corpus
#                 (tools/onnx_corpus.py, ctest -L onnx-corpus) and tools/compare_pytorch.py;
#                 and headless Chromium, a font and Python imaging: the HTML report's render
#                 check (tools/check_report_render.py, ctest -R report_render)
set -euo pipefail
with_torch=0
for arg in "$@"; do
  case "$arg" in
    --with-torch) with_torch=1 ;;
    *) echo "setup.sh: unknown option '$arg' (expected --with-torch)" >&2; exit 2 ;;
  esac
done

# Every package is named here, never left to another's Recommends: apt runs with
# --no-install-recommends, and oneDNN's CMake config calls find_package(OpenCL REQUIRED) although
# libdnnl-dev only recommends ocl-icd-opencl-dev.
packages=(
  build-essential cmake git pkg-config ca-certificates
  # the design card
  libgtest-dev libgmock-dev libbenchmark-dev
  libeigen3-dev libdnnl-dev libonnx-dev libpapi-dev
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers
  # an OpenCL device on any machine: PoCL's CPU device (the opencl backend's tests run on it)
  pocl-opencl-icd
  nlohmann-json3-dev
  # what the card's packages need to be used from CMake, and the libraries we use besides
  libprotobuf-dev protobuf-compiler
  libpugixml-dev libcli11-dev
  libhwloc-dev
  libfftw3-dev libsndfile1-dev
  # the torch backend (PyTorch's ATen; NTPBENCH_WITH_TORCH), and the BLAS its matrix products
  # call: Debian's libtorch takes whichever libblas.so.3 is installed, and the reference BLAS
  # (libblas3, what apt picks alone) is ~10x slower than OpenBLAS: PyTorch as people run it
  libtorch-dev libopenblas0-openmp
  # the xnnpack backend (XNNPACK's operators and its thread pool; NTPBENCH_WITH_XNNPACK)
  libxnnpack-dev libpthreadpool-dev
  # the fuzz stage (libFuzzer, ASan, UBSan; clang's OpenMP runtime for find_package(OpenMP))
  clang libclang-rt-14-dev libomp-dev
)
if [ "$with_torch" -eq 1 ]; then
  packages+=(python3-torch python3-torchvision python3-onnx chromium fonts-liberation python3-pil)
fi

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
