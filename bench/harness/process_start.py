#!/usr/bin/env python3
"""What clsplit adds to a process's start and end: the wall time of whole short runs (fork to
exit), directly and through clsplit, alternated, medians. Short programs (test suites, NPB class
S, Rodinia) are dominated by it, and no launch-cost number shows it.

  python3 bench/harness/process_start.py --build build --vendors /etc/OpenCL/vendors/pocl.icd \
      [--old OLD_LIBCLSPLIT.so] [--repeat 9] [--env POCL_DEVICES=pthread ...]

Programs: `list-devices` (loading the vendors and clsplit, one context query each) and
`jacobi2d --size 256 --iters 10` (a program build, 20 launches, a read-back). clsplit runs use a
warm analysis cache (the first run of each kind fills it, untimed), as every run after a
program's first does; `old` is another libclsplit.so run the same way, for side-by-side numbers.
Ratio = direct / through clsplit (1.00: clsplit adds nothing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAMS = {
    "list-devices": ["list-devices"],
    "jacobi2d-256x10": ["jacobi2d", "--size", "256", "--iters", "10"],
}


def vendors_dir(root: Path, name: str, library: Path) -> Path:
    d = root / name
    d.mkdir()
    (d / "clsplit.icd").write_text(f"{library.resolve()}\n")
    return d


def wall(command: list[str], env: dict[str, str]) -> float:
    start = time.monotonic()
    p = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    elapsed = time.monotonic() - start
    if p.returncode != 0 or ("RESULT" in p.stdout and "verified=1" not in p.stdout):
        sys.exit(f"failed: {' '.join(command)}\n{p.stdout[-1000:]}\n{p.stderr[-1000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=Path("build"))
    parser.add_argument("--vendors", required=True, help="CLSPLIT_VENDORS; also what direct runs load")
    parser.add_argument("--old", type=Path, default=None, help="another libclsplit.so to compare with")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()

    base = dict(os.environ)
    for kv in args.env:
        key, _, value = kv.partition("=")
        base[key] = value
    root = Path(tempfile.mkdtemp(prefix="clsplit-start-"))
    cache = root / "cache"
    direct_vendors = root / "direct"
    direct_vendors.mkdir()
    for icd in args.vendors.split(":"):
        name = Path(icd).name if icd.endswith(".icd") else Path(icd).name + ".icd"
        (direct_vendors / name).write_text(Path(icd).read_text() if icd.endswith(".icd") else f"{icd}\n")
    kinds = {"direct": dict(base, OCL_ICD_VENDORS=str(direct_vendors))}
    libraries = {"clsplit": args.build / "lib" / "libclsplit.so"}
    if args.old:
        libraries["old"] = args.old
    for kind, library in libraries.items():
        kinds[kind] = dict(base, OCL_ICD_VENDORS=str(vendors_dir(root, kind, library)), CLSPLIT_VENDORS=args.vendors,
                           CLSPLIT_CONFIG="/dev/null", CLSPLIT_CACHE_DIR=str(cache / kind))
    bench = args.build / "bench" / "bin"
    if not bench.is_dir():
        bench = args.build / "bench"  # an installed tree (cmake --install, component experiments)
    print(f"{'program':18} " + " ".join(f"{k + ' ms':>12}" for k in kinds) +
          "".join(f" {'direct/' + k:>16}" for k in kinds if k != "direct"))
    for name, argv in PROGRAMS.items():
        command = [str(bench / argv[0]), *argv[1:]]
        for env in kinds.values():
            wall(command, env)  # warm-up: page cache, analysis cache
        times = {k: [] for k in kinds}
        for _ in range(args.repeat):
            for kind, env in kinds.items():
                times[kind].append(wall(command, env))
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{name:18} " + " ".join(f"{med[k]:12.1f}" for k in kinds) +
              "".join(f" {med['direct'] / med[k]:16.2f}" for k in kinds if k != "direct"))


if __name__ == "__main__":
    main()
