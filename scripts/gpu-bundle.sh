#!/usr/bin/env bash
# Packs a build for the GPU machine (Ubuntu 24.04 with NVIDIA OpenCL, PoCL 5, LLVM/Clang 16
# runtime libraries, no GLPK/spdlog 1.10): stripped clsplit + bench binaries and the libraries
# it lacks, into .device/ (git-ignored; carried by the `device` tool, 64 MiB limit).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=.device
rm -rf "$out" && mkdir -p "$out"/{bin,lib,bench} 
strip --strip-debug -o "$out/lib/libclsplit.so" "$build/lib/libclsplit.so"
strip -o "$out/bin/clsplit" "$build/bin/clsplit"
[[ -f $build/bin/clsplit-regions ]] && strip -o "$out/bin/clsplit-regions" "$build/bin/clsplit-regions"
for b in "$build"/bench/bin/*; do strip -o "$out/bench/$(basename "$b")" "$b"; done
# The integration programs (scripts/gpu-integration.sh runs them direct vs. split).
mkdir -p "$out/itest"
for b in "$build"/tests/integration/bin/itest_*; do [[ -f $b ]] && strip -o "$out/itest/$(basename "$b")" "$b"; done
for lib in libglpk.so.40 libspdlog.so.1.10 libfmt.so.9 libcolamd.so.2 libamd.so.2 \
           libsuitesparseconfig.so.5 libltdl.so.7; do
  cp -L "/lib/x86_64-linux-gnu/$lib" "$out/lib/"
done
mkdir -p "$out/share/clsplit" && cp -r bench/harness "$out/share/clsplit/" 2>/dev/null || true
[[ -f scripts/report.py ]] && cp scripts/report.py "$out/share/clsplit/"
du -sh "$out"
