#!/usr/bin/env bash
# Runs on the GPU machine (device tool, .device/ carried): clsplit's own host time per launch of
# a real program (jacobi1d: a stencil and a copy per iteration, halos moved between devices),
# from the run report's host_time with CLSPLIT_REPORT_TIMING=0 (nothing timed that an ordinary
# run would not time). Configurations: two PoCL CPU devices (split launches, the partitioner
# measuring them), GPU + CPU split by fixed ratios, and the GPU alone through clsplit.
set -uo pipefail
source scripts/gpu-vendors.sh
size=${SIZE:-1048576} iters=${ITERS:-2000}
gpu=$(CLSPLIT_VENDORS=/tmp/vendors-real "$D/bin/clsplit" --list-devices --indices gpu | cut -d, -f1)
run() { # label, then env assignments
  local label=$1; shift
  [[ -n ${ONLY:-} && ! $label =~ $ONLY ]] && return # ONLY: a regex on the labels to run
  for r in $(seq 1 "${REPEAT:-3}"); do
    env OCL_ICD_VENDORS=$D/vendors CLSPLIT_REPORT=$OUT/host.json CLSPLIT_REPORT_TIMING=0 "$@" \
      "$D/bench/jacobi1d" --size "$size" --iters "$iters" > "$OUT/host-run.log" 2>&1 || { echo "$label: failed"; tail -3 "$OUT/host-run.log"; continue; }
    python3 - "$label" "$OUT/host.json" "$OUT/host-run.log" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[2]))
res = dict(re.findall(r"(\w+)=(\S+)", next((l for l in open(sys.argv[3]) if l.startswith("RESULT")), "")))
h = next(x for x in r["host_time"] if x["entry"] == "clEnqueueNDRangeKernel")
split = sum(k["split_launches"] for k in r["kernels"].values())
print("%-34s launches %6d split %6d | own %5.1f us/launch | driver %5.1f us/launch (%4.1f calls)" % (
    sys.argv[1], h["calls"], split, h["own_ns_per_call"] / 1e3, h["driver_ns"] / h["calls"] / 1e3,
    h["driver_calls"] / h["calls"]))
if "enqueue_ms" in res: # the application thread during its enqueue loop (bench/workloads/jacobi1d)
    n = h["calls"]
    print("    enqueue loop: %.1f us/launch wall, %.1f us on a CPU, %.1f us preempted, %.2f timeslices" % (
        float(res["enqueue_ms"]) * 1e3 / n, float(res["enqueue_cpu_ms"]) * 1e3 / n,
        float(res["enqueue_preempted_ms"]) * 1e3 / n, float(res["enqueue_timeslices"]) / n))
print("    vendor calls per launch: " + ", ".join("%s %.1f" % (d["function"], d["calls"] / h["calls"]) for d in r.get("driver_calls", [])[:6]))
PY
  done
}
{
run "2 PoCL CPUs adaptive-comm" CLSPLIT_VENDORS=/tmp/vendors-cpu POCL_DEVICES="${POCL_PAIR:-cpu cpu}" CLSPLIT_STRATEGY=adaptive-comm
run "2 PoCL CPUs adaptive" CLSPLIT_VENDORS=/tmp/vendors-cpu POCL_DEVICES="${POCL_PAIR:-cpu cpu}" CLSPLIT_STRATEGY=adaptive
run "2 PoCL CPUs uniform" CLSPLIT_VENDORS=/tmp/vendors-cpu POCL_DEVICES="${POCL_PAIR:-cpu cpu}" CLSPLIT_STRATEGY=uniform
run "GPU+CPU static:0.9,0.1" CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=static:0.9,0.1
run "GPU+CPU uniform" CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=uniform
run "GPU+CPU adaptive-comm (unsplit)" CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=adaptive-comm
run "GPU alone adaptive-comm" CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=$gpu CLSPLIT_STRATEGY=adaptive-comm
} 2>&1 | tee "$OUT/host-costs.log"
