#!/usr/bin/env python3
"""Programs larger than one device (docs/limitations.md, "Device memory").

Each case runs a bench workload whose buffers total about 1.7x the memory clsplit may use on one
device (CLSPLIT_DEVICE_MEMORY), split over PoCL devices (`uniform`), or, for `jacobi2d-lp`, over
PoCL and rusticl (and `jacobi2d-defaults` over two PoCL devices, which take turns on one CPU)
with the default strategy (adaptive-comm), whose shares (its LP's and, before the
LP has a plan, each kernel's balanced split) must fit each device's memory: at most a tenth of
the launches planned again by memory (before 2026-11-28 that run failed with
CL_MEM_OBJECT_ALLOCATION_FAILURE), and rusticl, whose profile is no clock, takes only what PoCL
cannot hold (nothing when run again without the cap);
  - it must verify (the workload's own check against its host reference) with the same max_err
    as the program run directly on one PoCL device;
  - its run report must show launches split, copies that were windows of their buffers, and no
    device holding more than the cap at any time;
and over one device with the same cap it must fail cleanly: an error exit status (not a signal) and
CL_MEM_OBJECT_ALLOCATION_FAILURE named on stderr.

usage: larger_than_device.py --build BUILD --work DIR [CASE ...]
"""
import json
import os
import re
import sys

from case_runner import (POCL_ICD, REPLANNED, RUSTICL_LIBRARY, pocl_environment, pocl_rusticl_vendors, result_fields,
                         run, run_cases, split_run_verdict)

# name -> (workload, arguments, devices for the split run, bytes of its buffers from RESULT fields
# [, vendors of the split run ("pocl" or "pocl+rusticl"), strategy]).
# A matrix product reads all of B in every slice, so with square matrices no two devices can
# hold it below 1.5x: it is split over three.
CASES = {
    "jacobi2d": ("jacobi2d", ["--size", "512", "--iters", "10"], 2, lambda r: 2 * 512 * 512 * 4),
    "fdtd2d": ("fdtd2d", ["--size", "512", "--iters", "10"], 2, lambda r: 3 * 512 * 512 * 4 + 10 * 4),
    "gemm": ("gemm", ["--size", "384", "--iters", "2"], 3, lambda r: 3 * 384 * 384 * 4),
    "2spmv": ("2spmv", ["--size", "4096", "--iters", "4"], 2,
              lambda r: int(r["nnz"]) * 8 + 2 * 4097 * 4 + 2 * 4096 * 4),
    # 64-bit indices, a scalar that changes every launch: what the GPU machine's run beyond one
    # device's largest allocation uses (docs/benchmarks.md).
    "axpy": ("axpy", ["--size", "262144", "--iters", "6"], 2, lambda r: 2 * 262144 * 4),
    # One vector beyond the cap, its coefficients a small table every slice reads whole.
    "axpy-periodic": ("axpy", ["--size", "262144", "--iters", "6", "--x-period", "1024"], 2,
                      lambda r: 262144 * 4 + 1024 * 4),
    "jacobi2d-lp": ("jacobi2d", ["--size", "512", "--iters", "60"], 2, lambda r: 2 * 512 * 512 * 4,
                    "pocl+rusticl", "adaptive-comm"),
    # The defaults over two PoCL devices, which take turns (one CPU): split for memory all the same.
    "jacobi2d-defaults": ("jacobi2d", ["--size", "512", "--iters", "30"], 2, lambda r: 2 * 512 * 512 * 4,
                          "pocl", "adaptive-comm"),
}
RATIO = 1.7


