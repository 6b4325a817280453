"""slowed-device: one device slowed during the run. The application is busy-device with few
work-items (latency-bound on the GPU, so the GPU and the CPU are comparable), run through clsplit
over --devices (default all) with adaptive-comm, a trace and a report (OUT/slowed.trace.json,
OUT/slowed.report.json), every result verified. While it runs, first other processes keep the GPU
busy (--gpu-loads of them, --busy-s seconds), then CPU-bound processes take every core (unless
--no-cpu-load). The summary (OUT/slowed.summary.txt) shows each device's share of the
work-groups and mean sub-kernel time per time window, and per phase (no load, or which load was
running): the share should move away from whichever device is loaded, and back after.
On a machine with two GPUs, `--devices gpus --items 0 --no-cpu-load` (0: enough work-items to
fill a GPU) splits over the two GPUs alone, and the competing process loads the first one.
`--trace T --load NAME=LOG ...` only summarises an earlier run's trace and load logs.

(Was scripts/gpu-slowed-device.sh with scripts/slowed_device.py: ITEMS, LOCAL, KERNEL_MS, BUSY_S,
GPU_LOADS, DEVICES, CPU_LOAD=0, WINDOW_MS -> --items, --local, --kernel-ms, --busy-s,
--gpu-loads, --devices, --no-cpu-load, --window-ms.)
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import subprocess
import time
from collections import defaultdict
from pathlib import Path

from execute import start, stop
from experiments.common import Context

NAME = "slowed-device"
SUMMARY = "one device slowed by another process during a run (bench/calls/busy_device.cpp, shares per time window)"
QUICK = {"busy_s": 1.0}
OCL_ICD_FIRST = True
SETTLE_S = 3  # the application's build, calibration and convergence before the first load


def add_arguments(parser) -> None:
    parser.add_argument("--items", type=int, default=2048, help="busy-device's work-items (0: fill a GPU; default %(default)s)")
    parser.add_argument("--local", type=int, default=32, help="work-group size (default %(default)s)")
    parser.add_argument("--kernel-ms", type=float, default=3, help="the application's kernel time (default %(default)s)")
    parser.add_argument("--busy-s", type=float, default=2, help="seconds each load lasts (default %(default)s)")
    parser.add_argument("--gpu-loads", type=int, default=1, help="competing processes on the GPU at once (default %(default)s)")
    parser.add_argument("--devices", default="all", help="CLSPLIT_DEVICES; `gpus`: every GPU (default %(default)s)")
    parser.add_argument("--no-cpu-load", dest="cpu_load", action="store_false", help="no CPU-bound load")
    parser.add_argument("--window-ms", type=float, default=250.0, help="summary's time window (default %(default)s)")
    parser.add_argument("--trace", type=Path, default=None, help="only summarise this trace (with --load)")
    parser.add_argument("--load", action="append", default=[], metavar="NAME=LOG",
                        help="with --trace: a competing load's log (start_ns= and end_ns=)")


def _spin(until: float) -> None:
    # Ended quietly by the interrupted parent (terminate() at its exit), not by Ctrl-C itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while time.monotonic() < until:
        pass


def cpu_hog(seconds: float, log: Path) -> None:
    """Every core spinning for `seconds`; start and end on the steady clock (CLOCK_MONOTONIC, which
    clsplit's trace uses too)."""
    until = time.monotonic() + seconds
    with log.open("w") as out:
        out.write("cpu-hog: %d processes, start_ns=%d\n" % (os.cpu_count(), time.monotonic_ns()))
        out.flush()
        # Daemonic: an interrupted experiment ends them at exit rather than waiting for them.
        spinners = [multiprocessing.Process(target=_spin, args=(until,), daemon=True)
                    for _ in range(os.cpu_count() or 1)]
        for p in spinners:
            p.start()
        for p in spinners:
            p.join()
        out.write("cpu-hog: end_ns=%d\n" % time.monotonic_ns())


def summarize(trace_path: Path, loads: list[tuple[str, Path]], window_ms: float) -> list[str]:
    """Each device's share of the work-groups and mean sub-kernel time per window and per phase,
    from clsplit's trace and the loads' logs (start_ns=, end_ns= on the steady clock)."""
    trace = json.loads(trace_path.read_text())
    origin_ns = trace.get("otherData", {}).get("clsplit_origin_ns", 0)
    if not origin_ns:
        raise SystemExit(f"{trace_path}: the trace has no clsplit_origin_ns")
    spans = []
    for name, path in loads:
        text = path.read_text()
        start, end = re.search(r"start_ns=(\d+)", text), re.search(r"end_ns=(\d+)", text)
        if not start or not end:
            raise SystemExit(f"{path}: no start_ns/end_ns")
        spans.append((name, (int(start.group(1)) - origin_ns) / 1e6, (int(end.group(1)) - origin_ns) / 1e6))

    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    tracks = sorted(t for t in names if t % 4 == 1)  # kernel tracks: 1 + 4 * slot
    groups = defaultdict(lambda: defaultdict(int))
    time_us = defaultdict(lambda: defaultdict(float))
    count = defaultdict(lambda: defaultdict(int))
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e["tid"] not in tracks:
            continue
        w = int(e["ts"] / 1e3 // window_ms)
        lo, hi = e["args"]["groups"]
        groups[w][e["tid"]] += hi - lo
        time_us[w][e["tid"]] += e["dur"]
        count[w][e["tid"]] += 1
    lines = ["load %s: %.0f ms to %.0f ms" % span for span in spans]
    lines += ["device %d: %s" % (i, names[t]) for i, t in enumerate(tracks)]
    lines.append("window (ms)   phase     " + "  ".join("share%d mean_us%d" % (i, i) for i in range(len(tracks))))
    phases = defaultdict(lambda: defaultdict(int))
    order = []
    for w in sorted(groups):
        lo_ms, hi_ms = w * window_ms, (w + 1) * window_ms
        inside = [n for n, s, e in spans if hi_ms > s and lo_ms < e]
        phase = "+".join(inside) if inside else "none"
        total = sum(groups[w].values()) or 1
        cells = []
        for t in tracks:
            mean = time_us[w][t] / count[w][t] if count[w][t] else 0.0
            cells.append("%6.3f %8.0f" % (groups[w][t] / total, mean))
            phases[phase][t] += groups[w][t]
        if phase not in order:
            order.append(phase)
        lines.append("%6.0f-%-6.0f %-9s %s" % (lo_ms, hi_ms, phase, "  ".join(cells)))
    lines.append("share of work-groups per phase (windows overlapping a load count for it):")
    for phase in order:
        total = sum(phases[phase].values()) or 1
        lines.append("  %-9s %s" % (phase, "  ".join("%.3f" % (phases[phase][t] / total) for t in tracks)))
    return lines


def parse_loads(specs: list[str]) -> list[tuple[str, Path]]:
    loads = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep:
            raise SystemExit(f"error: --load {spec!r}: expected NAME=LOG")
        loads.append((name, Path(path)))
    return loads


def run(ctx: Context) -> int:
    a = ctx.args
    if a.trace:
        print("\n".join(summarize(a.trace, parse_loads(a.load), a.window_ms)), flush=True)
        return 0
    m, out = ctx.machine, ctx.out
    devices = m.gpu_indices if a.devices == "gpus" else a.devices
    app_log = out / "slowed-app.log"
    env = m.clsplit_env(devices, "adaptive-comm", CLSPLIT_TRACE=str(out / "slowed.trace.json"),
                        CLSPLIT_REPORT=str(out / "slowed.report.json"))
    app_seconds = 4 * a.busy_s + SETTLE_S
    started = time.monotonic()
    # Started with execute.start: tracked, so that an interrupted experiment stops them (stop_all).
    with app_log.open("w") as handle:
        app = start(m.program("busy-device", "--items", a.items, "--local", a.local, "--kernel-ms",
                              a.kernel_ms, "--seconds", app_seconds),
                    env, stdout=handle, stderr=subprocess.STDOUT)
    time.sleep(SETTLE_S)
    load = m.program("busy-device", "--seconds", a.busy_s, "--kernel-ms", 5)
    others = []
    for i in range(1, a.gpu_loads):  # started with the main load, ending with it
        with (out / f"gpu-load{i}.log").open("w") as handle:
            others.append(start(load, m.direct_env(), stdout=handle, stderr=subprocess.STDOUT))
    with (out / "gpu-load.log").open("w") as handle:
        main_load = start(load, m.direct_env(), stdout=handle, stderr=subprocess.STDOUT)
    try:
        main_load.wait(timeout=60)
    except subprocess.TimeoutExpired:
        print("the GPU load ran past 60 s: killed", flush=True)
    stop(main_load)
    time.sleep(0.3)
    time.sleep(a.busy_s)
    loads = [("gpu-load", out / "gpu-load.log")]
    if a.cpu_load:
        cpu_hog(a.busy_s, out / "cpu-load.log")
        loads.append(("cpu-load", out / "cpu-load.log"))
    for p in others + [app]:  # within 120 s of the application's start, as `timeout 120` allowed it
        try:
            p.wait(timeout=max(1.0, 120 - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            pass
        stop(p)  # killed (its whole group) if still running, reaped
    rc = app.returncode
    print(f"application rc={rc}", flush=True)
    for path in [app_log, out / "gpu-load.log"] + ([out / "cpu-load.log"] if a.cpu_load else []):
        print(path.read_text(errors="replace"), end="", flush=True)
    try:
        lines = summarize(out / "slowed.trace.json", loads, a.window_ms)
    except (OSError, ValueError, KeyError) as error:
        print(f"no summary: {error}", flush=True)
        return 1
    (out / "slowed.summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    return 0 if rc == 0 else 1
