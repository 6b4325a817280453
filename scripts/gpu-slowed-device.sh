#!/usr/bin/env bash
# Runs on the GPU machine (device tool, .device/ carried): "one device slowed during the run".
# A jacobi2d run split over the GPU and the CPU (adaptive-comm, with a trace); after a second,
# another process (busy-device) keeps the GPU busy for a few seconds. scripts/slowed_device.py
# shows each device's share of the work per time window: the split should move to the CPU while
# the GPU is shared, and back after. Results stay verified (the workload checks them).
set -uo pipefail
source scripts/gpu-vendors.sh
export CLSPLIT_VENDORS=/tmp/vendors-real
size=${SIZE:-2048} iters=${ITERS:-20000} delay=${DELAY:-1} busy=${BUSY_S:-3} kernel_ms=${KERNEL_MS:-5}
for run in ${RUNS:-1}; do
  OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=adaptive-comm \
    CLSPLIT_TRACE=$OUT/slowed-$run.trace.json CLSPLIT_REPORT=$OUT/slowed-$run.report.json \
    timeout 300 "$D/bench/jacobi2d" --size "$size" --iters "$iters" > "$OUT/slowed-$run.log" 2>&1 &
  app=$!
  sleep "$delay"
  OCL_ICD_VENDORS=/tmp/vendors-gpu timeout 120 "$D/bench/busy-device" --seconds "$busy" --kernel-ms "$kernel_ms" \
    > "$OUT/busy-$run.log" 2>&1
  wait $app; echo "jacobi2d rc=$?"
  cat "$OUT/busy-$run.log"; grep -E "VERIFY|RESULT" "$OUT/slowed-$run.log"
  python3 scripts/slowed_device.py "$OUT/slowed-$run.trace.json" "$OUT/busy-$run.log" --window-ms "${WINDOW_MS:-250}" \
    | tee "$OUT/slowed-$run.summary.txt"
done
