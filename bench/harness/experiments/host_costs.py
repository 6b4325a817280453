"""host-costs: clsplit's own host time per launch of a real program (jacobi1d: a stencil and a copy
per iteration, halos moved between devices), from the run report's host_time with
CLSPLIT_REPORT_TIMING=0 (nothing timed that an ordinary run would not time). Configurations: two
PoCL CPU devices (split launches, the partitioner measuring them), the GPU and the CPU split by
fixed ratios and by adaptive-comm (unsplit), and the GPU alone through clsplit. Per run:
launches, split launches, clsplit's own and the vendor's time per launch, the application
thread's enqueue loop (jacobi1d's enqueue_* fields) and the vendor calls per launch. Printed and
written to OUT/host-costs.log (the last run's report: OUT/host.json, its output OUT/host-run.log;
a failed run's output: OUT/host-run.failed-N.log).

(Was scripts/gpu-host-costs.sh: SIZE, ITERS, REPEAT, ONLY, POCL_PAIR -> --size, --iters, --repeat,
--only, --pocl-pair.)
"""

from __future__ import annotations

import re

import clsplit_report
from execute import parse_result_line
from experiments.common import Context, run_command, strategy_not_applied, tail
from machine import static_strategy

NAME = "host-costs"
SUMMARY = "clsplit's own host time and vendor calls per launch of jacobi1d (run report, CLSPLIT_REPORT_TIMING=0)"
QUICK = {"iters": 200, "repeat": 1}
OCL_ICD_FIRST = True


def add_arguments(parser) -> None:
    parser.add_argument("--size", type=int, default=1048576, help="jacobi1d's points (default %(default)s)")
    parser.add_argument("--iters", type=int, default=2000, help="iterations (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration (default %(default)s)")
    parser.add_argument("--only", default=None, metavar="REGEX", help="run only the configurations whose label matches")
    parser.add_argument("--pocl-pair", default=None,
                        help="POCL_DEVICES of the two-CPU configurations (default: the machine's POCL_DEVICES "
                             "when it sets one, else 'cpu cpu')")


def describe(label: str, summary: clsplit_report.ReportSummary, result: dict[str, str]) -> list[str]:
    split = sum(k.split_launches or 0 for k in summary.kernels)
    n = summary.launch_calls
    lines = ["%-34s launches %6d split %6d | own %5.1f us/launch | driver %5.1f us/launch (%4.1f calls)" % (
        label, n, split, summary.launch_own_us, summary.launch_driver_us, summary.launch_driver_calls)]
    if "enqueue_ms" in result:  # the application thread during its enqueue loop (bench/workloads/jacobi1d)
        lines.append("    enqueue loop: %.1f us/launch wall, %.1f us on a CPU, %.1f us preempted, %.2f timeslices" % (
            float(result["enqueue_ms"]) * 1e3 / n, float(result["enqueue_cpu_ms"]) * 1e3 / n,
            float(result["enqueue_preempted_ms"]) * 1e3 / n, float(result["enqueue_timeslices"]) / n))
    lines.append("    vendor calls per launch: " + ", ".join(
        "%s %.1f" % (d["function"], d["calls"] / n) for d in summary.vendor_calls[:6]))
    return lines


def run(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    pair = a.pocl_pair or m.base.get("POCL_DEVICES") or "cpu cpu"
    gpu = str(m.gpu.index)
    cpus = {"CLSPLIT_VENDORS": str(m.cpu_vendors), "POCL_DEVICES": pair}
    # 0.9 on the GPU, one ratio per device that GPU+CPU selects (every device without a CPU).
    ratios = static_strategy(0.9, m.gpu_and_cpu_count)
    configs = [
        ("2 PoCL CPUs adaptive-comm", dict(cpus, CLSPLIT_STRATEGY="adaptive-comm")),
        ("2 PoCL CPUs adaptive", dict(cpus, CLSPLIT_STRATEGY="adaptive")),
        ("2 PoCL CPUs uniform", dict(cpus, CLSPLIT_STRATEGY="uniform")),
        (f"GPU+CPU {ratios}", {"CLSPLIT_DEVICES": m.gpu_and_cpu, "CLSPLIT_STRATEGY": ratios}),
        ("GPU+CPU uniform", {"CLSPLIT_DEVICES": m.gpu_and_cpu, "CLSPLIT_STRATEGY": "uniform"}),
        ("GPU+CPU adaptive-comm (unsplit)", {"CLSPLIT_DEVICES": m.gpu_and_cpu, "CLSPLIT_STRATEGY": "adaptive-comm"}),
        ("GPU alone adaptive-comm", {"CLSPLIT_DEVICES": gpu, "CLSPLIT_STRATEGY": "adaptive-comm"}),
    ]
    report = ctx.out / "host.json"
    output = ctx.out / "host-run.log"
    failed = 0
    with ctx.log("host-costs.log") as log:
        for label, settings in configs:
            if a.only and not re.search(a.only, label):
                continue
            for _ in range(a.repeat):
                report.unlink(missing_ok=True)
                env = m.clsplit_env(**settings, CLSPLIT_REPORT=str(report), CLSPLIT_REPORT_TIMING="0")
                done = run_command(m.program("jacobi1d", "--size", a.size, "--iters", a.iters), env,
                                   timeout=600, merge=True)
                output.write_text(done.stdout)
                summary = clsplit_report.load(report)
                misapplied = strategy_not_applied(done.stdout)
                if done.returncode != 0 or summary is None or not summary.launch_calls or misapplied:
                    failed += 1
                    # Its whole output kept: the next run overwrites host-run.log.
                    kept = ctx.out / f"host-run.failed-{failed}.log"
                    kept.write_text(f"{label}\n{done.stdout}")
                    log(f"{label}: failed" + (f": strategy not applied: {misapplied}" if misapplied else "")
                        + f" (output: {kept})")
                    log(tail(done.stdout, 10))
                    continue
                for line in describe(label, summary, parse_result_line(done.stdout)):
                    log(line)
    return 1 if failed else 0
