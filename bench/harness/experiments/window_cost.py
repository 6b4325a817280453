"""window-cost: what windows of buffers cost on a problem that fits (issue 20): each program split
the same way (`uniform`) under each `CLSPLIT_WINDOWS` policy, `off` (every device holds whole
buffers), `auto` (the default: whole while they fit) and `always` (each device holds only what its
slices use), alternated, medians. Per program and policy: the timed region, clsplit's own host time
per `clEnqueueNDRangeKernel` and the bytes moved (host to devices, devices to host, between
devices) from the run report, and the largest number of bytes a device held (not counted under
`off`).

    python3 bench/harness/experiment.py window-cost --build build --vendors /etc/OpenCL/vendors/pocl.icd \\
        [--repeat 3] [--devices all] [--env POCL_DEVICES="pthread pthread" ...]

Programs: `jacobi2d 1024 x 40` (the split stays put: windows are made once, halos move each
iteration) and `launches --pattern kloop --size 256` (Gram-Schmidt: every launch's range
shrinks, so the split, and with it each device's window, moves at every launch).

(Was bench/harness/window_cost.py, same options.)
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import clsplit_report
from execute import parse_result_line
from experiments.common import Context, run_command

NAME = "window-cost"
SUMMARY = "windows of buffers against whole copies (CLSPLIT_WINDOWS off/auto/always) on problems that fit"
QUICK = {"repeat": 1}
PROGRAMS = {
    "jacobi2d-1024x40": ["jacobi2d", "--size", "1024", "--iters", "40"],
    "kloop-256": ["launches", "--pattern", "kloop", "--size", "256", "--iters", "768"],
}
POLICIES = ["off", "auto", "always"]


def add_arguments(parser) -> None:
    parser.add_argument("--devices", default="all", help="CLSPLIT_DEVICES (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="alternated runs per policy (default %(default)s)")


def measure(command: list[str], env: dict[str, str], report: Path) -> dict:
    env = dict(env, CLSPLIT_REPORT=str(report))
    report.unlink(missing_ok=True)  # a run that writes none must not be read as the last one's
    done = run_command(command, env, timeout=600)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stdout[-1000:]}\n{done.stderr[-2000:]}")
    r = clsplit_report.load(report)
    if r is None:
        sys.exit(f"no run report (was clsplit loaded?): {' '.join(command)}")
    result = parse_result_line(done.stdout)
    if result.get("verified") != "1":
        sys.exit(f"not verified: {' '.join(command)}\n{done.stdout[-1000:]}")
    return {
        "seconds": float(result["seconds"]),
        "own_ns": (r.launch_own_us or 0) * 1e3,
        "h2d": r.bytes_h2d, "d2h": r.bytes_d2h, "d2d": r.bytes_d2d,
        "peak": r.peak_device_bytes or 0,
        "windows": r.windows or 0,
        "split": sum(k.split_launches or 0 for k in r.kernels),
        "launches": sum(k.launches or 0 for k in r.kernels),
    }


def run(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    # Only the settings below and --env's: a caller's other CLSPLIT_* would change what is compared.
    keep = {"CLSPLIT_VENDORS", "CLSPLIT_DEVICES", "CLSPLIT_STRATEGY", "CLSPLIT_CONFIG", "CLSPLIT_CACHE_DIR"}
    keep |= {item.partition("=")[0] for item in a.env}
    env = {k: v for k, v in m.clsplit_env(a.devices, "uniform", CLSPLIT_CONFIG="/dev/null",
                                          CLSPLIT_CACHE_DIR=str(ctx.scratch / "cache")).items()
           if not k.startswith("CLSPLIT_") or k in keep}
    print("program | policy | seconds (median) | own us per launch | MB host->dev | MB dev->host | "
          "MB dev->dev | peak MB on a device | windows | split/launches", flush=True)
    for name, argv in PROGRAMS.items():
        command = m.program(*argv)
        # Untimed first runs fill the analysis cache and the vendors' kernel caches: the kernels'
        # source differs with the policy (windows' pointer moves are compiled in).
        for policy in POLICIES:
            measure(command, dict(env, CLSPLIT_WINDOWS=policy), ctx.scratch / "warm.json")
        runs: dict[str, list[dict]] = {p: [] for p in POLICIES}
        for _ in range(a.repeat):
            for policy in POLICIES:
                runs[policy].append(measure(command, dict(env, CLSPLIT_WINDOWS=policy), ctx.scratch / "r.json"))
        for policy in POLICIES:
            rs = runs[policy]
            last = rs[-1]
            print(f"{name} | {policy} | {statistics.median(r['seconds'] for r in rs):.4f} | "
                  f"{statistics.median(r['own_ns'] for r in rs) / 1000:.1f} | {last['h2d'] / 1e6:.1f} | "
                  f"{last['d2h'] / 1e6:.1f} | {last['d2d'] / 1e6:.1f} | {last['peak'] / 1e6:.1f} | "
                  f"{last['windows']} | {last['split']}/{last['launches']}", flush=True)
    return 0
