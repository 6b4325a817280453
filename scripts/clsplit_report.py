"""Reading clsplit's run report (CLSPLIT_REPORT=path.json): the one reader, used by `clsplit report`
(scripts/report.py) and the bench harness (bench/harness/run.py); installed next to report.py.

Content (icd/runtime/RunReport.cpp): `devices` [{slot, index, name, platform, type}], `strategy`,
`kernels` {name: {launches, split_launches, fallback_reason, groups_per_device, time_ns_per_device}},
`transfers` {count, host_to_device_bytes, device_to_host_bytes, device_to_device_bytes: per-device
lists}, and `partitioner` (partitioner/DecisionReport.cpp): `kernels` [{kernel, launches, history:
[{launch, iteration, ratios}]}], `iterations` [{iteration, predictedNs, measuredKernelNs, ...}],
`sequence` {kernels, convergedAtIteration, ...}, `host_time` [{entry, calls, total_ns, driver_ns,
driver_calls}] (host time per API entry point on the application's threads, and the part spent in
vendor calls), `driver_calls` [{function, calls, ns}] and `device_memory` {peak_bytes, windows}.
Also read by the named experiments (bench/harness/experiments/). The reader is lenient about
spelling and nesting (kernels as a list or a name-keyed object, a history inside the kernel entry
or in the partitioner section) and records what it could not find instead of failing the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

HISTORY_KEYS = ("ratio_history", "ratios_history", "history", "iterations", "ratios")
RATIO_KEYS = ("ratios", "ratio", "split", "fractions")
TIME_KEYS = ("time_ns_per_device", "times_ns", "time_ns", "times")


@dataclass
class KernelSummary:
    name: str
    launches: int | None = None
    split_launches: int | None = None
    fallback_reason: str | None = None
    groups_per_device: list[float] | None = None
    time_ns_per_device: list[float] | None = None
    ratio_history: list[list[float]] = field(default_factory=list)
    time_history: list[list[float]] = field(default_factory=list)

    @property
    def total_time_ns(self) -> float:
        return float(sum(self.time_ns_per_device or []))


@dataclass
class ReportSummary:
    strategy: str | None = None
    version: str | None = None
    devices: list[dict] = field(default_factory=list)
    kernels: list[KernelSummary] = field(default_factory=list)
    host_to_device: list[float] = field(default_factory=list)
    device_to_host: list[float] = field(default_factory=list)
    device_to_device: list[float] = field(default_factory=list)
    # Per iteration of the detected kernel sequence: {"iteration", "predicted_ns", "measured_ns"}.
    iterations: list[dict] = field(default_factory=list)
    converged_at: int | None = None
    # clEnqueueNDRangeKernel's host time per call (us): all of it, and clsplit's own (without
    # the time inside vendor calls).
    launch_host_us: float | None = None
    launch_own_us: float | None = None
    # ...and its calls, the time inside vendor calls per call (us) and vendor calls per call.
    launch_calls: int | None = None
    launch_driver_us: float | None = None
    launch_driver_calls: float | None = None
    # Vendor calls by function, all threads, most first ({function, calls, ns}).
    vendor_calls: list[dict] = field(default_factory=list)
    # The most bytes a device held (not counted with windows off) and the windows made.
    peak_device_bytes: float | None = None
    windows: int | None = None
    # The first launches one by one ({kernel, groups, time_ns, bytes_in: per device}), and the
    # first kernel of the application's time step as the partitioner detected it (or None).
    launches: list[dict] = field(default_factory=list)
    sequence_first: str | None = None
    # Launches left to the submission thread (CLSPLIT_SUBMIT_THREAD).
    deferred_launches: int | None = None
    problems: list[str] = field(default_factory=list)

    def launch_iterations(self) -> list[list[dict]]:
        """The launches grouped into the application's time steps: a step starts at each launch of
        the sequence's first kernel (without a detected sequence: of the first kernel launched)."""
        if not self.launches:
            return []
        first = self.sequence_first or self.launches[0].get("kernel")
        groups: list[list[dict]] = []
        for launch in self.launches:
            if launch.get("kernel") == first or not groups:
                groups.append([])
            groups[-1].append(launch)
        return groups

    @property
    def bytes_h2d(self) -> float:
        return float(sum(self.host_to_device))

    @property
    def bytes_d2h(self) -> float:
        return float(sum(self.device_to_host))

    @property
    def bytes_d2d(self) -> float:
        return float(sum(self.device_to_device))

    @property
    def bytes_total(self) -> float:
        return self.bytes_h2d + self.bytes_d2h + self.bytes_d2d

    def to_json(self, histories: bool = True) -> dict:
        """The digest a run record keeps; without `histories`, no ratio/time histories per kernel
        and no per-iteration times (they grow with the launch count)."""
        kernels = [vars(k) if histories else vars(k) | {"ratio_history": [], "time_history": []}
                   for k in self.kernels]
        return {
            "strategy": self.strategy,
            "devices": self.devices,
            "bytes_h2d": self.bytes_h2d,
            "bytes_d2h": self.bytes_d2h,
            "bytes_d2d": self.bytes_d2d,
            "bytes_per_device": {"h2d": self.host_to_device, "d2h": self.device_to_host,
                                 "d2d": self.device_to_device},
            "kernels": kernels,
            "iterations": self.iterations if histories else [],
            "converged_at": self.converged_at,
            "launch_host_us": self.launch_host_us,
            "launch_own_us": self.launch_own_us,
            "deferred_launches": self.deferred_launches,
            "problems": self.problems,
        }


