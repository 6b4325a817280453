"""The launch-cost summary (suites launch-cost and gpu1-launch-cost, bench/workloads/launches): per
pattern, launch count and clsplit configuration, the timed region per launch directly and through
clsplit, their ratio, clsplit's own host time per launch, and whether that own time grows with the
number of launches.

  direct us  = median over the repeats of (timed seconds / launches made), run directly on the
               device of the configuration's set with the lowest such time
  clsplit us = the same through clsplit
  ratio      = direct us / clsplit us (1.00: clsplit costs nothing; 0.95: 5 % slower than direct)
  own us     = clsplit's own host time per clEnqueueNDRangeKernel call (the run report's host_time,
               total minus the time inside vendor calls, per call), from the configuration's
               report run (CLSPLIT_REPORT_TIMING=0; its time is not used, the timed runs write no
               report); it includes the report's own bookkeeping; host us = all of that call's
               host time
  flat       = own us at the largest count / own us at the smallest, per (workload, size,
               configuration), shown on the largest count's row (target <= 1.10)

A point is included when its program reports how many kernels it launched (RESULT launches=) or is
the launches program; summary.py adds the table to table.txt and summary.json, and writes
launch_cost.csv.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from suites import WORKLOADS

if TYPE_CHECKING:
    from summary import Aggregate

FLATNESS_TARGET = 1.10


@dataclass
class LaunchRow:
    workload: str
    size: int
    iters: int                       # the launch count asked for (--iters)
    launches: int | None             # the launches the program made (a pattern rounds the count)
    config: str
    strategy: str | None
    devices: str
    n: int
    n_ok: int
    direct_config: str | None = None
    direct_us: float | None = None
    clsplit_us: float | None = None
    ratio: float | None = None
    own_us: float | None = None
    host_us: float | None = None
    flatness: float | None = None    # set on the largest count's row
    flatness_from: int | None = None  # the smallest count it compares with
    statuses: str = ""


def _is_launch_point(group: list[Aggregate]) -> bool:
    return any(a.app_launches is not None for a in group) or \
        WORKLOADS.get(group[0].workload, ("", []))[0] == "launches"


def _device_indices(devices: str) -> list[int]:
    try:
        return [int(x) for x in devices.split(",") if x.strip() != ""]
    except ValueError:
        return []


def rows(aggregates: list[Aggregate]) -> list[LaunchRow]:
    """One row per clsplit configuration of every launch point, in the aggregates' order."""
    by_point: dict[tuple, list[Aggregate]] = {}
    for a in aggregates:
        by_point.setdefault((a.workload, a.size, a.iters), []).append(a)
    result: list[LaunchRow] = []
    for group in by_point.values():
        if not _is_launch_point(group):
            continue
        direct = {}
        for a in group:
            if a.kind == "direct" and a.us_per_launch is not None:
                try:
                    direct[int(a.config.split(":")[1])] = a
                except (IndexError, ValueError):
                    pass
        for a in group:
            if a.kind != "clsplit" or set(a.statuses) == {"not-run"}:
                continue
            row = LaunchRow(workload=a.workload, size=a.size, iters=a.iters, launches=a.app_launches,
                            config=a.config, strategy=a.strategy, devices=a.devices, n=a.n, n_ok=a.n_ok,
                            clsplit_us=a.us_per_launch, own_us=a.launch_own_us, host_us=a.launch_host_us,
                            statuses=",".join(f"{k}x{v}" for k, v in sorted(a.statuses.items()) if k != "ok"))
            candidates = [direct[i] for i in _device_indices(a.devices) if i in direct]
            if candidates:
                best = min(candidates, key=lambda d: d.us_per_launch)
                row.direct_config, row.direct_us = best.config, best.us_per_launch
                if row.launches is None:
                    row.launches = best.app_launches
            if row.direct_us is not None and row.clsplit_us:
                row.ratio = row.direct_us / row.clsplit_us
            result.append(row)
    _flatness(result)
    return result


def _flatness(launch_rows: list[LaunchRow]) -> None:
    by_series: dict[tuple, list[LaunchRow]] = {}
    for row in launch_rows:
        if row.own_us is not None:
            by_series.setdefault((row.workload, row.size, row.config), []).append(row)
    for series in by_series.values():
        low = min(series, key=lambda r: r.iters)
        high = max(series, key=lambda r: r.iters)
        if high.iters > low.iters and low.own_us > 0:
            high.flatness = high.own_us / low.own_us
            high.flatness_from = low.iters


def _fmt(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table(launch_rows: list[LaunchRow]) -> str:
    """The launch-cost table ("" without rows)."""
    if not launch_rows:
        return ""
    lines = [
        "launch cost, per launch: direct and clsplit = timed region / launches (us, median over repeats); "
        "ratio = direct / clsplit (1.00 = no cost);",
        "own = clsplit's own host time per clEnqueueNDRangeKernel (us; host = all of it); "
        f"flat = own at the largest count / at the smallest (target <= {FLATNESS_TARGET:.2f})",
    ]
    header = (f"{'workload':<18} {'size':>6} {'launches':>8} {'config':<28} {'ok':>5} {'direct':>8} "
              f"{'clsplit':>8} {'ratio':>6} {'own':>7} {'host':>7} {'flat':>5}  notes")
    lines += [header, "-" * len(header)]
    last = None
    for row in launch_rows:
        if last is not None and row.workload != last:
            lines.append("")
        last = row.workload
        notes = []
        if row.statuses:
            notes.append(row.statuses)
        if row.flatness is not None:
            notes.append(f"vs {row.flatness_from}" + (": grows" if row.flatness > FLATNESS_TARGET else ""))
        if row.launches is not None and row.launches != row.iters:
            notes.append(f"asked {row.iters}")
        lines.append(
            f"{row.workload:<18} {row.size:>6} {row.launches if row.launches is not None else row.iters:>8} "
            f"{row.config:<28} {row.n_ok:>2}/{row.n:<2} {_fmt(row.direct_us, '.2f'):>8} "
            f"{_fmt(row.clsplit_us, '.2f'):>8} {_fmt(row.ratio, '.2f'):>6} {_fmt(row.own_us, '.2f'):>7} "
            f"{_fmt(row.host_us, '.2f'):>7} {_fmt(row.flatness, '.2f'):>5}  {'; '.join(notes)}".rstrip())
    return "\n".join(lines)


def write_csv(path: Path, launch_rows: list[LaunchRow]) -> None:
    names = [f.name for f in fields(LaunchRow)]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=names)
        writer.writeheader()
        for row in launch_rows:
            writer.writerow(vars(row))
