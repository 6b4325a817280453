#!/usr/bin/env bash
# Installs what clsplit needs on Debian bookworm (as root) and builds it into ./build.
# Idempotent: re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config python3 python3-matplotlib python3-pyopencl
  ocl-icd-opencl-dev opencl-headers clinfo pocl-opencl-icd oclgrind mesa-opencl-icd
  llvm-16-dev libclang-16-dev libclang-cpp16-dev clang-16
  libglpk-dev libspdlog-dev catch2
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing packages (run as root to install): ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
ninja -C build -j"$jobs"
