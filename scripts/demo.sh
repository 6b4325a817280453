#!/usr/bin/env bash
# The main job: an unmodified OpenCL program (bench/workloads/jacobi2d, a plain single-device
# program) run through clsplit on the default devices, with the summary of what clsplit did.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# The default devices are all GPUs if there are any, else all devices. On a machine without a
# GPU, PoCL gives one CPU device: let it expose two halves of the CPU, so there is something to
# split across (a device configuration, not a change to the program).
if ! ./build/bin/clsplit --list-devices | grep -q "GPU "; then
  half=$(( $(nproc) > 1 ? $(nproc) / 2 : 1 ))
  export POCL_DEVICES="${POCL_DEVICES:-pthread pthread}" POCL_MAX_PTHREAD_COUNT="${POCL_MAX_PTHREAD_COUNT:-$half}"
fi
./build/bin/clsplit --list-devices
echo
echo "== jacobi2d, run directly (first device of the first platform)"
./build/bench/bin/jacobi2d --size 1024 --iters 50
echo
echo "== the same program through clsplit"
./build/bin/clsplit --summary -- ./build/bench/bin/jacobi2d --size 1024 --iters 50
