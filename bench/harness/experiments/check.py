"""check: that the machine runs clsplit as it should, then a harness suite. First the loaders
(OUT/env.log): the GPUs, the registered vendors, libclsplit's missing libraries, clsplit's device
list, and what a program sees through the Khronos loader, through ocl-icd and through the
launcher. Then a correctness sweep (OUT/correctness.log): every workload at moderate sizes
through the launcher on every device and on the GPUs, `uniform` and adaptive-comm, one line per
run with its exit status, verified=, seconds= and split/all launches per kernel. Then the harness
suite --suite (run.py, into OUT/bench; the last 60 lines in OUT/bench.log).

(Was scripts/gpu-check.sh: CHECK_CORRECTNESS=0 -> --no-correctness, BENCH_SUITE (none: skip),
BENCH_REPEAT, BENCH_BUDGET -> --suite, --repeat, --budget.)
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import clsplit_report
from execute import parse_result_line
from experiments.common import Context, run_command, tail
from machine import OCL_ICD_DIR

NAME = "check"
SUMMARY = "loader isolation, a correctness sweep of every workload through clsplit, then a harness suite"
QUICK = {"sweep_iters": 2, "sweep_strategies": "uniform", "suite": "smoke", "repeat": 1, "budget": 30}
# Moderate sizes: seconds on a GPU, and a CPU's share of a split still verifies in about a second.
SIZES = {"jacobi1d": 1048576, "jacobi2d": 2048, "fdtd2d": 1024, "2spmv": 131072, "spmv-skewed": 262144,
         "sotl": 65536, "gemm": 1024, "2mm": 512, "ep": 131072}
HARNESS = Path(__file__).resolve().parents[1]


def add_arguments(parser) -> None:
    parser.add_argument("--no-correctness", dest="correctness", action="store_false", help="skip the sweep")
    parser.add_argument("--sweep-workloads", default=",".join(SIZES), metavar="NAME[:SIZE],...",
                        help="workloads of the sweep, a size each for those not in SIZES (default: all)")
    parser.add_argument("--sweep-sizes", default="", metavar="NAME=SIZE,...", help="sizes other than the defaults")
    parser.add_argument("--sweep-iters", type=int, default=10, help="iterations per sweep run (default %(default)s)")
    parser.add_argument("--sweep-strategies", default="uniform,adaptive-comm",
                        help="strategies of the sweep (default %(default)s)")
    parser.add_argument("--suite", default="full-gpus", help="harness suite, `none` to skip (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=2, help="the suite's repeats (default %(default)s)")
    parser.add_argument("--budget", type=float, default=240, help="the suite's time budget, s (default %(default)s)")


def environment(ctx: Context) -> None:
    m = ctx.machine
    with ctx.log("env.log") as log:
        def show(title: str, command: list[str], env: dict[str, str]) -> None:
            log(f"== {title}")
            done = run_command(command, env, timeout=120, merge=True)
            log(done.stdout.rstrip("\n"))

        log("== machine")
        log(run_command(["nvidia-smi", "-L"], m.env(), timeout=60, merge=True).stdout.rstrip("\n")
            if shutil.which("nvidia-smi") else "(no nvidia-smi)")
        log(" ".join(sorted(p.name for p in Path("/etc/OpenCL/vendors").glob("*"))))
        log("\n".join(l for l in run_command(["ldconfig", "-p"], m.env(), timeout=60).stdout.splitlines()
                      if "libOpenCL.so.1" in l))
        log("== ldd libclsplit (missing?)")
        missing = [l for l in run_command(["ldd", str(m.library)], m.env(), timeout=60).stdout.splitlines()
                   if "not found" in l]
        log("\n".join(missing) if missing else "none missing")
        show("clsplit --list-devices", [str(m.launcher), "--list-devices"], m.env())
        lister = m.program("list-devices")
        show("Khronos loader (ldconfig default): program sees", lister, m.clsplit_env())
        show("ocl-icd: program sees", lister,
             m.env(LD_LIBRARY_PATH=f"{OCL_ICD_DIR}:{m.base['LD_LIBRARY_PATH']}", OCL_ICD_VENDORS=str(m.clsplit_vendors)))
        show("via the launcher (sets both)", m.through_launcher(lister), m.env())


def sweep_plan(workloads: str, sizes_text: str) -> list[tuple[str, int]]:
    """(workload, size) of the sweep from --sweep-workloads (NAME or NAME:SIZE) and --sweep-sizes
    (NAME=SIZE); a workload without a size is a usage error, before anything runs."""
    sizes = dict(SIZES)
    for item in (i.strip() for i in sizes_text.split(",") if i.strip()):
        name, sep, size = item.partition("=")
        if not sep or not size.strip().isdigit():
            raise SystemExit(f"error: --sweep-sizes {item!r}: expected NAME=SIZE")
        sizes[name.strip()] = int(size)
    plan = []
    for item in (i.strip() for i in workloads.split(",") if i.strip()):
        name, sep, size = item.partition(":")
        if sep and not size.strip().isdigit():
            raise SystemExit(f"error: --sweep-workloads {item!r}: expected NAME or NAME:SIZE")
        if not sep and name not in sizes:
            raise SystemExit(f"error: --sweep-workloads: no size for {name!r} (sizes: {', '.join(sizes)}); "
                             f"give {name}:SIZE or --sweep-sizes {name}=SIZE")
        plan.append((name, int(size) if sep else sizes[name]))
    return plan


def sweep(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    plan = sweep_plan(a.sweep_workloads, a.sweep_sizes)
    report = ctx.out / "r.json"
    failed = 0
    with ctx.log("correctness.log") as log:
        for devices in ("all", m.gpu_indices):
            for strategy in (s for s in a.sweep_strategies.split(",") if s):
                for workload, size in plan:
                    report.unlink(missing_ok=True)
                    program = m.program(workload, "--size", size, "--iters", a.sweep_iters)
                    done = run_command(m.through_launcher(program),
                                       m.env(CLSPLIT_DEVICES=devices, CLSPLIT_STRATEGY=strategy,
                                             CLSPLIT_REPORT=str(report)), timeout=120, merge=True)
                    result = parse_result_line(done.stdout)
                    summary = clsplit_report.load(report)
                    split = " ".join(f"{k.name}:{k.split_launches}/{k.launches}" for k in summary.kernels
                                     if k.launches is not None) if summary else ""
                    fields = " ".join(f"{k}={result[k]}" for k in ("verified", "seconds") if k in result)
                    log(f"devices={devices} {strategy} {workload} rc={done.returncode} {fields} {split}".rstrip())
                    if done.returncode != 0 or result.get("verified") != "1":
                        failed += 1
                        if done.returncode != 0:
                            log(tail(done.stdout, 4))
    report.unlink(missing_ok=True)
    return failed


def suite(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    command = [sys.executable, str(HARNESS / "run.py"), "--build", str(m.build), "--suite", a.suite,
               "--repeat", str(a.repeat), "--time-budget", str(a.budget), "--out", str(ctx.out / "bench")]
    done = run_command(command, m.env(), merge=True)
    with ctx.log("bench.log") as log:
        log(tail(done.stdout, 60))
    return done.returncode


def run(ctx: Context) -> int:
    if ctx.args.correctness:
        sweep_plan(ctx.args.sweep_workloads, ctx.args.sweep_sizes)  # usage errors before any run
    environment(ctx)
    failed = sweep(ctx) if ctx.args.correctness else 0
    rc = suite(ctx) if ctx.args.suite != "none" else 0
    return 1 if failed or rc else 0
