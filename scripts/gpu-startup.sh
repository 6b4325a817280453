#!/usr/bin/env bash
# Runs on the GPU machine (device tool, .device/ carried): where a short run's time goes with
# the adaptive strategies. jacobi2d (SIZE, ITERS; default 2048, 50) REPEAT times, the
# configurations alternated, median of the bench's timed loop (`seconds`): the GPU directly,
# clsplit `single` over GPU+CPU, adaptive-comm over the GPU alone and over GPU+CPU; and the
# median of what comes before it (`total_seconds - seconds`: the initial writes and a clFinish).
set -uo pipefail
source scripts/gpu-vendors.sh
size=${SIZE:-2048} iters=${ITERS:-50}
gpu=$(CLSPLIT_VENDORS=/tmp/vendors-real "$D/bin/clsplit" --list-devices --indices gpu | cut -d, -f1)
declare -A cfg=(
  [direct]="OCL_ICD_VENDORS=/tmp/vendors-gpu"
  [single-gpu+cpu]="OCL_ICD_VENDORS=$D/vendors CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=single"
  [adaptive-comm-gpu]="OCL_ICD_VENDORS=$D/vendors CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=$gpu CLSPLIT_STRATEGY=adaptive-comm"
  [adaptive-comm-gpu+cpu]="OCL_ICD_VENDORS=$D/vendors CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=adaptive-comm"
)
order=(direct single-gpu+cpu adaptive-comm-gpu adaptive-comm-gpu+cpu)
for r in $(seq 1 "${REPEAT:-7}"); do
  for c in "${order[@]}"; do
    t=$(env ${cfg[$c]} "$D/bench/jacobi2d" --size "$size" --iters "$iters" 2>&1 | sed -n 's/^RESULT.* seconds=\([0-9.]*\) total_seconds=\([0-9.]*\) verified=\([01]\).*/\1 \3 \2/p')
    echo "$c $t"
  done
done | tee "$OUT/startup-runs.log" | python3 -c "
import sys, statistics, collections
t = collections.defaultdict(list); w = collections.defaultdict(list); bad = 0
for line in sys.stdin:
    parts = line.split()
    if len(parts) < 4 or parts[2] != '1': bad += 1; continue
    t[parts[0]].append(float(parts[1]) * 1e3)
    w[parts[0]].append((float(parts[3]) - float(parts[1])) * 1e3)
for c, v in t.items(): print('%-24s median %6.2f ms  (min %6.2f, max %6.2f, %d runs); writes before it: median %6.2f ms' % (c, statistics.median(v), min(v), max(v), len(v), statistics.median(w[c])))
print('unverified or failed runs:', bad)
"
