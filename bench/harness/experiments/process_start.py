"""process-start: what clsplit adds to a process's start and end: the wall time of whole short runs
(fork to exit), directly and through clsplit, alternated, medians. Short programs (test suites,
NPB class S, Rodinia) are dominated by it, and no launch-cost number shows it.

    python3 bench/harness/experiment.py process-start --build build --vendors /etc/OpenCL/vendors/pocl.icd \\
        [--old OLD_LIBCLSPLIT.so] [--repeat 9] [--env POCL_DEVICES=pthread ...]

Programs: `list-devices` (loading the vendors and clsplit, one context query each) and
`jacobi2d --size 256 --iters 10` (a program build, 20 launches, a read-back). Direct runs load the
real vendors (--vendors) alone; clsplit runs have them as CLSPLIT_VENDORS and use a warm analysis
cache (the first run of each kind fills it, untimed), as every run after a program's first does;
`old` is another libclsplit.so run the same way, for side-by-side numbers. Ratio = direct / through
clsplit (1.00: clsplit adds nothing).

(Was bench/harness/process_start.py, same options.)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from experiments.common import Context, run_command

NAME = "process-start"
SUMMARY = "wall time of whole short runs (list-devices, jacobi2d 256 x 10), direct vs. through clsplit"
QUICK = {"repeat": 3}
PROGRAMS = {
    "list-devices": ["list-devices"],
    "jacobi2d-256x10": ["jacobi2d", "--size", "256", "--iters", "10"],
}


def add_arguments(parser) -> None:
    parser.add_argument("--old", type=Path, default=None, help="another libclsplit.so to compare with")
    parser.add_argument("--repeat", type=int, default=9, help="alternated runs per kind (default %(default)s)")


def vendors_dir(root: Path, name: str, library: Path) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "clsplit.icd").write_text(f"{library.resolve()}\n")
    return d


def wall(command: list[str], env: dict[str, str]) -> float:
    start = time.monotonic()
    done = run_command(command, env, timeout=120)
    elapsed = time.monotonic() - start
    if done.returncode != 0 or ("RESULT" in done.stdout and "verified=1" not in done.stdout):
        sys.exit(f"failed: {' '.join(command)}\n{done.stdout[-1000:]}\n{done.stderr[-1000:]}")
    return elapsed


def run(ctx: Context) -> int:
    m, a = ctx.machine, ctx.args
    cache = ctx.scratch / "cache"
    # Direct runs see the real vendors, clsplit runs clsplit alone, under either loader (ocl-icd
    # reads OCL_ICD_VENDORS, the Khronos loader first on the GPU machine OCL_ICD_FILENAMES).
    kinds = {"direct": m.direct_env(m.real)}
    libraries = {"clsplit": m.library}
    if a.old:
        libraries["old"] = a.old
    for kind, library in libraries.items():
        kinds[kind] = m.env(OCL_ICD_VENDORS=str(vendors_dir(ctx.scratch, kind, library)),
                            OCL_ICD_FILENAMES=str(Path(library).resolve()), CLSPLIT_CONFIG="/dev/null",
                            CLSPLIT_CACHE_DIR=str(cache / kind))
    print(f"{'program':18} " + " ".join(f"{k + ' ms':>12}" for k in kinds) +
          "".join(f" {'direct/' + k:>16}" for k in kinds if k != "direct"), flush=True)
    for name, argv in PROGRAMS.items():
        command = m.program(*argv)
        for env in kinds.values():
            wall(command, env)  # warm-up: page cache, analysis cache
        times = {k: [] for k in kinds}
        for _ in range(a.repeat):
            for kind, env in kinds.items():
                times[kind].append(wall(command, env))
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{name:18} " + " ".join(f"{med[k]:12.1f}" for k in kinds) +
              "".join(f" {med['direct'] / med[k]:16.2f}" for k in kinds if k != "direct"), flush=True)
    return 0
