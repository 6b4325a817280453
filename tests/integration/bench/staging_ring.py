#!/usr/bin/env python3
"""Large moves between devices through the staging ring (buffer-manager/storage/StagingRing.h).

transfer-costs makes two devices exchange the halves of its buffers every kernel (each element is
read by the other device), split over two PoCL devices that stage through host memory as discrete
GPUs do (CLSPLIT_TEST_FORCE_STAGING). Each case must verify (the program's exact check):
  - ring: the run report counts moves through the ring, at least one exchange's worth of bytes;
  - no-pool: with no pinned memory (CLSPLIT_PINNED_MB=0) there is no ring and nothing goes
    through it;
  - faults: every read out of device 1 fails from its 3rd on, so the half only it holds cannot
    be fetched: the program gets an OpenCL error (CL_OUT_OF_RESOURCES, -5) from its enqueue, at
    once (re-planning the launch without that device needs the same bytes: no retry loop).

usage: staging_ring.py --build BUILD --work DIR [CASE ...]
"""
import json
import os
import subprocess
import sys

from case_runner import POCL_ICD, run_cases

MIB = 16
CASES = {
    "ring": ({}, lambda ring: ring["ring_moves"] > 0 and ring["ring_bytes"] >= MIB << 20),
    "no-pool": ({"CLSPLIT_PINNED_MB": "0"}, lambda ring: ring["ring_moves"] == 0),
    "faults": ({"CLSPLIT_TEST_FAULTS": "clEnqueueReadBuffer@1:3+"}, None),
}


def check_case(args, name):
    settings, expect = CASES[name]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLSPLIT_", "OCL_ICD_", "POCL_"))}
    env.update({"POCL_DEVICES": "pthread pthread", "POCL_MAX_PTHREAD_COUNT": "1",
                "POCL_CACHE_DIR": os.path.join(args.work, "pocl-cache"),
                "OCL_ICD_VENDORS": os.path.join(args.build, "vendors"), "CLSPLIT_VENDORS": POCL_ICD,
                "CLSPLIT_DEVICES": "all", "CLSPLIT_CONFIG": "/dev/null", "CLSPLIT_STRATEGY": "uniform",
                "CLSPLIT_TEST_FORCE_STAGING": "1",
                "CLSPLIT_CACHE_DIR": os.path.join(args.work, "analysis-cache")})
    env.update(settings)
    report_path = os.path.join(args.work, "ring-%s.json" % name)
    env["CLSPLIT_REPORT"] = report_path
    program = os.path.join(args.build, "bench", "bin", "transfer-costs")
    p = subprocess.run([program, "--mib", str(MIB), "--iters", "3"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    if expect is None:
        print("%s: status %d, %s" % (name, p.returncode, p.stdout.strip().splitlines()[:1]))
        if not 0 < p.returncode < 128 or "failed: -5" not in p.stdout + p.stderr:
            return ["%s: expected an error exit naming -5, got status %d: %s%s"
                    % (name, p.returncode, p.stdout[-1000:], p.stderr[-2000:])]
        return []
    if p.returncode != 0 or "verified" not in p.stdout.split():
        return ["%s: the run did not verify (status %d): %s%s" % (name, p.returncode, p.stdout[-1000:],
                                                                  p.stderr[-2000:])]
    with open(report_path) as f:
        report = json.load(f)
    pinned = report.get("pinned_host", {})
    print("%s: pinned_host %s, transfers %s" % (name, pinned, report.get("transfers")))
    if "ring_moves" not in pinned or not expect(pinned):
        return ["%s: the ring's counts %s are not as expected" % (name, pinned)]
    return []


if __name__ == "__main__":
    sys.exit(run_cases(CASES, check_case))
