#!/usr/bin/env bash
# Runs on the GPU machine (device tool) from the repository root, with .device/ carried (see
# scripts/gpu-bundle.sh): every integration program directly on the first GPU (the reference),
# then through clsplit on all devices (GPUs and the CPU, two vendors) with several strategies;
# every output byte must match the reference. Prints one line per run and a summary.
set -uo pipefail
source scripts/gpu-vendors.sh
# Static ratios need one per device: uneven ones, and all on the last device (the CPU).
all=$(CLSPLIT_VENDORS=/tmp/vendors-real "$D/bin/clsplit" --list-devices --indices all)
n=$(tr ',' '\n' <<< "$all" | grep -c .)
uneven=$(python3 -c "n=$n; print(','.join('%.2f' % ((i + 1) / (n * (n + 1) / 2)) for i in range(n)))")
last=$(python3 -c "n=$n; print(','.join(['0'] * (n - 1) + ['1']))")
strategies=${STRATEGIES:-"uniform static:$uneven static:$last adaptive-comm"}
echo "$n devices; strategies: $strategies"
pass=0 fail=0
for prog in "$D"/itest/itest_*; do
  name=$(basename "$prog")
  [[ $name == itest_info ]] && continue # prints the device's properties: differs by design
  ref=$(OCL_ICD_VENDORS=/tmp/vendors-gpu timeout 120 "$prog" 2>"$OUT/$name.gpu-reference.err"); rc=$?
  if [[ $rc -ne 0 ]]; then
    # Some programs check API behaviour that NVIDIA's driver does differently from PoCL's (on
    # which they were written, e.g. sub-buffer alignment): their reference is the CPU via PoCL.
    echo "$name: direct run on the GPU failed (rc=$rc: $(tail -1 "$OUT/$name.gpu-reference.err")); reference: the CPU"
    ref=$(OCL_ICD_VENDORS=/tmp/vendors-cpu timeout 120 "$prog" 2>/dev/null); rc=$?
    if [[ $rc -ne 0 ]]; then echo "$name reference failed on the CPU too (rc=$rc)"; continue; fi
  fi
  # What CL_MEM_USE_HOST_PTR memory holds before a map is left to the implementation: NVIDIA
  # leaves it stale, CPU runtimes and clsplit (CLSPLIT_HOST_PTR_SYNC) keep it current.
  ref=$(grep -v '^use_host_ptr memory after' <<<"$ref")
  for s in $strategies; do
    err=/tmp/$name.err
    got=$(OCL_ICD_VENDORS=$D/vendors CLSPLIT_VENDORS=/tmp/vendors-real CLSPLIT_DEVICES=all \
          CLSPLIT_STRATEGY=$s CLSPLIT_DEVICE_TYPE=gpu timeout 120 "$prog" 2>"$err"); rc=$?
    got=$(grep -v '^use_host_ptr memory after' <<<"$got")
    if grep -q "CLSPLIT_STRATEGY.*using adaptive-comm" "$err"; then # misconfigured: not what was asked
      fail=$((fail + 1)); echo "$name $s: strategy not applied: $(grep -m1 'using adaptive-comm' "$err")"
    elif [[ $rc -eq 0 && "$got" == "$ref" ]]; then
      pass=$((pass + 1)); echo "$name $s: identical"
    else
      fail=$((fail + 1)); echo "$name $s: DIFFERENT (rc=$rc)"
      diff <(echo "$ref") <(echo "$got") | head -5
      tail -3 "$err"
    fi
  done
done
echo "integration programs: $pass identical, $fail different"
