#!/usr/bin/env bash
# Set-up (as scripts/setup.sh), then the whole test suite: unit tests, integration tests on
# real OpenCL devices (PoCL; PoCL + Oclgrind), and the benchmark harness' smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build -j"$(nproc)" --output-on-failure --timeout 1800 "$@"
