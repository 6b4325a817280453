#!/usr/bin/env python3
"""Launch-pattern costs on one GPU (device tool, repository root, .device/ carried and optionally
.device-old/ with an older libclsplit.so + launcher): every pattern of bench/workloads/launches run
directly on the GPU and through clsplit with its defaults (the GPU alone), alternating, at each
launch count; medians of the program's timed region (runs without a report) and clsplit's own
host time per launch (one more run per build with a run report, CLSPLIT_REPORT_TIMING=0). Writes a table to stdout and records to $OUT/launch-cost.json.
`twice` (and `old-twice` with an old build) runs the same split over the GPU selected twice
(`uniform`): the split path's cost on one GPU. A pattern may also name a bench workload as
NAME:SIZE:ITERS (e.g. fdtd2d:4096:50); its count is then the iterations.

    python3 scripts/gpu-launch-cost.py [--counts 1000,10000,100000] [--repeat 3] [--budget 420]
    python3 scripts/gpu-launch-cost.py --patterns jacobi2d:8192:20,fdtd2d:4096:50 --counts 0 --kinds direct,twice,old-twice
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import clsplit_report  # noqa: E402  (the run-report reader, beside this script)

ROOT = Path.cwd()
NEW = ROOT / ".device"
OLD = ROOT / ".device-old"
OUT = Path(os.environ.get("OUT", "/tmp/out"))
GPU_VENDORS = Path("/tmp/vendors-nvidia-only")  # a vendors directory naming the GPU's vendor alone
# Sizes where each pattern's kernels take a few microseconds on an H200.
SIZES = {"plane": 64, "kloop": 64, "tiny": 16384, "alternate": 64, "markers": 16384, "large": 512, "readback": 16384}


GPU_INDEX = 0


def setup():
    global GPU_INDEX
    OUT.mkdir(parents=True, exist_ok=True)
    real = Path("/tmp/vendors-real")
    real.mkdir(exist_ok=True)
    (real / "nvidia.icd").write_text("libnvidia-opencl.so.1\n")
    GPU_VENDORS.mkdir(exist_ok=True)
    (GPU_VENDORS / "nvidia.icd").write_text("libnvidia-opencl.so.1\n")
    for d in (NEW, OLD):
        if (d / "lib/libclsplit.so").exists():
            (d / "vendors").mkdir(exist_ok=True)
            (d / "vendors/clsplit.icd").write_text(f"{d}/lib/libclsplit.so\n")
    listing = subprocess.run([str(NEW / "bin/clsplit"), "--list-devices", "--json"], capture_output=True, text=True,
                             env=env_for("new")).stdout
    GPU_INDEX = next(d["index"] for d in json.loads(listing) if d["type"] == "GPU")


# --variant NAME=KEY=VALUE+KEY=VALUE: the new build run with extra settings, as kind NAME.
VARIANTS = {}
REPORTS = {}  # a summary of each report run, by "kind pattern count"


def env_for(kind):
    e = dict(os.environ)
    e.update(VARIANTS.get(kind, {}))
    e["LD_LIBRARY_PATH"] = f"{NEW}/lib:" + e.get("LD_LIBRARY_PATH", "")
    e["CLSPLIT_VENDORS"] = "/tmp/vendors-real"
    for k in ("CLSPLIT_REPORT", "CLSPLIT_TRACE", "CLSPLIT_SUMMARY"):
        e.pop(k, None)
    if kind == "direct":
        # The GPU's vendor alone, under either loader: the Khronos loader (CUDA's, first in the
        # library path on the GPU machine) reads OCL_ICD_FILENAMES, Debian's ocl-icd (first after
        # `source scripts/gpu-vendors.sh`) OCL_ICD_VENDORS; with one of them only, direct runs
        # once ran on PoCL's CPU.
        e["OCL_ICD_FILENAMES"] = "libnvidia-opencl.so.1"
        e["OCL_ICD_VENDORS"] = str(GPU_VENDORS)
    return e


def program_of(pattern, count):
    if pattern in SIZES:
        return [str(NEW / "bench/launches"), "--pattern", pattern, "--iters", str(count), "--size", str(SIZES[pattern])]
    name, size, iters = pattern.split(":")
    return [str(NEW / "bench" / name), "--size", size, "--iters", iters]


def run(kind, pattern, count, report=None):
    program = program_of(pattern, count)
    e = env_for(kind)
    if kind == "direct":
        cmd = program
    else:
        base = OLD if kind.startswith("old") else NEW
        cmd = [str(base / "bin/clsplit"), "--"] + program
        if kind.endswith("twice"):  # the split path on one GPU: the GPU selected twice, split evenly
            gpu = GPU_INDEX
            e["CLSPLIT_DEVICES"] = f"{gpu},{gpu}"
            e["CLSPLIT_STRATEGY"] = "uniform"
        if report:
            e["CLSPLIT_REPORT"] = report
            e["CLSPLIT_REPORT_TIMING"] = "0"
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=300)
    wall = time.monotonic() - t
    m = re.search(r" seconds=([0-9.e+-]+) .*verified=(\d)", p.stdout)
    own = None
    if report and Path(report).exists():
        try:
            r = json.loads(Path(report).read_text())
            own = clsplit_report.summarize(r).launch_own_us
            # What the run did, without the per-launch histories: $OUT/reports.json
            part = r.get("partitioner", {})
            brief = {"kernels": r.get("kernels"), "transfers": r.get("transfers"), "pinned_host": r.get("pinned_host"),
                     "lp": part.get("lp"), "sequence": part.get("sequence"),
                     "hostOverheadPerSubLaunchNs": part.get("hostOverheadPerSubLaunchNs"),
                     "settledLaunches": part.get("settledLaunches"),
                     "host_time": r.get("host_time", [])[:6], "driver_calls": r.get("driver_calls", [])[:10]}
            REPORTS[f"{kind} {pattern} {count}"] = brief
            (OUT / "reports.json").write_text(json.dumps(REPORTS, indent=1))
            Path(report).unlink()
        except Exception:
            pass
    made = re.search(r"launches=(\d+)", p.stdout)
    return {"kind": kind, "pattern": pattern, "count": count, "seconds": float(m.group(1)) if m else None,
            "verified": bool(m and m.group(2) == "1"), "own_us": own, "wall": wall,
            "launches": int(made.group(1)) if made else count, "rc": p.returncode,
            "error": None if m else (p.stdout[-400:] + p.stderr[-400:])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", default="1000,10000,100000")
    ap.add_argument("--patterns", default=",".join(SIZES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--budget", type=float, default=420)
    ap.add_argument("--old-max", type=int, default=10000, help="largest count run with the old build")
    ap.add_argument("--twice-max", type=int, default=10000, help="largest count run split over the GPU twice")
    ap.add_argument("--old-skip", default="markers", help="patterns not run with the old build (it hangs on markers)")
    ap.add_argument("--kinds", default=None, help="which of direct,new,twice,old,old-twice to run (default: all there are)")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=KEY=VALUE+KEY=VALUE: the new build with these settings, run as kind NAME")
    args = ap.parse_args()
    for v in args.variant:
        name, settings = v.split("=", 1)
        VARIANTS[name] = dict(kv.split("=", 1) for kv in settings.split("+"))
    setup()
    if (OUT / "reports.json").exists():  # an earlier call of this command (the same $OUT)
        REPORTS.update(json.loads((OUT / "reports.json").read_text()))
    start = time.monotonic()
    kinds = ["direct", "new", "twice"] + (["old", "old-twice"] if (OLD / "lib/libclsplit.so").exists() else [])
    kinds += list(VARIANTS)
    if args.kinds:
        kinds = [k for k in args.kinds.split(",") if k in kinds]
    # Written after what an earlier call of this command left in $OUT (several calls per machine).
    earlier = json.loads((OUT / "launch-cost.json").read_text()) if (OUT / "launch-cost.json").exists() else []
    records = []
    for pattern in args.patterns.split(","):
        counts = [int(c) for c in args.counts.split(",")] if pattern in SIZES else [int(pattern.split(":")[2])]
        for count in counts:
            run("direct", pattern, min(count, 1000))  # warm PoCL/NVIDIA caches
            run("new", pattern, min(count, 1000))
            for rep in range(args.repeat):
                for kind in kinds:
                    if kind.startswith("old") and (count > args.old_max or pattern in args.old_skip.split(",")):
                        continue
                    if kind.endswith("twice") and count > args.twice_max:
                        continue
                    if time.monotonic() - start > args.budget:
                        break
                    rec = run(kind, pattern, count)
                    rec["rep"] = rep
                    records.append(rec)
                    if rec["error"]:
                        print("ERROR", pattern, count, kind, rec["error"], flush=True)
            # Own time from one report run per build (a report's bookkeeping, ~0.7 us per launch
            # on the 2-core machine, stays out of the timed runs above).
            for kind in kinds:
                if kind == "direct" or (kind.startswith("old") and (count > args.old_max or pattern in args.old_skip.split(","))) \
                        or (kind.endswith("twice") and count > args.twice_max) or time.monotonic() - start > args.budget:
                    continue
                rec = run(kind, pattern, count, report=f"/tmp/r-{kind}.json")
                rec["rep"] = "report"
                own_only = {"kind": kind, "pattern": pattern, "count": count, "own_us": rec["own_us"], "seconds": None,
                            "rep": "report", "verified": rec["verified"], "launches": rec["launches"]}
                records.append(own_only)
            (OUT / "launch-cost.json").write_text(json.dumps(earlier + records, indent=1))
            row = f"{pattern:9s} {count:7d}"  # us per launch (per iteration for workloads)
            med = {}
            for kind in kinds:
                secs = [r["seconds"] for r in records if r["kind"] == kind and r["pattern"] == pattern
                        and r["count"] == count and r["seconds"] is not None]
                owns = [r["own_us"] for r in records if r["kind"] == kind and r["pattern"] == pattern
                        and r["count"] == count and r["own_us"] is not None]
                made = [r["launches"] for r in records if r["pattern"] == pattern and r["count"] == count]
                if not secs:
                    continue
                med[kind] = statistics.median(secs)
                n = made[0] if made else count
                row += f" | {kind} {med[kind] * 1e6 / n:8.2f} us/l"
                if kind != "direct":
                    row += f" x{med['direct'] / med[kind]:5.2f}" if "direct" in med else ""
                    row += f" own {statistics.median(owns):6.2f}" if owns else ""
            bad = [r for r in records if r["pattern"] == pattern and r["count"] == count and not r["verified"]]
            print(row + (f"  UNVERIFIED x{len(bad)}" if bad else ""), flush=True)
    print(f"total {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