def check_case(args, name):
    workload, wargs, devices, buffer_bytes = CASES[name][:4]
    vendors, strategy = CASES[name][4:6] if len(CASES[name]) > 4 else ("pocl", "uniform")
    program = os.path.join(args.build, "bench", "bin", workload)
    failures = []
    if vendors == "pocl+rusticl" and not os.path.exists(RUSTICL_LIBRARY):
        print("%s: rusticl is not installed; not run" % name)
        return None

    direct = run([program] + wargs, pocl_environment(args, 1, "direct"))
    fields = result_fields(direct.stdout)
    if direct.returncode != 0 or not fields or fields.get("verified") != "1":
        return ["%s: the direct run failed (status %d): %s" % (name, direct.returncode, direct.stderr[-2000:])]
    total = buffer_bytes(fields)
    cap = int(total / RATIO)

    def clsplit_env(n, cache):
        env = pocl_environment(args, n, cache)
        env["OCL_ICD_VENDORS"] = os.path.join(args.build, "vendors")
        env["CLSPLIT_VENDORS"] = POCL_ICD
        env["CLSPLIT_DEVICES"] = "all"
        env["CLSPLIT_CONFIG"] = "/dev/null"
        env["CLSPLIT_CACHE_DIR"] = os.path.join(args.work, "analysis-cache")
        env["CLSPLIT_STRATEGY"] = strategy
        env["CLSPLIT_DEVICE_MEMORY"] = str(cap)
        return env

    report_path = os.path.join(args.work, "larger-%s.json" % name)
    env = clsplit_env(devices, "split")
    env["CLSPLIT_REPORT"] = report_path
    if vendors == "pocl+rusticl":
        env["CLSPLIT_VENDORS"] = pocl_rusticl_vendors(args)
        env["POCL_DEVICES"] = "pthread"
        env["RUSTICL_ENABLE"] = "llvmpipe"
    if strategy == "adaptive-comm":
        env["CLSPLIT_LOG"] = "info"  # names each launch planned again by memory
    split = run([program] + wargs, env)
    print("%s: buffers %d bytes, cap %d per device, %d devices" % (name, total, cap, devices))
    verified, problems = split_run_verdict(name, split, fields)
    failures += problems
    if verified:
        with open(report_path) as f:
            report = json.load(f)
        memory = report.get("device_memory", {})
        split_launches = sum(k.get("split_launches", 0) for k in report.get("kernels", {}).values())
        print("  device_memory %s, split launches %d" % (memory, split_launches))
        if memory.get("peak_bytes", 0) > cap or memory.get("peak_bytes", 0) == 0:
            failures.append("%s: a device held %s bytes (cap %d)" % (name, memory.get("peak_bytes"), cap))
        # Slices of the SpMV read whole matrices (its row pointers carry no monotonicity hint):
        # its devices take turns holding each matrix (evictions) rather than windows of them.
        if memory.get("windows", 0) == 0 and memory.get("evictions", 0) == 0:
            failures.append("%s: no copy was a window of its buffer or evicted" % name)
        if split_launches == 0:
            failures.append("%s: no launch was split" % name)
        if strategy == "adaptive-comm":
            launches = sum(k.get("launches", 0) for k in report.get("kernels", {}).values())
            replanned = split.stderr.count(REPLANNED)
            print("  launches %d, planned again by memory %d" % (launches, replanned))
            if replanned * 10 > launches:
                failures.append("%s: %d of %d launches were planned again by memory (the LP's shares did not fit)"
                                % (name, replanned, launches))
        if vendors == "pocl+rusticl":
            # Mesa 22's rusticl stamps every command 0-3 ns: with room on PoCL it must run nothing
            # (it would look infinitely fast to the adaptive strategies), with the cap only the rest.
            rusticl = [k.get("groups_per_device", [0, 0])[1] for k in report.get("kernels", {}).values()]
            uncapped = dict(env)
            del uncapped["CLSPLIT_DEVICE_MEMORY"]
            uncapped["CLSPLIT_REPORT"] = report_path + ".uncapped.json"
            free = run([program] + wargs, uncapped)
            with open(uncapped["CLSPLIT_REPORT"]) as f:
                groups = [k.get("groups_per_device", [0, 0]) for k in json.load(f).get("kernels", {}).values()]
            print("  groups on rusticl: %s with the cap, %s without" % (rusticl, [g[1] for g in groups]))
            if free.returncode != 0 or any(g[1] for g in groups):
                failures.append("%s: without a cap rusticl ran work (%s) or the run failed (%d)"
                                % (name, groups, free.returncode))
            if not all(0 < r < sum(g) * 0.6 for r, g in zip(rusticl, groups)):
                failures.append("%s: with the cap rusticl ran %s groups (of %s)" % (name, rusticl, groups))

    alone = run([program] + wargs, clsplit_env(1, "alone"))
    print("  one device: status %d" % alone.returncode)
    if not 0 < alone.returncode < 128:
        failures.append("%s: over one device the run ended with status %d, not an error exit: %s"
                        % (name, alone.returncode, alone.stderr[-2000:]))
    if not re.search(r"CL_MEM_OBJECT_ALLOCATION_FAILURE|-4\b", alone.stderr + alone.stdout):
        failures.append("%s: over one device stderr does not name CL_MEM_OBJECT_ALLOCATION_FAILURE: %s"
                        % (name, alone.stderr[-2000:]))
    return failures


if __name__ == "__main__":
    sys.exit(run_cases(CASES, check_case))
