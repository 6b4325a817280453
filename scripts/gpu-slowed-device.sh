#!/usr/bin/env bash
# Runs on the GPU machine (device tool, .device/ carried): "one device slowed during the run".
# The application is busy-device with few work-items (latency-bound on the GPU, so the GPU and
# the CPU are comparable), run through clsplit over both with adaptive-comm and a trace, every
# result verified. While it runs, first another process keeps the GPU busy, later CPU-bound
# processes take the CPU's cores. scripts/slowed_device.py shows each device's share of the work
# per time window: it should move away from whichever device is loaded, and back after.
# DEVICES picks clsplit's devices (CLSPLIT_DEVICES; default all). On a machine with two GPUs,
# DEVICES=gpus ITEMS=0 (enough work-items to fill a GPU) CPU_LOAD=0 splits over the two GPUs
# alone, and the competing process loads the first one only.
set -uo pipefail
source scripts/gpu-vendors.sh
export CLSPLIT_VENDORS=/tmp/vendors-real
items=${ITEMS:-2048} local=${LOCAL:-32} kernel_ms=${KERNEL_MS:-3} busy_s=${BUSY_S:-2}
gpu_loads=${GPU_LOADS:-1} # competing processes on the GPU at once
devices=${DEVICES:-all}
[[ $devices == gpus ]] && devices=$("$D/bin/clsplit" --list-devices --indices gpu)
cpu_hog() { # seconds: every core spinning, start and end on the steady clock
  python3 - "$1" <<'PY'
import multiprocessing, os, sys, time
def spin(until):
    while time.monotonic() < until: pass
until = time.monotonic() + float(sys.argv[1])
print("cpu-hog: %d processes, start_ns=%d" % (os.cpu_count(), time.monotonic_ns()), flush=True)
ps = [multiprocessing.Process(target=spin, args=(until,)) for _ in range(os.cpu_count())]
for p in ps: p.start()
for p in ps: p.join()
print("cpu-hog: end_ns=%d" % time.monotonic_ns())
PY
}
OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=$devices CLSPLIT_STRATEGY=adaptive-comm \
  CLSPLIT_TRACE=$OUT/slowed.trace.json CLSPLIT_REPORT=$OUT/slowed.report.json \
  timeout 120 "$D/bench/busy-device" --items "$items" --local "$local" --kernel-ms "$kernel_ms" \
  --seconds "$((4 * busy_s + 3))" > "$OUT/slowed-app.log" 2>&1 &
app=$!
sleep 3 # build, calibration, convergence
for ((i = 1; i < gpu_loads; ++i)); do
  OCL_ICD_VENDORS=/tmp/vendors-gpu timeout 60 "$D/bench/busy-device" --seconds "$busy_s" --kernel-ms 5 > "$OUT/gpu-load$i.log" 2>&1 &
done
OCL_ICD_VENDORS=/tmp/vendors-gpu timeout 60 "$D/bench/busy-device" --seconds "$busy_s" --kernel-ms 5 > "$OUT/gpu-load.log" 2>&1
sleep 0.3 # the other loads, started with it, end with it
sleep "$busy_s"
loads=(--load "gpu-load=$OUT/gpu-load.log")
if [[ ${CPU_LOAD:-1} == 1 ]]; then
  cpu_hog "$busy_s" > "$OUT/cpu-load.log" 2>&1
  loads+=(--load "cpu-load=$OUT/cpu-load.log")
fi
wait $app; echo "application rc=$?"
cat "$OUT/slowed-app.log" "$OUT/gpu-load.log" "$OUT"/cpu-load.log 2>/dev/null
python3 scripts/slowed_device.py "$OUT/slowed.trace.json" "${loads[@]}" --window-ms "${WINDOW_MS:-250}" \
  | tee "$OUT/slowed.summary.txt"
