"""integration: every integration program (itest_*, but itest_info: it prints the device's
properties) directly on the GPU (the reference), then through clsplit on every device (GPUs and
the CPU, two vendors) with each strategy; every output byte must match the reference. Default
strategies: uniform, two `static` (uneven ratios, and all on the last device: the CPU) and
adaptive-comm. Prints one line per run and `integration programs: P identical, K known
differences, F different`; a reference's stderr goes to OUT/NAME.gpu-reference.err (and
NAME.cpu-reference.err where the CPU is the reference), each run's to OUT/NAME.STRATEGY.err.
Known differences (KNOWN_DIFFERENCES: where the reference itself is wrong or the vendor's output
varies, each with its reason) are listed and counted apart and do not fail the experiment; any
other difference does.

(Was scripts/gpu-integration.sh: STRATEGIES -> --strategies.)
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Callable

from experiments.common import Context, run_command, strategy_not_applied, tail

NAME = "integration"
SUMMARY = "every integration program direct on the GPU vs. split over all devices: byte-identical"
QUICK = {"strategies": ["uniform"]}
OCL_ICD_FIRST = True
# What CL_MEM_USE_HOST_PTR memory holds before a map is left to the implementation: NVIDIA leaves
# it stale, CPU runtimes and clsplit (CLSPLIT_HOST_PTR_SYNC) keep it current.
IMPLEMENTATION_DEFINED = "use_host_ptr memory after"


@dataclass(frozen=True)
class KnownDifference:
    program: str
    starts: Callable[[str], bool]  # the first line of a block of output (it and the indented lines below it)
    reason: str
    strategies: tuple[str, ...] = ()  # the strategies (prefixes) it is known under; none: every one
    absent_ok: bool = False  # its lines are left out of the comparison: one side may lack them
    several_gpus: bool = False  # known under every strategy too when several GPUs are selected


def _wide_ids_beyond_2_31(line: str) -> bool:
    found = re.fullmatch(r"wide ids at offset (\d+):", line)
    return bool(found) and int(found.group(1)) >= 2 ** 31


# Differences from the reference that are known and documented (docs/benchmarks.md, "Results",
# 2026-11-28), the one list of them: a run whose output differs only in such blocks is reported
# as a known difference, listed with its reason, and does not fail the experiment. (Lines left to
# the implementation, IMPLEMENTATION_DEFINED, are not compared at all.)
# itest_svm's lines that depend on the SVM device: its capabilities, and the parts it runs only
# where SVM is host memory (fine-grained buffers).
SVM_HOST_ONLY = ("svm: coarse", "the buffer again:", "SVM copied to the host", "a buffer read to the host",
                 "doubled through a buffer on SVM:", "copy[1] ", "filled, then doubled:", "host[1] ",
                 "three times doubled", "ok clSVMAlloc (fine-grained)", "fine-grained:",
                 "ok a buffer written from host memory", "ok SVM copied from host memory")

KNOWN_DIFFERENCES = (
    KnownDifference("itest_ndrange", _wide_ids_beyond_2_31,
                    "ids at global offsets of 2^31 and more: NVIDIA's direct run (the reference) loses "
                    "their high bits, clsplit's slices keep them, as PoCL does"),
    KnownDifference("itest_programs", lambda line: line.startswith("build log of a clean program:"),
                    "NVIDIA's compiler writes a build log on a fresh compile, the reference (PoCL's CPU: "
                    "the program's direct run on NVIDIA fails its own checks) none"),
    KnownDifference("itest_svm", lambda line: line.startswith(SVM_HOST_ONLY),
                    "SVM is the home device's: under `static` shares that make the CPU the home device, "
                    "PoCL's (fine-grained, in host memory), and with several NVIDIA GPUs and the CPU selected "
                    "(their shared context crashes NVIDIA's SVM maps) the CPU's: its capabilities differ "
                    "from the GPU's reference (coarse-grained only), and the parts the program runs only "
                    "with such SVM have no line in the reference (every other line is compared)",
                    strategies=("static:",), absent_ok=True, several_gpus=True),
)


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


def without_known(program: str, text: str, strategy: str = "", gpus: int = 1) -> tuple[str, list[KnownDifference]]:
    """`text` with the blocks of `program`'s known differences under `strategy` (with `gpus` GPUs
    selected) replaced by a placeholder each (left out where one side may lack them), and the
    known differences found."""
    known = [k for k in KNOWN_DIFFERENCES
             if k.program == program and (not k.strategies or strategy.startswith(k.strategies)
                                          or (k.several_gpus and gpus > 1))]
    lines, found, skipping = [], [], False
    for line in text.splitlines():
        if skipping and line[:1].isspace():
            continue
        hit = next((k for k in known if k.starts(line)), None)
        skipping = hit is not None
        if hit:
            if not hit.absent_ok:
                lines.append(f"(known difference {KNOWN_DIFFERENCES.index(hit)})")
            if hit not in found:
                found.append(hit)
        else:
            lines.append(line)
    return "\n".join(lines), found


def compare(program: str, expected: str, got: str, strategy: str = "", gpus: int = 1) -> tuple[str, list[KnownDifference]]:
    """`identical`, `known` (the outputs differ only in known differences: those listed) or
    `different`."""
    if got == expected:
        return "identical", []
    masked_expected, _ = without_known(program, expected, strategy, gpus)
    masked_got, found = without_known(program, got, strategy, gpus)
    return ("known", found) if masked_got == masked_expected else ("different", [])


def file_name(text: str) -> str:
    """A strategy as part of a file name (static:0.17,0.83 -> static_0.17_0.83)."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text)


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
    known = []  # (program, strategy, the known differences)
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
            (ctx.out / f"{name}.cpu-reference.err").write_text(ref.stderr)
            if ref.returncode != 0:
                print(f"{name} reference failed on the CPU too (rc={ref.returncode})", flush=True)
                continue
        expected = comparable(ref.stdout)
        for strategy in strategies:
            got = run_command([str(program)], m.clsplit_env("all", strategy, CLSPLIT_DEVICE_TYPE="gpu"),
                              timeout=a.timeout)
            # Every run's stderr kept: a failure's cause is there.
            err = ctx.out / f"{name}.{file_name(strategy)}.err"
            err.write_text(got.stderr)
            misapplied = strategy_not_applied(got.stderr)
            verdict, found = ("different", [])
            if got.returncode == 0:
                verdict, found = compare(name, expected, comparable(got.stdout), strategy, len(m.gpus))
            if misapplied:  # misconfigured: not what was asked
                failed += 1
                print(f"{name} {strategy}: strategy not applied: {misapplied} ({err})", flush=True)
            elif verdict == "identical":
                passed += 1
                print(f"{name} {strategy}: identical", flush=True)
            elif verdict == "known":
                known.append((name, strategy, found))
                print(f"{name} {strategy}: known difference ({'; '.join(k.reason for k in found)})", flush=True)
            else:
                failed += 1
                print(f"{name} {strategy}: DIFFERENT (rc={got.returncode}; stderr in {err})", flush=True)
                diff = [l.rstrip("\n") for l in difflib.unified_diff(
                    expected.splitlines(), comparable(got.stdout).splitlines(), "reference", "clsplit", n=0,
                    lineterm="")][2:]
                print("\n".join(diff[:5] + [tail(got.stderr, 10)]).rstrip(), flush=True)
    print(f"integration programs: {passed} identical, {len(known)} known differences, {failed} different",
          flush=True)
    for name, strategy, found in known:
        print(f"  known: {name} {strategy}: {'; '.join(k.reason for k in found)}", flush=True)
    return 1 if failed else 0
