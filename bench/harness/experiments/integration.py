"""integration: every integration program (itest_*, but itest_info: it prints the device's
properties) directly on the GPU (the reference), then through clsplit on every device (GPUs and
the CPU, two vendors) with each strategy; every output byte must match the reference. Default
strategies: uniform, two `static` (uneven ratios, and all on the last device: the CPU) and
adaptive-comm. Prints one line per run and `integration programs: P identical, F different`;
a reference's stderr goes to OUT/NAME.gpu-reference.err.

(Was scripts/gpu-integration.sh: STRATEGIES -> --strategies.)
"""

from __future__ import annotations

import difflib
import re

from experiments.common import Context, run_command, tail

NAME = "integration"
SUMMARY = "every integration program direct on the GPU vs. split over all devices: byte-identical"
QUICK = {"strategies": ["uniform"]}
OCL_ICD_FIRST = True
# What CL_MEM_USE_HOST_PTR memory holds before a map is left to the implementation: NVIDIA leaves
# it stale, CPU runtimes and clsplit (CLSPLIT_HOST_PTR_SYNC) keep it current.
IMPLEMENTATION_DEFINED = "use_host_ptr memory after"


def add_arguments(parser) -> None:
    parser.add_argument("--strategies", nargs="+", default=None, metavar="STRATEGY",
                        help="CLSPLIT_STRATEGY values (default: uniform, static uneven, static all on the last "
                             "device, adaptive-comm)")
    parser.add_argument("--programs", nargs="+", default=None, metavar="NAME",
                        help="only these programs (itest_ prefix optional)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per run (default %(default)s)")


def default_strategies(n: int) -> list[str]:
    # Static ratios need one per device: uneven ones, and all on the last device (the CPU).
    uneven = ",".join("%.2f" % ((i + 1) / (n * (n + 1) / 2)) for i in range(n))
    last = ",".join(["0"] * (n - 1) + ["1"])
    return ["uniform", f"static:{uneven}", f"static:{last}", "adaptive-comm"]


def comparable(stdout: str) -> str:
    return "".join(l for l in stdout.splitlines(keepends=True) if not l.startswith(IMPLEMENTATION_DEFINED))


def run(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    n = len(m.devices)
    strategies = a.strategies or default_strategies(n)
    print(f"{n} devices; strategies: {' '.join(strategies)}", flush=True)
    wanted = {p if p.startswith("itest_") else f"itest_{p}" for p in a.programs or []}
    programs = sorted(p for p in m.itest.glob("itest_*") if p.is_file() and (not wanted or p.name in wanted))
    if not programs:
        raise SystemExit(f"error: no integration programs in {m.itest}")
    passed = failed = 0
    for program in programs:
        name = program.name
        if name == "itest_info":
            continue
        ref = run_command([str(program)], m.direct_env(), timeout=a.timeout)
        (ctx.out / f"{name}.gpu-reference.err").write_text(ref.stderr)
        if ref.returncode != 0:
            # Some programs check API behaviour that NVIDIA's driver does differently from PoCL's (on
            # which they were written, e.g. sub-buffer alignment): their reference is the CPU via PoCL.
            print(f"{name}: direct run on the GPU failed (rc={ref.returncode}: {tail(ref.stderr, 1)}); "
                  "reference: the CPU", flush=True)
            ref = run_command([str(program)], m.direct_env(m.cpu_vendors), timeout=a.timeout)
            if ref.returncode != 0:
                print(f"{name} reference failed on the CPU too (rc={ref.returncode})", flush=True)
                continue
        expected = comparable(ref.stdout)
        for strategy in strategies:
            got = run_command([str(program)], m.clsplit_env("all", strategy, CLSPLIT_DEVICE_TYPE="gpu"),
                              timeout=a.timeout)
            (ctx.scratch / f"{name}.err").write_text(got.stderr)
            misapplied = next((l for l in got.stderr.splitlines()
                               if re.search("CLSPLIT_STRATEGY.*using adaptive-comm", l)), None)
            if misapplied:  # misconfigured: not what was asked
                failed += 1
                print(f"{name} {strategy}: strategy not applied: {misapplied}", flush=True)
            elif got.returncode == 0 and comparable(got.stdout) == expected:
                passed += 1
                print(f"{name} {strategy}: identical", flush=True)
            else:
                failed += 1
                print(f"{name} {strategy}: DIFFERENT (rc={got.returncode})", flush=True)
                diff = [l.rstrip("\n") for l in difflib.unified_diff(
                    expected.splitlines(), comparable(got.stdout).splitlines(), "reference", "clsplit", n=0,
                    lineterm="")][2:]
                print("\n".join(diff[:5] + [tail(got.stderr, 3)]).rstrip(), flush=True)
    print(f"integration programs: {passed} identical, {failed} different", flush=True)
    return 1 if failed else 0
