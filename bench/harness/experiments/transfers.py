"""transfers: pinned against pageable host memory for clsplit's host copies and cross-vendor
staging, side by side (alternated, --repeat times). bench/calls/transfer_costs.cpp (the GPU and
the CPU exchange halves of a buffer every kernel): directly on the GPU, then through clsplit over
the GPU and the CPU (`static:0.5,0.5`; even ratios over every device where there is no CPU) with
each CLSPLIT_PINNED_MB of --pinned-mb (0: pageable; reports in OUT/transfer-MB-REPEAT.json); then
GPU+CPU adaptive-comm workloads with each setting (their RESULT lines). Lines are
`CONFIG | OUTPUT LINE`, printed and written to OUT/transfers.log.

(Was scripts/gpu-transfers.sh: MIB, ITERS, REPEAT, WORKLOADS -> --mib, --iters, --repeat,
--workloads.)
"""

from __future__ import annotations

from experiments.common import Context, run_command, strategy_not_applied, tail
from machine import static_strategy

NAME = "transfers"
SUMMARY = "pinned vs pageable host memory (bench/calls/transfer_costs.cpp, GPU+CPU workloads)"
QUICK = {"mib": 16, "iters": 4, "repeat": 1, "workloads": "jacobi2d:1024"}
OCL_ICD_FIRST = True


def add_arguments(parser) -> None:
    parser.add_argument("--mib", type=int, default=64, help="MiB per buffer of transfer-costs (default %(default)s)")
    parser.add_argument("--iters", type=int, default=10, help="transfer-costs' iterations (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default %(default)s)")
    parser.add_argument("--workloads", default="jacobi2d:2048,fdtd2d:2048,jacobi1d:16777216",
                        help="NAME:SIZE[:ITERS],... run with adaptive-comm over GPU+CPU (default %(default)s)")
    parser.add_argument("--pinned-mb", default="0,1024", help="CLSPLIT_PINNED_MB values compared (default %(default)s)")


def run(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    pinned = [p for p in a.pinned_mb.split(",") if p]
    failed = 0
    with ctx.log("transfers.log") as log:
        def show(label: str, done, lines: list[str]) -> None:
            nonlocal failed
            misapplied = strategy_not_applied(done.output)
            if done.returncode != 0 or not lines or misapplied:
                failed += 1
                lines = lines or [f"failed (exit {done.returncode}): {tail(done.output, 1)}"]
                lines += [f"strategy not applied: {misapplied}"] if misapplied else []
            for line in lines:
                log(f"{label} | {line}")

        # Even ratios, one per device that GPU+CPU selects (two, or every device without a CPU).
        even = static_strategy(1 / m.gpu_and_cpu_count, m.gpu_and_cpu_count)
        transfer = m.program("transfer-costs", "--mib", a.mib, "--iters", a.iters)
        for r in range(1, a.repeat + 1):
            done = run_command(transfer, m.direct_env(), timeout=300, merge=True)
            show("direct GPU", done, done.stdout.splitlines())
            for mb in pinned:
                env = m.clsplit_env(m.gpu_and_cpu, even, CLSPLIT_PINNED_MB=mb,
                                    CLSPLIT_REPORT=str(ctx.out / f"transfer-{mb}-{r}.json"))
                done = run_command(transfer, env, timeout=300, merge=True)
                show(f"clsplit GPU+CPU {even} pinned_mb={mb}", done, done.stdout.splitlines())
        for spec in (w for w in a.workloads.split(",") if w):
            name, size, *iters = spec.split(":")
            command = m.program(name, "--size", size, *(["--iters", iters[0]] if iters else []))
            for _ in range(a.repeat):
                for mb in pinned:
                    done = run_command(command, m.clsplit_env(m.gpu_and_cpu, "adaptive-comm", CLSPLIT_PINNED_MB=mb),
                                       timeout=300, merge=True)
                    show(f"adaptive-comm GPU+CPU pinned_mb={mb}", done,
                         [l for l in done.stdout.splitlines() if "RESULT" in l])
    return 1 if failed else 0