def _numbers(value) -> list[float] | None:
    if isinstance(value, list) and all(isinstance(v, (int, float)) for v in value):
        return [float(v) for v in value]
    if isinstance(value, dict):  # {"0": x, "1": y} keyed by device
        try:
            return [float(value[k]) for k in sorted(value, key=lambda k: int(k))]
        except (ValueError, TypeError):
            return None
    return None


def _first(obj: dict, keys) -> object:
    for key in keys:
        if key in obj:
            return obj[key]
    return None


def _history(kernel: KernelSummary, obj: dict) -> None:
    history = _first(obj, HISTORY_KEYS)
    if not isinstance(history, list):
        return
    for step in history:
        if isinstance(step, list):
            ratios = _numbers(step)
            if ratios is not None:
                kernel.ratio_history.append(ratios)
        elif isinstance(step, dict):
            ratios = _numbers(_first(step, RATIO_KEYS))
            times = _numbers(_first(step, TIME_KEYS))
            if ratios is not None:
                kernel.ratio_history.append(ratios)
            if times is not None:
                kernel.time_history.append(times)


def _kernel(name: str, obj: dict) -> KernelSummary:
    kernel = KernelSummary(
        name=str(obj.get("name", obj.get("kernel", name))),
        launches=obj.get("launches"),
        split_launches=obj.get("split_launches"),
        fallback_reason=obj.get("fallback_reason") or None,
        groups_per_device=_numbers(obj.get("groups_per_device")),
        time_ns_per_device=_numbers(obj.get("time_ns_per_device")),
    )
    _history(kernel, obj)
    return kernel


