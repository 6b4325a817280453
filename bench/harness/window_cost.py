#!/usr/bin/env python3
"""What windows of buffers cost on a problem that fits (issue 20): each program split the same
way (`uniform`) under each `CLSPLIT_WINDOWS` policy, `off` (every device holds whole buffers),
`auto` (the default: whole while they fit) and `always` (each device holds only what its slices
use), alternated, medians. Per program and policy: the timed region, clsplit's own host time per
`clEnqueueNDRangeKernel` and the bytes moved (host to devices, devices to host, between devices)
from the run report, and the largest number of bytes a device held (not counted under `off`).

  python3 bench/harness/window_cost.py --build build --vendors /etc/OpenCL/vendors/pocl.icd \
      [--repeat 3] [--devices all] [--env POCL_DEVICES="pthread pthread" ...]

Programs: `jacobi2d 1024 x 40` (the split stays put: windows are made once, halos move each
iteration) and `launches --pattern kloop --size 256` (Gram-Schmidt: every launch's range
shrinks, so the split, and with it each device's window, moves at every launch).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAMS = {
    "jacobi2d-1024x40": ["jacobi2d", "--size", "1024", "--iters", "40"],
    "kloop-256": ["launches", "--pattern", "kloop", "--size", "256", "--iters", "768"],
}
POLICIES = ["off", "auto", "always"]


def result_seconds(stdout: str) -> float:
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            fields = dict(item.split("=", 1) for item in line.split()[1:] if "=" in item)
            if fields.get("verified") != "1":
                sys.exit(f"not verified: {line}")
            return float(fields["seconds"])
    sys.exit(f"no RESULT line:\n{stdout[-1000:]}")


def measure(command: list[str], env: dict[str, str], report: Path) -> dict:
    env = dict(env, CLSPLIT_REPORT=str(report))
    report.unlink(missing_ok=True)  # a run that writes none must not be read as the last one's
    p = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(command)}\n{p.stdout[-1000:]}\n{p.stderr[-2000:]}")
    if not report.exists():
        sys.exit(f"no run report (was clsplit loaded?): {' '.join(command)}")
    r = json.loads(report.read_text())
    transfers = r.get("transfers", {})
    launch = next((t for t in r.get("host_time", []) if t["entry"] == "clEnqueueNDRangeKernel"), None)
    kernels = r.get("kernels", {}).values()
    return {
        "seconds": result_seconds(p.stdout),
        "own_ns": launch["own_ns_per_call"] if launch else 0,
        "h2d": sum(transfers.get("host_to_device_bytes", [])),
        "d2h": sum(transfers.get("device_to_host_bytes", [])),
        "d2d": sum(transfers.get("device_to_device_bytes", [])),
        "peak": r.get("device_memory", {}).get("peak_bytes", 0),
        "windows": r.get("device_memory", {}).get("windows", 0),
        "split": sum(k.get("split_launches", 0) for k in kernels),
        "launches": sum(k.get("launches", 0) for k in kernels),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=Path("build"))
    parser.add_argument("--vendors", required=True, help="CLSPLIT_VENDORS")
    parser.add_argument("--devices", default="all", help="CLSPLIT_DEVICES (default all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()

    base = {k: v for k, v in os.environ.items() if not k.startswith(("CLSPLIT_", "OCL_ICD_"))}
    for kv in args.env:
        key, _, value = kv.partition("=")
        base[key] = value
    with tempfile.TemporaryDirectory(prefix="window-cost-") as tmp:
        root = Path(tmp)
        vendors = root / "vendors"
        vendors.mkdir()
        (vendors / "clsplit.icd").write_text(f"{(args.build / 'lib' / 'libclsplit.so').resolve()}\n")
        env = dict(base, OCL_ICD_VENDORS=str(vendors), CLSPLIT_VENDORS=args.vendors, CLSPLIT_DEVICES=args.devices,
                   CLSPLIT_STRATEGY="uniform", CLSPLIT_CONFIG="/dev/null", CLSPLIT_CACHE_DIR=str(root / "cache"))
        print("program | policy | seconds (median) | own us per launch | MB host->dev | MB dev->host | "
              "MB dev->dev | peak MB on a device | windows | split/launches")
        for name, command in PROGRAMS.items():
            command = [str(args.build / "bench" / "bin" / command[0])] + command[1:]
            # Untimed first runs fill the analysis cache and the vendors' kernel caches: the
            # kernels' source differs with the policy (windows' pointer moves are compiled in).
            for policy in POLICIES:
                measure(command, dict(env, CLSPLIT_WINDOWS=policy), root / "warm.json")
            runs: dict[str, list[dict]] = {p: [] for p in POLICIES}
            for _ in range(args.repeat):
                for policy in POLICIES:
                    runs[policy].append(measure(command, dict(env, CLSPLIT_WINDOWS=policy), root / "r.json"))
            for policy in POLICIES:
                rs = runs[policy]
                last = rs[-1]
                print(f"{name} | {policy} | {statistics.median(r['seconds'] for r in rs):.4f} | "
                      f"{statistics.median(r['own_ns'] for r in rs) / 1000:.1f} | {last['h2d'] / 1e6:.1f} | "
                      f"{last['d2h'] / 1e6:.1f} | {last['d2d'] / 1e6:.1f} | {last['peak'] / 1e6:.1f} | "
                      f"{last['windows']} | {last['split']}/{last['launches']}")


if __name__ == "__main__":
    main()
