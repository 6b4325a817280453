#!/usr/bin/env bash
# Runs on the GPU machine (device tool, .device/ carried): pinned vs pageable host memory for
# clsplit's host copies and cross-vendor staging, side by side in one run (alternating, REPEAT
# times): bench/calls/transfer_costs.cpp (the GPU and the CPU exchange halves of a buffer every
# kernel) and GPU+CPU adaptive-comm workloads, each with CLSPLIT_PINNED_MB=0 and the default.
set -uo pipefail
source scripts/gpu-vendors.sh
export CLSPLIT_VENDORS=/tmp/vendors-real
mib=${MIB:-64} iters=${ITERS:-10}
{
for r in $(seq 1 "${REPEAT:-3}"); do
  OCL_ICD_VENDORS=/tmp/vendors-gpu "$D/bench/transfer-costs" --mib "$mib" --iters "$iters" | sed "s/^/direct GPU | /"
  for mb in 0 1024; do
    OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=static:0.5,0.5 CLSPLIT_PINNED_MB=$mb \
      CLSPLIT_REPORT=$OUT/transfer-$mb-$r.json "$D/bench/transfer-costs" --mib "$mib" --iters "$iters" \
      | sed "s/^/clsplit GPU+CPU static:0.5,0.5 pinned_mb=$mb | /"
  done
done
for w in ${WORKLOADS:-"jacobi2d 2048" "fdtd2d 2048" "jacobi1d 16777216"}; do
  set -- $w
  for r in $(seq 1 "${REPEAT:-3}"); do
    for mb in 0 1024; do
      OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=adaptive-comm CLSPLIT_PINNED_MB=$mb \
        "$D/bench/$1" --size "$2" 2>&1 | grep RESULT | sed "s/^/adaptive-comm GPU+CPU pinned_mb=$mb | /"
    done
  done
done
} 2>&1 | tee "$OUT/transfers.log"