def summarize(raw: dict) -> ReportSummary:
    summary = ReportSummary()
    if not isinstance(raw, dict):
        summary.problems.append("report is not a JSON object")
        return summary
    summary.strategy = raw.get("strategy") if isinstance(raw.get("strategy"), str) else (
        json.dumps(raw.get("strategy")) if raw.get("strategy") is not None else None)
    summary.version = raw.get("clsplit_version") if isinstance(raw.get("clsplit_version"), str) else None
    if isinstance(raw.get("launches"), list):
        summary.launches = [launch for launch in raw["launches"] if isinstance(launch, dict)]
    if isinstance(raw.get("deferred_launches"), int):
        summary.deferred_launches = raw["deferred_launches"]
    if isinstance(raw.get("devices"), list):
        summary.devices = [d for d in raw["devices"] if isinstance(d, dict)]
    kernels = raw.get("kernels")
    if isinstance(kernels, dict):
        summary.kernels = [_kernel(name, obj) for name, obj in kernels.items() if isinstance(obj, dict)]
    elif isinstance(kernels, list):
        summary.kernels = [_kernel(str(i), obj) for i, obj in enumerate(kernels) if isinstance(obj, dict)]
    else:
        summary.problems.append("no 'kernels' section")
    transfers = raw.get("transfers")
    if isinstance(transfers, dict):
        summary.host_to_device = _numbers(transfers.get("host_to_device_bytes")) or []
        summary.device_to_host = _numbers(transfers.get("device_to_host_bytes")) or []
        summary.device_to_device = _numbers(transfers.get("device_to_device_bytes")) or []
    else:
        summary.problems.append("no 'transfers' section")
    partitioner = raw.get("partitioner")
    if isinstance(partitioner, dict):
        by_name = {k.name: k for k in summary.kernels}
        for obj in partitioner.get("kernels") or []:
            if not isinstance(obj, dict):
                continue
            name = str(obj.get("kernel", obj.get("name", "?")))
            # The partitioner names kernels "<program hash>:<kernel>"; the ICD section by kernel.
            short = name.split(":", 1)[1] if ":" in name else name
            kernel = by_name.get(name) or by_name.get(short)
            name = short
            if kernel is None:
                kernel = by_name[name] = _kernel(name, obj)
                summary.kernels.append(kernel)
            elif not kernel.ratio_history:
                _history(kernel, obj)
        for it in partitioner.get("iterations") or []:
            if isinstance(it, dict) and "iteration" in it:
                summary.iterations.append({"iteration": it.get("iteration"),
                                           "predicted_ns": it.get("predictedNs"),
                                           "measured_ns": it.get("measuredKernelNs")})
        sequence = partitioner.get("sequence")
        if isinstance(sequence, dict) and isinstance(sequence.get("convergedAtIteration"), int):
            summary.converged_at = sequence["convergedAtIteration"]
        if isinstance(sequence, dict) and sequence.get("kernels"):
            summary.sequence_first = str(sequence["kernels"][0]).split(":")[-1]
    for entry in raw.get("host_time") or []:
        if isinstance(entry, dict) and entry.get("entry") == "clEnqueueNDRangeKernel" and entry.get("calls"):
            calls = float(entry["calls"])
            total, driver = float(entry.get("total_ns", 0)), float(entry.get("driver_ns", 0))
            summary.launch_host_us = total / calls / 1e3
            summary.launch_own_us = max(0.0, total - driver) / calls / 1e3
            summary.launch_calls = int(entry["calls"])
            summary.launch_driver_us = driver / calls / 1e3
            summary.launch_driver_calls = float(entry.get("driver_calls", 0)) / calls
    summary.vendor_calls = [d for d in raw.get("driver_calls") or [] if isinstance(d, dict) and "function" in d]
    memory = raw.get("device_memory")
    if isinstance(memory, dict):
        summary.peak_device_bytes = memory.get("peak_bytes")
        summary.windows = memory.get("windows")
    return summary


def load(path: Path) -> ReportSummary | None:
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError) as error:
        summary = ReportSummary()
        summary.problems.append(f"unreadable report {path}: {error}")
        return summary
    return summarize(raw)


def dominant_kernel(summary: ReportSummary) -> KernelSummary | None:
    """The kernel that took the most device time (ties: the most launches)."""
    if not summary.kernels:
        return None
    return max(summary.kernels, key=lambda k: (k.total_time_ns, k.launches or 0))


def converged_ratios(summary: ReportSummary, tail: int = 3) -> list[float] | None:
    """Ratios for the oracle (`static:`): the mean of the last `tail` ratio vectors of the dominant
    kernel's history, or, without history, its share of work-groups per device."""
    kernel = dominant_kernel(summary)
    if kernel is None:
        return None
    vectors = kernel.ratio_history[-tail:] if kernel.ratio_history else []
    if vectors:
        width = max(len(v) for v in vectors)
        mean = [sum(v[i] for v in vectors if i < len(v)) / len(vectors) for i in range(width)]
    elif kernel.groups_per_device:
        mean = list(kernel.groups_per_device)
    else:
        return None
    total = sum(x for x in mean if x > 0)
    if total <= 0:
        return None
    return [max(x, 0.0) / total for x in mean]


def static_strategy(ratios: list[float]) -> str:
    return "static:" + ",".join(f"{r:.4f}" for r in ratios)
