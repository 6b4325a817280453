#!/usr/bin/env bash
# Runs on the GPU machine (device tool) with .device/ carried (scripts/gpu-bundle.sh): the host
# cost of a launch, direct on the first GPU and through clsplit (GPU only: eventless commands on
# and off; GPU + CPU: split launches), with bench/calls/call_costs.cpp, REPEAT runs each.
set -uo pipefail
source scripts/gpu-vendors.sh
export CLSPLIT_VENDORS=/tmp/vendors-real
gpu=$("$D/bin/clsplit" --list-devices --indices gpu | cut -d, -f1)
count=${COUNT:-4000}
run() { # label, then env assignments; prints the first two rows
  local label=$1; shift
  for r in $(seq 1 "${REPEAT:-3}"); do
    env "$@" "$D/bench/call-costs" --count "$count" | sed -n 2,3p | sed "s/^/$label | /"
  done
}
{
run "direct GPU" OCL_ICD_VENDORS=/tmp/vendors-gpu
run "clsplit GPU single, eventless" OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=$gpu CLSPLIT_EVENTLESS=1
run "clsplit GPU single, events" OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=$gpu CLSPLIT_EVENTLESS=0
run "clsplit GPU+CPU adaptive-comm" OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=adaptive-comm
COUNT=500 run "clsplit GPU+CPU uniform (split)" OCL_ICD_VENDORS=$D/vendors CLSPLIT_DEVICES=all CLSPLIT_STRATEGY=uniform
} 2>&1 | tee "$OUT/call-costs.log"
