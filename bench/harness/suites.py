"""Workload registry and benchmark suites: which program, sizes and iteration counts each suite runs.

A suite entry is one (workload, size, iterations) point. Every entry is run directly on each real
device and through clsplit with every strategy (see run.py). Sizes are chosen per suite:

- smoke:  tiny sizes, seconds in total on a 2-core CPU with PoCL; CI asserts that every run verifies.
- medium: sizes that take ~0.05-1 s per run on PoCL's one-core pthread devices (the local reference).
- full:   the GPU machine (2 x H200 + a 32-core CPU through PoCL), sized for one ~8-minute command
          (full-gpus and full-hetero are its two halves).
- launch-cost, gpu1-launch-cost: the launch patterns of bench/workloads/launches at 10^3, 10^4 and
          10^5 launches, clsplit's own host time per launch from an untimed report on every run.
- gpu1-twice: the split path on a one-GPU machine, the GPU selected twice (device set gpu-twice).
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
# The launch patterns of bench/workloads/launches (--iters there is the number of kernel launches).
LAUNCH_PATTERNS = ("plane", "kloop", "tiny", "alternate", "markers", "large", "readback")
WORKLOADS.update({f"launches-{p}": ("launches", ["--pattern", p]) for p in LAUNCH_PATTERNS})


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
    # clsplit strategies when --strategies is not given (None: all of run.py's STRATEGIES).
    strategies: tuple[str, ...] | None = None
    # The report run of each clsplit configuration sets CLSPLIT_REPORT_TIMING=0 (and no per-launch
    # records), so its report has clsplit's own host time per launch as an ordinary run pays it
    # rather than a fully timed run's (at 10^5 launches that would cost more than the runs). The
    # timed runs write no report: its bookkeeping costs a launch of a few microseconds ~25 %.
    host_time_reports: bool = False


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


# Launch cost: what clsplit costs the host per clEnqueueNDRangeKernel in the launch patterns of real
# programs (bench/workloads/launches), each at 10^3, 10^4 and 10^5 launches. Targets (the issue):
# clsplit's own time per launch does not grow with the count (at 10^5 within 10 % of at 10^3);
# `single` within 5 % of direct on the 2-core PoCL machine; on a GPU, clsplit with its defaults
# within 3 % of direct and <= 1.5 us own time per launch, <= 10 us per launch split over two
# devices. launch_cost.py summarises them (per-launch times, ratio, own time, flatness).
LAUNCH_COUNTS = (1_000, 10_000, 100_000)


def _launch_entries(sizes: dict[str, int], **kwargs) -> tuple[Entry, ...]:
    """Every pattern at every count, one size per pattern (the flatness compares counts at one
    size); kwargs are passed to every Entry."""
    return tuple(Entry(f"launches-{p}", sizes[p], n, **kwargs) for p in LAUNCH_PATTERNS for n in LAUNCH_COUNTS)


# The 2-core machine: PoCL's two one-core pthread devices (they share one worker pool: splitting
# cannot speed anything up; this measures cost and correctness). The patterns' default sizes
# (measured direct: 1.4-9 us per launch, the blocking read 12-50 us) except `large`: at its default
# 512^2 a launch costs ~210 us on a one-core device and the CPU reference twice that, ~60 s per run
# at 10^5 launches; 128^2 (the 16384 work-items of `tiny`, as one 2-D launch) costs ~15 us, and its
# reference ~2 s at 10^5. `kloop` keeps 64 (191 launches per factorisation, ~3 us each; its
# reference factorises once whatever the count).
# Budget (measured here at 10^5 launches: direct 0.2-5.7 s of wall time per run, `uniform` 0.5-11 s,
# the blocking-read pattern the slowest): 7 patterns x 3 counts x 5 configurations (direct on each
# device, `single`, `uniform`, adaptive-comm) x (3 repeats + 1 warm-up) = 420 runs: 6.4 minutes here
# (2026-11-25, with other work on the machine); the 900 s budget only stops a run that went badly
# wrong (repeats run round-robin).
LAUNCH_COST = Suite(
    name="launch-cost",
    repeat=3,
    warmup=1,
    run_timeout=120.0,
    time_budget=900.0,
    env={"POCL_DEVICES": "pthread pthread", "POCL_MAX_PTHREAD_COUNT": "1"},
    strategies=("single", "uniform", "adaptive-comm"),
    host_time_reports=True,
    entries=_launch_entries({"plane": 64, "kloop": 64, "tiny": 16384, "alternate": 64, "markers": 16384,
                             "large": 128, "readback": 16384}),
)

# A machine with one GPU (nvidia-h200 / nvidia-h100-x1), the GPU alone (device set `gpus`; on a
# two-GPU machine both, which then measures split launches over two devices): direct, clsplit
# `single`, and clsplit with its defaults (`default`: CLSPLIT_STRATEGY unset, as a user runs it;
# on one device it plans like `single` but may keep other bookkeeping, which is the point).
# Sizes: a few microseconds of kernel per launch on an H200 (4096-16384 work-items, one 64-item
# group for `alternate`), the patterns' defaults except `large`: its CPU reference costs ~1.5 s per
# 10^9 pixel updates, so 512^2 at 10^5 launches would spend ~40 s verifying; 128^2 keeps it ~2 s.
# Budget: 21 points x 3 configurations x 3 repeats = 189 runs of ~0.5-6 s (driver start-up, the
# timed region, the CPU reference at 10^5 launches ~1-2 s): 250 s on nvidia-h200 (all 189 verified);
# no warm-up (the timed region excludes the program build); the 420 s budget keeps the command
# within a 10-minute device call.
ONE_GPU_LAUNCH_COST = Suite(
    name="gpu1-launch-cost",
    repeat=3,
    warmup=0,
    run_timeout=60.0,
    time_budget=420.0,
    strategies=("single", "default"),
    host_time_reports=True,
    entries=_launch_entries({"plane": 64, "kloop": 64, "tiny": 16384, "alternate": 64, "markers": 16384,
                             "large": 128, "readback": 16384}, device_sets=("gpus",)),
)

# The split path measured on one GPU (issue: "one real device selected twice"): the two-GPU
# workloads over the H200 selected twice, against the GPU run directly. The ideal is 1.0 (the same
# hardware does all the work): every loss is the cost of splitting - halo exchanges (copies inside
# the GPU), events, markers, flushes, planning.
GPU_TWICE = Suite(name="gpu1-twice", repeat=3, warmup=0, run_timeout=60.0, time_budget=480.0,
                  strategies=("single", "uniform", "adaptive-comm"),
                  entries=tuple(Entry(e.workload, e.size, e.iters, e.args, e.cpu_iters, e.timeout, ("gpu-twice",))
                                for e in GPU_ENTRIES if e.workload in
                                ("jacobi2d", "fdtd2d", "jacobi1d", "2spmv", "gemm", "2mm", "ep")))

SUITES = {s.name: s for s in (GPU_TWICE, SMOKE, MEDIUM, FULL, FULL_GPUS, FULL_HETERO, GPUS_STENCILS, GPUS_REST,
                               ONE_GPU_OVERHEAD, ONE_GPU_HETERO, LAUNCH_COST, ONE_GPU_LAUNCH_COST)}
