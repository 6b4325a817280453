"""call-costs: the host cost of a launch (bench/calls/call_costs.cpp: back-to-back
clEnqueueNDRangeKernel without and with an event), directly on the GPU and through clsplit: the GPU
alone with clsplit's defaults (where the GPU is the only device of its platform, clsplit steps
aside and only the vendor's calls remain), the GPU alone through clsplit's layer
(CLSPLIT_PASSTHROUGH=off) with eventless commands on and off (CLSPLIT_EVENTLESS), the GPU and the
CPU with adaptive-comm (launches stay whole), and split launches (`uniform`, fewer launches:
--split-count). Each configuration --repeat times; prints the program's first two rows per run as
`LABEL | ROW` (us per call) and writes them to OUT/call-costs.log.

(Was scripts/gpu-call-costs.sh: COUNT -> --count, REPEAT -> --repeat.)
"""

from __future__ import annotations

from experiments.common import Context, run_command, tail

NAME = "call-costs"
SUMMARY = "host cost of one launch (bench/calls/call_costs.cpp), direct on the GPU and through clsplit"
QUICK = {"count": 1000, "split_count": 200, "repeat": 1}
OCL_ICD_FIRST = True


def add_arguments(parser) -> None:
    parser.add_argument("--count", type=int, default=4000, help="launches per row (default %(default)s)")
    parser.add_argument("--split-count", type=int, default=500,
                        help="launches per row for the split configuration (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration (default %(default)s)")


def run(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    gpu = str(m.gpu.index)
    configs = [
        ("direct GPU", m.direct_env(), a.count),
        ("clsplit GPU alone, defaults", m.clsplit_env(gpu), a.count),
        ("clsplit GPU alone, layer, eventless", m.clsplit_env(gpu, CLSPLIT_PASSTHROUGH="off", CLSPLIT_EVENTLESS="1"),
         a.count),
        ("clsplit GPU alone, layer, events", m.clsplit_env(gpu, CLSPLIT_PASSTHROUGH="off", CLSPLIT_EVENTLESS="0"),
         a.count),
        ("clsplit GPU+CPU adaptive-comm", m.clsplit_env(m.gpu_and_cpu, "adaptive-comm"), a.count),
        ("clsplit GPU+CPU uniform (split)", m.clsplit_env(m.gpu_and_cpu, "uniform"), a.split_count),
    ]
    failed = 0
    with ctx.log("call-costs.log") as log:
        for label, env, count in configs:
            for _ in range(a.repeat):
                done = run_command(m.program("call-costs", "--count", count), env, timeout=300)
                rows = done.stdout.splitlines()[1:3]
                if done.returncode != 0 or len(rows) < 2:
                    failed += 1
                    log(f"{label} | failed (exit {done.returncode}): {tail(done.output, 1)}")
                for row in rows:
                    log(f"{label} | {row}")
    return 1 if failed else 0

