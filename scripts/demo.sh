#!/usr/bin/env bash
# The main job: an unmodified OpenCL program (bench/workloads/jacobi2d, a plain single-device
# program) run directly and through clsplit on the default devices, with the summary of what
# clsplit did and the measured ratio of the two runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

program=(./build/bench/bin/jacobi2d --size 1024 --iters 200)
seconds() { grep -o ' seconds=[0-9.]*' | cut -d= -f2; }

# The default devices are all GPUs if there are any, else all devices. On a machine without a
# GPU, PoCL gives one CPU device: let it expose two halves of the CPU, so there is something to
# split across (a device configuration, not a change to the program).
gpus=$(./build/bin/clsplit --list-devices --indices gpu | tr ',' '\n' | grep -c . || true)
gpu=yes
if [[ $gpus -eq 0 ]]; then
  gpu=no
  half=$(( $(nproc) > 1 ? $(nproc) / 2 : 1 ))
  export POCL_DEVICES="${POCL_DEVICES:-pthread pthread}" POCL_MAX_PTHREAD_COUNT="${POCL_MAX_PTHREAD_COUNT:-$half}"
fi
./build/bin/clsplit --list-devices
echo
if [[ $gpu == no ]]; then
  echo "What to expect here: the two devices are halves of one CPU that PoCL runs with one pool of threads, so they take turns; clsplit notices and runs each kernel on one of them, about as fast as the program alone. A speed-up needs devices that run at the same time: several GPUs, or a GPU and a CPU."
elif [[ $gpus -eq 1 ]]; then
  echo "What to expect here: the default devices are the one GPU, so clsplit has nothing to split and steps aside: the program gets the GPU's own platform and runs as directly (the summary below comes from a run that keeps clsplit's layer to report). The last run splits across the GPU and the CPUs (--devices all), where clsplit learns how little the CPU should get."
else
  echo "What to expect here: clsplit splits each kernel across the GPUs where that pays (measured as the program runs), and keeps it on one GPU where it does not; the speed-up comes from the GPUs computing their slices at the same time."
fi
echo
echo "== jacobi2d, run directly (first device of the first platform)"
"${program[@]}" | tee /tmp/clsplit-demo-direct.txt
echo
echo "== the same program through clsplit (default devices and strategy)"
./build/bin/clsplit --summary -- "${program[@]}" | tee /tmp/clsplit-demo-clsplit.txt
# One run of each is at the mercy of a shared machine (the same run varied 2x here): two more of
# each, alternating, and the best of three compared.
direct=$(seconds < /tmp/clsplit-demo-direct.txt)
through=$(seconds < /tmp/clsplit-demo-clsplit.txt)
for _ in 1 2; do
  direct="$direct $("${program[@]}" | seconds)"
  through="$through $(./build/bin/clsplit -- "${program[@]}" 2>/dev/null | seconds)"
done
python3 -c "
d = min(map(float, '$direct'.split())); t = min(map(float, '$through'.split()))
print('best of 3: %.4f s directly, %.4f s through clsplit; time through clsplit / time direct: %.2f (below 1: faster through clsplit)' % (d, t, t / d))"
if [[ $gpu == no ]]; then
  echo
  echo "== forced to split evenly (--strategy uniform): the same result, no faster here, since the two devices take turns"
  ./build/bin/clsplit --strategy uniform -- "${program[@]}"
fi
if [[ $gpus -eq 1 ]]; then
  echo
  echo "== across the GPU and the CPU (--devices all)"
  ./build/bin/clsplit --devices all --summary -- "${program[@]}"
fi
