"""launch-cost: launch-pattern costs on one GPU, side by side with an older build. Every pattern of
bench/workloads/launches (or a workload NAME:SIZE:ITERS, whose count is then its iterations) run
directly on the GPU and through clsplit with its defaults (kind `new`), alternated, at each
launch count; medians of the program's timed region (runs without a report) and clsplit's own host
time per launch (one more run per kind with a run report, CLSPLIT_REPORT_TIMING=0). Kinds:
`direct`, `new`, `twice` (the same split over the GPU selected twice, `uniform`: the split path's
cost on one GPU), `old` and `old-twice` with the build in --old (an installed tree with an older
libclsplit.so and launcher; default .device-old when it exists), and --variant NAME=K=V+K=V (the
new build with these settings). Prints per pattern and count `| KIND us/l xRATIO own US` (us per
launch, per iteration for workloads; ratio = direct / this kind); records in
OUT/launch-cost.json (appended to by later calls with the same OUT), report digests in
OUT/reports.json.

    python3 bench/harness/experiment.py launch-cost --build .device [--counts 1000,10000,100000] [--repeat 3]
    python3 bench/harness/experiment.py launch-cost --build .device --patterns jacobi2d:8192:20,fdtd2d:4096:50 \\
        --counts 0 --kinds direct,twice,old-twice

(Was scripts/gpu-launch-cost.py, same options.) Not to be confused with the harness's launch-cost
suites (run.py --suite launch-cost|gpu1-launch-cost, summarised by bench/harness/launch_cost.py).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path

import clsplit_report
from experiments.common import Context, run_command

NAME = "launch-cost"
SUMMARY = "launch patterns (bench/workloads/launches) on one GPU: direct, through clsplit, split over it twice, older build"
QUICK = {"counts": "1000", "patterns": "tiny,markers", "repeat": 1, "budget": 90}
# Sizes where each pattern's kernels take a few microseconds on an H200.
SIZES = {"plane": 64, "kloop": 64, "tiny": 16384, "alternate": 64, "markers": 16384, "large": 512, "readback": 16384}


def add_arguments(parser) -> None:
    parser.add_argument("--counts", default="1000,10000,100000")
    parser.add_argument("--patterns", default=",".join(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--budget", type=float, default=420, help="seconds before no new run starts")
    parser.add_argument("--old", type=Path, default=Path(".device-old"), help="the older build (default %(default)s)")
    parser.add_argument("--old-max", type=int, default=10000, help="largest count run with the old build")
    parser.add_argument("--twice-max", type=int, default=10000, help="largest count run split over the GPU twice")
    parser.add_argument("--old-skip", default="markers", help="patterns not run with the old build (it hangs on markers)")
    parser.add_argument("--kinds", default=None, help="which of direct,new,twice,old,old-twice to run (default: all there are)")
    parser.add_argument("--variant", action="append", default=[],
                        help="NAME=KEY=VALUE+KEY=VALUE: the new build with these settings, run as kind NAME")


class Runner:
    def __init__(self, ctx: Context):
        self.ctx, self.m, self.a = ctx, ctx.machine, ctx.args
        self.old = self.a.old.resolve() if (self.a.old / "bin" / "clsplit").is_file() else None
        if self.old and (self.old / "lib" / "libclsplit.so").is_file():
            # An older launcher may take the library from the vendors file, which names where the
            # tree was installed: name it here.
            (self.old / "vendors").mkdir(exist_ok=True)
            (self.old / "vendors" / "clsplit.icd").write_text(f"{self.old}/lib/libclsplit.so\n")
        self.variants = {}
        for v in self.a.variant:
            name, settings = v.split("=", 1)
            self.variants[name] = dict(kv.split("=", 1) for kv in settings.split("+"))
        self.reports = {}  # a digest of each report run, by "kind pattern count"
        if (ctx.out / "reports.json").exists():  # an earlier call of this command (the same OUT)
            self.reports.update(json.loads((ctx.out / "reports.json").read_text()))

    def program_of(self, pattern: str, count: int) -> list[str]:
        if pattern in SIZES:
            return self.m.program("launches", "--pattern", pattern, "--iters", count, "--size", SIZES[pattern])
        name, size, iters = pattern.split(":")
        return self.m.program(name, "--size", size, "--iters", iters)

    def run(self, kind: str, pattern: str, count: int, report: Path | None = None) -> dict:
        program = self.program_of(pattern, count)
        if kind == "direct":
            env = self.m.direct_env(**self.variants.get(kind, {}))
            command = program
        else:
            env = self.m.env(**self.variants.get(kind, {}))
            launcher = self.old / "bin" / "clsplit" if kind.startswith("old") else self.m.launcher
            command = [str(launcher), "--"] + program
            if kind.endswith("twice"):  # the split path on one GPU: the GPU selected twice, split evenly
                env["CLSPLIT_DEVICES"] = f"{self.m.gpu.index},{self.m.gpu.index}"
                env["CLSPLIT_STRATEGY"] = "uniform"
            if report:
                env["CLSPLIT_REPORT"] = str(report)
                env["CLSPLIT_REPORT_TIMING"] = "0"
        done = run_command(command, env, timeout=300)
        m = re.search(r" seconds=([0-9.e+-]+) .*verified=(\d)", done.stdout)
        own = None
        if report and report.exists():
            try:
                raw = json.loads(report.read_text())
                own = clsplit_report.summarize(raw).launch_own_us
                # What the run did, without the per-launch histories: OUT/reports.json
                part = raw.get("partitioner") or {}
                self.reports[f"{kind} {pattern} {count}"] = {
                    "kernels": raw.get("kernels"), "transfers": raw.get("transfers"),
                    "pinned_host": raw.get("pinned_host"), "lp": part.get("lp"), "sequence": part.get("sequence"),
                    "hostOverheadPerSubLaunchNs": part.get("hostOverheadPerSubLaunchNs"),
                    "settledLaunches": part.get("settledLaunches"),
                    "host_time": raw.get("host_time", [])[:6], "driver_calls": raw.get("driver_calls", [])[:10]}
                (self.ctx.out / "reports.json").write_text(json.dumps(self.reports, indent=1))
                report.unlink()
            except (OSError, ValueError):
                pass
        made = re.search(r"launches=(\d+)", done.stdout)
        return {"kind": kind, "pattern": pattern, "count": count, "seconds": float(m.group(1)) if m else None,
                "verified": bool(m and m.group(2) == "1"), "own_us": own, "wall": done.wall_s,
                "launches": int(made.group(1)) if made else count, "rc": done.returncode,
                "error": None if m else (done.stdout[-400:] + done.stderr[-400:])}


def run(ctx: Context) -> int:
    a = ctx.args
    r = Runner(ctx)
    start = time.monotonic()
    kinds = ["direct", "new", "twice"] + (["old", "old-twice"] if r.old else []) + list(r.variants)
    if a.kinds:
        kinds = [k for k in a.kinds.split(",") if k in kinds]
    old_skip = a.old_skip.split(",")

    def skipped(kind: str, pattern: str, count: int) -> bool:
        return (kind.startswith("old") and (count > a.old_max or pattern in old_skip)) or \
            (kind.endswith("twice") and count > a.twice_max)

    # Written after what an earlier call of this command left in OUT (several calls per machine).
    path = ctx.out / "launch-cost.json"
    earlier = json.loads(path.read_text()) if path.exists() else []
    records = []
    for pattern in a.patterns.split(","):
        counts = [int(c) for c in a.counts.split(",")] if pattern in SIZES else [int(pattern.split(":")[2])]
        for count in counts:
            r.run("direct", pattern, min(count, 1000))  # warm PoCL/NVIDIA caches
            r.run("new", pattern, min(count, 1000))
            for rep in range(a.repeat):
                for kind in kinds:
                    if skipped(kind, pattern, count):
                        continue
                    if time.monotonic() - start > a.budget:
                        break
                    rec = r.run(kind, pattern, count)
                    rec["rep"] = rep
                    records.append(rec)
                    if rec["error"]:
                        print("ERROR", pattern, count, kind, rec["error"], flush=True)
            # Own time from one report run per kind (a report's bookkeeping, ~0.7 us per launch
            # on the 2-core machine, stays out of the timed runs above).
            for kind in kinds:
                if kind == "direct" or skipped(kind, pattern, count) or time.monotonic() - start > a.budget:
                    continue
                rec = r.run(kind, pattern, count, report=ctx.scratch / f"r-{kind}.json")
                records.append({"kind": kind, "pattern": pattern, "count": count, "own_us": rec["own_us"],
                                "seconds": None, "rep": "report", "verified": rec["verified"],
                                "launches": rec["launches"]})
            path.write_text(json.dumps(earlier + records, indent=1))
            row = f"{pattern:9s} {count:7d}"  # us per launch (per iteration for workloads)
            med = {}
            for kind in kinds:
                mine = [x for x in records if x["kind"] == kind and x["pattern"] == pattern and x["count"] == count]
                secs = [x["seconds"] for x in mine if x["seconds"] is not None]
                owns = [x["own_us"] for x in mine if x["own_us"] is not None]
                made = [x["launches"] for x in records if x["pattern"] == pattern and x["count"] == count]
                if not secs:
                    continue
                med[kind] = statistics.median(secs)
                n = made[0] if made else count
                row += f" | {kind} {med[kind] * 1e6 / n:8.2f} us/l"
                if kind != "direct":
                    row += f" x{med['direct'] / med[kind]:5.2f}" if "direct" in med else ""
                    row += f" own {statistics.median(owns):6.2f}" if owns else ""
            bad = [x for x in records if x["pattern"] == pattern and x["count"] == count and not x["verified"]]
            print(row + (f"  UNVERIFIED x{len(bad)}" if bad else ""), flush=True)
    print(f"total {time.monotonic() - start:.0f} s")
    return 1 if any(not x["verified"] for x in records) else 0
