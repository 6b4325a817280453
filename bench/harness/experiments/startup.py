"""startup: where a short run's time goes with the adaptive strategies. jacobi2d (--size, --iters;
default 2048, 50) --repeat times, the configurations alternated: the GPU directly, clsplit `single`
over the GPU and the CPU, adaptive-comm over the GPU alone and over the GPU and the CPU (the first two
through clsplit's layer, CLSPLIT_PASSTHROUGH=off: one device runs everything there, where clsplit
would otherwise step aside and time the vendor alone). Per
configuration the median of the program's timed loop (`seconds`, with min, max and the number of
verified runs), and the median of what comes before it (`total_seconds - seconds`: the initial
writes and a clFinish). Every run's `CONFIG seconds verified total_seconds` goes to
OUT/startup-runs.log.

(Was scripts/gpu-startup.sh: SIZE, ITERS, REPEAT -> --size, --iters, --repeat.)
"""

from __future__ import annotations

import statistics

from execute import parse_result_line
from experiments.common import Context, run_command

NAME = "startup"
SUMMARY = "a short run's time (jacobi2d 2048 x 50): direct, `single`, adaptive-comm on the GPU and on GPU+CPU"
QUICK = {"size": 512, "iters": 20, "repeat": 2}
OCL_ICD_FIRST = True
ORDER = ("direct", "single-gpu+cpu", "adaptive-comm-gpu", "adaptive-comm-gpu+cpu")


def add_arguments(parser) -> None:
    parser.add_argument("--size", type=int, default=2048, help="jacobi2d's n (default %(default)s)")
    parser.add_argument("--iters", type=int, default=50, help="iterations (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=7, help="runs per configuration (default %(default)s)")


def run(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    envs = {
        "direct": m.direct_env(),
        "single-gpu+cpu": m.clsplit_env(m.gpu_and_cpu, "single", CLSPLIT_PASSTHROUGH="off"),
        "adaptive-comm-gpu": m.clsplit_env(str(m.gpu.index), "adaptive-comm", CLSPLIT_PASSTHROUGH="off"),
        "adaptive-comm-gpu+cpu": m.clsplit_env(m.gpu_and_cpu, "adaptive-comm"),
    }
    timed = {c: [] for c in ORDER}
    before = {c: [] for c in ORDER}
    bad = 0
    with ctx.log("startup-runs.log") as runs:
        for _ in range(a.repeat):
            for config in ORDER:
                done = run_command(m.program("jacobi2d", "--size", a.size, "--iters", a.iters), envs[config],
                                   timeout=300, merge=True)
                result = parse_result_line(done.stdout)
                try:
                    seconds, total = float(result["seconds"]), float(result["total_seconds"])
                except (KeyError, ValueError):
                    seconds = total = None
                runs(f"{config} {result.get('seconds', '')} {result.get('verified', '')} "
                     f"{result.get('total_seconds', '')}".rstrip())
                if seconds is None or result.get("verified") != "1":
                    bad += 1
                    continue
                timed[config].append(seconds * 1e3)
                before[config].append((total - seconds) * 1e3)
    for config in ORDER:
        t = timed[config]
        if t:
            print("%-24s median %6.2f ms  (min %6.2f, max %6.2f, %d runs); writes before it: median %6.2f ms" % (
                config, statistics.median(t), min(t), max(t), len(t), statistics.median(before[config])))
    print("unverified or failed runs:", bad, flush=True)
    return 1 if bad else 0
