#!/usr/bin/env bash
# Packs a build for the GPU machine (Ubuntu 24.04 with NVIDIA OpenCL, PoCL 5, LLVM/Clang 16
# runtime libraries, no GLPK/spdlog 1.10) into .device/ (git-ignored; carried by the `device`
# tool, 64 MiB limit): the install step's three components (cmake/Install.cmake), stripped.
# Run it here, never on the device machine (it has no build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=.device
rm -rf "$out"
for component in runtime bundled-libs experiments; do
  cmake --install "$build" --prefix "$PWD/$out" --component "$component" --strip > /dev/null
done
du -sh "$out"
