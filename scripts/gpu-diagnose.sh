#!/usr/bin/env bash
# Runs on the GPU machine (device tool, repository root, .device/ carried): where a workload's time
# goes through clsplit with the defaults over every GPU, next to the same program run directly on
# one GPU. Per workload NAME:SIZE:ITERS: the direct run, then a clsplit run with the run report
# (every launch listed), a trace and CLSPLIT_LOG=info, copied to $OUT/NAME-SIZE-ITERS.*.
#   bash scripts/gpu-diagnose.sh jacobi2d:4096:200 2spmv:524288:50
# Extra clsplit settings come from the environment (e.g. CLSPLIT_STRATEGY).
set -uo pipefail
D=$PWD/.device
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/vendors-real "$D/vendors"
echo "$D/lib/libclsplit.so" > "$D/vendors/clsplit.icd"
echo libnvidia-opencl.so.1 > /tmp/vendors-real/nvidia.icd
export CLSPLIT_VENDORS=/tmp/vendors-real
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L
for spec in "$@"; do
  IFS=: read -r name size iters <<< "$spec"
  tag=$name-$size-$iters
  prog=("$D/bench/$name" --size "$size" --iters "$iters")
  for k in 1 2; do
    echo "direct $tag: $(OCL_ICD_FILENAMES=libnvidia-opencl.so.1 "${prog[@]}" | grep -o ' seconds=[0-9.e-]*\|verified=[01]' | tr '\n' ' ')"
    echo "clsplit $tag: $("$D/bin/clsplit" -- "${prog[@]}" | grep -o ' seconds=[0-9.e-]*\|verified=[01]' | tr '\n' ' ')"
  done
  CLSPLIT_REPORT=$OUT/$tag.report.json CLSPLIT_TRACE=$OUT/$tag.trace.json CLSPLIT_LOG=${CLSPLIT_LOG:-info} \
    "$D/bin/clsplit" -- "${prog[@]}" > "$OUT/$tag.stdout" 2> "$OUT/$tag.log"
  echo "clsplit+report $tag: $(grep -o ' seconds=[0-9.e-]*\|verified=[01]' "$OUT/$tag.stdout" | tr '\n' ' ')"
  gzip -f "$OUT/$tag.trace.json" "$OUT/$tag.log"
done
(cd "$OUT" && tar czf diagnose.tgz --remove-files ./*.report.json ./*.trace.json.gz ./*.log.gz ./*.stdout 2>/dev/null)
