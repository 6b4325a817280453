#!/usr/bin/env python3
"""One buffer larger than a device's largest allocation (docs/limitations.md, "Device memory").

axpy with one 272 MiB vector (its coefficients a 4 KiB table every slice reads whole) over a PoCL
device limited to 1 GiB (POCL_MEMORY_LIMIT=1: CL_DEVICE_MAX_MEM_ALLOC_SIZE 256 MiB) and rusticl,
with the default strategy (adaptive-comm). rusticl's profile is no clock, so it takes only what
PoCL cannot hold: PoCL's window of the vector must stay within its largest allocation, which the
partitioner's shares respect (partitioner/MemoryFit.h), so no launch is planned again by memory
(before 2026-11-28 every launch was, and rusticl ran two thirds of the work);
  - the run verifies with the same max_err as the program run directly on one PoCL device;
  - its run report shows the launches split, rusticl running a small part of each (<= 15 %);
and over the limited PoCL device alone it fails cleanly (an error exit, the OpenCL error named).

usage: beyond_one_allocation.py --build BUILD --work DIR [CASE ...]
"""
import json
import os
import re
import sys

from case_runner import (POCL_ICD, REPLANNED, RUSTICL_LIBRARY, pocl_environment, pocl_rusticl_vendors, result_fields,
                         run, run_cases, split_run_verdict)

ELEMENTS = 272 << 18  # 272 MiB of floats: beyond 256 MiB, within what two devices hold
CASES = {"axpy": ["--size", str(ELEMENTS), "--x-period", "1024", "--iters", "4"]}


def environment(args, cache, limited):
    env = pocl_environment(args, 1, cache)
    if limited:
        env["POCL_MEMORY_LIMIT"] = "1"
    return env


def check_case(args, name):
    if not os.path.exists(RUSTICL_LIBRARY):
        print("%s: rusticl is not installed; not run" % name)
        return None
    program = os.path.join(args.build, "bench", "bin", "axpy")
    wargs = CASES[name]
    failures = []
    direct = run([program] + wargs, environment(args, "direct", limited=False))
    fields = result_fields(direct.stdout)
    if direct.returncode != 0 or not fields or fields.get("verified") != "1":
        return ["%s: the direct run failed (status %d): %s" % (name, direct.returncode, direct.stderr[-2000:])]

    vendors_dir = pocl_rusticl_vendors(args)

    def clsplit_env(vendors, cache):
        env = environment(args, cache, limited=True)
        env["OCL_ICD_VENDORS"] = os.path.join(args.build, "vendors")
        env["CLSPLIT_VENDORS"] = vendors
        env["CLSPLIT_DEVICES"] = "all"
        env["CLSPLIT_CONFIG"] = "/dev/null"
        env["CLSPLIT_CACHE_DIR"] = os.path.join(args.work, "analysis-cache")
        env["RUSTICL_ENABLE"] = "llvmpipe"
        env["CLSPLIT_LOG"] = "info"  # names each launch planned again by memory
        return env

    report_path = os.path.join(args.work, "beyond-%s.json" % name)
    env = clsplit_env(vendors_dir, "split")
    env["CLSPLIT_REPORT"] = report_path
    split = run([program] + wargs, env)
    verified, problems = split_run_verdict(name, split, fields)
    failures += problems
    if verified:
        with open(report_path) as f:
            report = json.load(f)
        kernels = report.get("kernels", {})
        launches = sum(k.get("launches", 0) for k in kernels.values())
        split_launches = sum(k.get("split_launches", 0) for k in kernels.values())
        groups = [k.get("groups_per_device", [0, 0]) for k in kernels.values()]
        replanned = split.stderr.count(REPLANNED)
        print("%s: launches %d, split %d, planned again by memory %d, groups per device %s, device_memory %s"
              % (name, launches, split_launches, replanned, groups, report.get("device_memory")))
        if split_launches != launches or launches == 0:
            failures.append("%s: %d of %d launches split" % (name, split_launches, launches))
        if replanned:
            failures.append("%s: %d launches were planned again by memory (shares beyond the largest allocation)"
                            % (name, replanned))
        if not all(0 < g[1] <= 0.15 * sum(g) for g in groups):
            failures.append("%s: rusticl ran %s of the groups (only what PoCL's allocation cannot hold expected)"
                            % (name, groups))

    alone = run([program] + wargs, clsplit_env(POCL_ICD, "alone"))
    print("  the limited PoCL device alone: status %d" % alone.returncode)
    if not 0 < alone.returncode < 128:
        failures.append("%s: over one device the run ended with status %d, not an error exit: %s"
                        % (name, alone.returncode, alone.stderr[-2000:]))
    if not re.search(r"CL_INVALID_BUFFER_SIZE|CL_MEM_OBJECT_ALLOCATION_FAILURE", alone.stderr + alone.stdout):
        failures.append("%s: over one device the OpenCL error is not named: %s" % (name, alone.stderr[-2000:]))
    return failures


if __name__ == "__main__":
    sys.exit(run_cases(CASES, check_case))
