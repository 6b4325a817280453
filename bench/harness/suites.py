"""Workload registry and benchmark suites: which program, sizes and iteration counts each suite runs.

A suite entry is one (workload, size, iterations) point. Every entry is run directly on each real
device and through clsplit with every strategy (see run.py). Sizes are chosen per suite:

- smoke:  tiny sizes, seconds in total on a 2-core CPU with PoCL; CI asserts that every run verifies.
- medium: sizes that take ~0.05-1 s per run on PoCL's one-core pthread devices (the local reference).
- full:   the GPU machine (2 x H200 + a 32-core CPU through PoCL), sized so that the whole suite fits
          one ~8-minute command with --repeat 3 (see docs/benchmarks.md for the budget arithmetic).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# workload name -> (program under <build>/bench/bin, fixed extra arguments)
WORKLOADS: dict[str, tuple[str, list[str]]] = {
    "jacobi1d": ("jacobi1d", []),
    "jacobi2d": ("jacobi2d", []),
    "fdtd2d": ("fdtd2d", []),
    "2spmv": ("2spmv", []),
    "spmv-skewed": ("spmv-skewed", []),
    "sotl-static": ("sotl", ["--distribution", "static"]),
    "sotl-dynamic": ("sotl", ["--distribution", "dynamic"]),
    "gemm": ("gemm", []),
    "2mm": ("2mm", []),
    "ep": ("ep", []),
}


@dataclass(frozen=True)
class Entry:
    workload: str
    size: int
    iters: int
    args: tuple[str, ...] = ()
    # Iterations for direct runs on CPU-type devices when the full count would take too long; their
    # time is then scaled to `iters` (rate = iterations / second) and flagged "scaled" in the results.
    cpu_iters: int | None = None
    # Per-run wall-clock limit override (seconds).
    timeout: float | None = None

    @property
    def program(self) -> str:
        return WORKLOADS[self.workload][0]

    def command_args(self, iters: int | None = None) -> list[str]:
        return (["--size", str(self.size), "--iters", str(iters or self.iters)]
                + WORKLOADS[self.workload][1] + list(self.args))

    @property
    def key(self) -> str:
        return f"{self.workload}/{self.size}"


@dataclass(frozen=True)
class Suite:
    name: str
    entries: tuple[Entry, ...]
    repeat: int = 3
    warmup: int = 1
    run_timeout: float = 120.0
    time_budget: float | None = None
    # Environment defaults for this suite (only applied where the caller's environment lacks them).
    env: dict[str, str] = field(default_factory=dict)


SMOKE = Suite(
    name="smoke",
    repeat=1,
    warmup=0,
    run_timeout=120.0,
    env={"POCL_DEVICES": "pthread pthread", "POCL_MAX_PTHREAD_COUNT": "1"},
    entries=(
        Entry("jacobi1d", 4096, 10),
        Entry("jacobi2d", 64, 5),
        Entry("fdtd2d", 64, 5),
        Entry("2spmv", 2000, 5, ("--max-row", "32")),
        Entry("spmv-skewed", 2000, 5, ("--max-row", "64")),
        Entry("sotl-static", 1000, 3),
        Entry("sotl-dynamic", 1000, 3),
        Entry("gemm", 64, 2),
        Entry("2mm", 48, 2),
        Entry("ep", 1024, 2, ("--pairs", "32")),
    ),
)

MEDIUM = Suite(
    name="medium",
    repeat=3,
    warmup=1,
    run_timeout=300.0,
    env={"POCL_DEVICES": "pthread pthread", "POCL_MAX_PTHREAD_COUNT": "1"},
    entries=(
        Entry("jacobi1d", 1 << 20, 50),
        Entry("jacobi2d", 1024, 20),
        Entry("fdtd2d", 1024, 20),
        Entry("2spmv", 1 << 17, 10),
        Entry("spmv-skewed", 1 << 18, 10),
        Entry("sotl-static", 32768, 10),
        Entry("sotl-dynamic", 32768, 10),
        Entry("gemm", 512, 3),
        Entry("2mm", 384, 2),
        Entry("ep", 32768, 4),
    ),
)

# The GPU machine. Per-run device time is kept around 0.05-0.3 s on one H200 so that process start,
# input generation and verification (~1-2 s) dominate and ~250 runs fit the budget; the CPU's direct
# runs use fewer iterations where it is 10-200x slower (cpu_iters).
FULL = Suite(
    name="full",
    repeat=3,
    warmup=1,
    run_timeout=60.0,
    time_budget=450.0,
    entries=(
        Entry("jacobi2d", 8192, 20, cpu_iters=2),
        Entry("fdtd2d", 8192, 10, cpu_iters=1),
        Entry("jacobi1d", 1 << 25, 50, cpu_iters=5),
        Entry("2spmv", 1 << 21, 10, cpu_iters=2),
        Entry("spmv-skewed", 1 << 21, 20, cpu_iters=2),
        Entry("sotl-static", 1 << 20, 10, cpu_iters=1),
        Entry("sotl-dynamic", 1 << 20, 10, cpu_iters=1),
        Entry("gemm", 4096, 3, cpu_iters=1),
        Entry("2mm", 2048, 2, cpu_iters=1),
        Entry("ep", 1 << 20, 5, cpu_iters=1),
    ),
)

SUITES = {s.name: s for s in (SMOKE, MEDIUM, FULL)}
