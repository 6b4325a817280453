#!/usr/bin/env bash
# Runs on the GPU machine (device tool) from the repository root, with .device/ carried (see
# scripts/gpu-bundle.sh): loader isolation under both loaders, a correctness sweep of every
# workload through clsplit, then the harness' GPU suite. Writes everything under $OUT.
set -uo pipefail
D=$PWD/.device
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/vendors-real "$D/vendors"
echo "$D/lib/libclsplit.so" > "$D/vendors/clsplit.icd"
echo libnvidia-opencl.so.1 > /tmp/vendors-real/nvidia.icd
pocl=$(ls /etc/OpenCL/vendors/*pocl*.icd 2>/dev/null | head -1)
[[ -n $pocl ]] && cp "$pocl" /tmp/vendors-real/ || echo "no PoCL .icd found"
export CLSPLIT_VENDORS=/tmp/vendors-real
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log() { echo "== $*"; }
{
log machine; nvidia-smi -L; ls /etc/OpenCL/vendors; ldconfig -p | grep -E "libOpenCL.so.1" 
log "ldd libclsplit (missing?)"; ldd "$D/lib/libclsplit.so" | grep -E "not found" || echo none missing
log "clsplit --list-devices"; "$D/bin/clsplit" --list-devices
log "Khronos loader (ldconfig default): program sees"; OCL_ICD_FILENAMES=$D/lib/libclsplit.so OCL_ICD_VENDORS=$D/vendors "$D/bench/list-devices"
log "ocl-icd: program sees"; LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH OCL_ICD_VENDORS=$D/vendors "$D/bench/list-devices"
log "via the launcher (sets both)"; "$D/bin/clsplit" -- "$D/bench/list-devices"
} 2>&1 | tee "$OUT/env.log"

# Correctness: every workload, moderate sizes, through clsplit on all devices and on the GPUs
# (CHECK_CORRECTNESS=0 skips it).
[[ ${CHECK_CORRECTNESS:-1} == 0 ]] || {
declare -A SZ=([jacobi1d]=1048576 [jacobi2d]=2048 [fdtd2d]=1024 [2spmv]=131072 [spmv-skewed]=262144
               [sotl]=65536 [gemm]=1024 [2mm]=512 [ep]=131072)
gpus=$("$D/bin/clsplit" --list-devices --indices gpu)
{
for devs in all "$gpus"; do
  for s in uniform adaptive-comm; do
    for w in jacobi1d jacobi2d fdtd2d 2spmv spmv-skewed sotl gemm 2mm ep; do
      r=$(CLSPLIT_DEVICES=$devs CLSPLIT_STRATEGY=$s CLSPLIT_REPORT=$OUT/r.json timeout 120 "$D/bin/clsplit" -- "$D/bench/$w" --size ${SZ[$w]} --iters 10 2>&1)
      rc=$?
      split=$(python3 -c "import json; k=json.load(open('$OUT/r.json'))['kernels']; print(' '.join(f\"{n}:{v['split_launches']}/{v['launches']}\" for n,v in k.items()))" 2>/dev/null)
      echo "devices=$devs $s $w rc=$rc $(echo "$r" | grep -o 'verified=[01]') $(echo "$r" | grep -o ' seconds=[0-9.]*') $split"
      [[ $rc -ne 0 ]] && echo "$r" | tail -4
    done
  done
done
} 2>&1 | tee "$OUT/correctness.log"
}

# Performance: a harness suite within a time budget (BENCH_SUITE=none skips it).
budget=${BENCH_BUDGET:-240}
suite=${BENCH_SUITE:-full-gpus}
[[ $suite == none ]] && exit 0
python3 bench/harness/run.py --build "$D" --suite "$suite" --repeat "${BENCH_REPEAT:-2}" --time-budget "$budget" \
  --out "$OUT/bench" 2>&1 | tail -60 | tee "$OUT/bench.log"
