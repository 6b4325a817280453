"""Workload registry and benchmark suites: which program, sizes and iteration counts each suite runs.

A suite entry is one (workload, size, iterations) point. Every entry is run directly on each real
device and through clsplit with every strategy (see run.py). Sizes are chosen per suite:

- smoke:  tiny sizes, seconds in total on a 2-core CPU with PoCL; CI asserts that every run verifies.
- medium: sizes that take ~0.05-1 s per run on PoCL's one-core pthread devices (the local reference).
- full:   the GPU machine (2 x H200 + a 32-core CPU through PoCL), sized for one ~8-minute command
          (full-gpus and full-hetero are its two halves).
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
    # clsplit device sets for this entry ('all', 'gpus', 'cpus' or indices like '0,1'); None: the
    # harness's --device-sets. Direct runs cover the devices of these sets.
    device_sets: tuple[str, ...] | None = None

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

# The GPU machine (2 x H200 + a 32-core CPU through PoCL). Two parts:
#  - "gpus": sizes that fill an H200 (the brief's gemm 4096 and jacobi2d 8192^2), split over the two
#    GPUs; the CPU, 10-1000x slower on these, is left out (its direct runs too).
#  - "all": smaller sizes where the CPU's share under `uniform` stays around a second, split over
#    both GPUs and the CPU (heterogeneity: the adaptive strategies must shrink the CPU's share).
# Iteration counts (measured on one H200, docs/benchmarks.md): enough that the kernels are a real
# part of the timed region where a CPU reference can still check the result in about a second
# (gemm 22 ms/iteration, 2mm 6.8 ms, ep 2.1 ms, sotl 0.4-0.8 ms, spmv 0.3 ms); the stencils' time
# stays dominated by moving the grids (a 256 MiB read-back costs ~0.16 s there, 100 jacobi2d
# iterations ~7 ms), which a CPU reference cannot outlast.
# Budget: a run costs ~0.6-2 s of wall time (start-up, input generation, verification), so
# ~14 points x 7-8 configurations x 3 repeats ~ 300 runs is about the 470 s budget; repeats run
# round-robin, so a cut leaves every configuration measured at least twice in practice. The two
# halves (--suite full-gpus, --suite full-hetero) each fit a command with room to spare.
GPU_ENTRIES = (
    Entry("jacobi2d", 8192, 20, device_sets=("gpus",)),
    Entry("fdtd2d", 4096, 50, device_sets=("gpus",)),
    Entry("jacobi1d", 1 << 24, 200, device_sets=("gpus",)),
    Entry("2spmv", 1 << 19, 50, device_sets=("gpus",)),
    Entry("spmv-skewed", 1 << 20, 50, device_sets=("gpus",)),
    Entry("sotl-static", 1 << 20, 50, device_sets=("gpus",)),
    Entry("sotl-dynamic", 1 << 20, 50, device_sets=("gpus",)),
    Entry("gemm", 4096, 5, device_sets=("gpus",)),
    Entry("2mm", 2048, 10, device_sets=("gpus",)),
    Entry("ep", 1 << 20, 50, device_sets=("gpus",)),
    Entry("jacobi2d", 512, 100, device_sets=("gpus",)),  # too small to be worth splitting
)
HETERO_ENTRIES = (
    Entry("jacobi2d", 2048, 50, device_sets=("all",)),
    Entry("sotl-dynamic", 1 << 18, 20, device_sets=("all",)),
    Entry("ep", 1 << 18, 10, device_sets=("all",)),
)
FULL = Suite(name="full", repeat=3, warmup=0, run_timeout=60.0, time_budget=470.0,
             entries=GPU_ENTRIES + HETERO_ENTRIES)
FULL_GPUS = Suite(name="full-gpus", repeat=3, warmup=0, run_timeout=60.0, time_budget=450.0,
                  entries=GPU_ENTRIES)
FULL_HETERO = Suite(name="full-hetero", repeat=3, warmup=0, run_timeout=60.0, time_budget=450.0,
                    entries=HETERO_ENTRIES)
# full-gpus ran 160 of its ~230 runs in 370 s on nvidia-h200-x2 (sixth session): its two halves,
# the stencils and sparse kernels, then the rest, each for one 10-minute device call.
GPUS_STENCILS = Suite(name="gpus-stencils", repeat=3, warmup=0, run_timeout=60.0, time_budget=450.0,
                      entries=GPU_ENTRIES[:5])
GPUS_REST = Suite(name="gpus-rest", repeat=3, warmup=0, run_timeout=60.0, time_budget=450.0,
                  entries=GPU_ENTRIES[5:])

# A machine with one GPU (nvidia-h200 / nvidia-h100-x1: one GPU + a 16-core CPU through PoCL).
#  - "gpus" is then the GPU alone: clsplit's cost over a direct run on the same device, at the
#    full-gpus sizes (only `single` runs: every strategy runs the same plan on one device);
#  - "all" is the GPU and the CPU (two vendors): sizes where the CPU's half under `uniform` costs
#    at most a few seconds; the adaptive strategies must learn how little the CPU should get.
ONE_GPU_ENTRIES = tuple(Entry(e.workload, e.size, e.iters, e.args, e.cpu_iters, e.timeout, ("gpus",))
                        for e in GPU_ENTRIES)
ONE_GPU_HETERO_ENTRIES = (
    Entry("jacobi2d", 2048, 50, device_sets=("all",)),
    Entry("spmv-skewed", 1 << 18, 50, device_sets=("all",)),
    Entry("sotl-dynamic", 1 << 18, 20, device_sets=("all",)),
    Entry("ep", 1 << 18, 10, device_sets=("all",)),
    Entry("gemm", 1024, 5, device_sets=("all",)),
)
ONE_GPU_OVERHEAD = Suite(name="gpu1-overhead", repeat=3, warmup=0, run_timeout=60.0, time_budget=420.0,
                         entries=ONE_GPU_ENTRIES)
ONE_GPU_HETERO = Suite(name="gpu1-hetero", repeat=3, warmup=0, run_timeout=60.0, time_budget=420.0,
                       entries=ONE_GPU_HETERO_ENTRIES)

SUITES = {s.name: s for s in (SMOKE, MEDIUM, FULL, FULL_GPUS, FULL_HETERO, GPUS_STENCILS, GPUS_REST,
                               ONE_GPU_OVERHEAD, ONE_GPU_HETERO)}
