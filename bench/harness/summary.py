"""Aggregating run records: medians and spread per configuration, speedup over the best single
device, efficiency against the ideal speedup, bytes moved; the text table, CSV and JSON outputs
(and, for the launch patterns, launch_cost.py's per-launch table).

A point is (workload, size, iterations): a suite may run one workload and size at several counts.
Definitions (per point, over the devices D of a clsplit device set):
  rate(d)    = 1 / median direct time on d            (direct runs, the program alone on d)
  best       = the d in D with the highest rate
  speedup    = median direct time on best / median time of the configuration
  ideal      = sum over D of rate(d) / rate(best)     (perfect split, free communication)
  efficiency = speedup / ideal
"""

from __future__ import annotations

import csv
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import launch_cost


@dataclass
class Aggregate:
    workload: str
    size: int
    iters: int
    config: str
    kind: str
    devices: str
    strategy: str | None
    n: int = 0
    n_ok: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    scaled: bool = False
    bytes_h2d: float | None = None
    bytes_d2h: float | None = None
    bytes_d2d: float | None = None
    launches: int | None = None
    split_launches: int | None = None
    fallbacks: list[str] = field(default_factory=list)
    launch_host_us: float | None = None  # host time per clEnqueueNDRangeKernel, and clsplit's own part
    launch_own_us: float | None = None
    # Programs that report how many kernels they launched (RESULT launches=, bench/workloads/launches):
    # that count (median over the repeats) and the timed region per launch of each ok run (us).
    app_launches: int | None = None
    launch_times_us: list[float] = field(default_factory=list)
    speedup: float | None = None
    ideal: float | None = None
    efficiency: float | None = None
    note: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None

    @property
    def minimum(self) -> float | None:
        return min(self.times) if self.times else None

    @property
    def maximum(self) -> float | None:
        return max(self.times) if self.times else None

    @property
    def stdev(self) -> float | None:
        return statistics.stdev(self.times) if len(self.times) > 1 else None

    @property
    def us_per_launch(self) -> float | None:
        return statistics.median(self.launch_times_us) if self.launch_times_us else None

    @property
    def bytes_total(self) -> float | None:
        parts = [b for b in (self.bytes_h2d, self.bytes_d2h, self.bytes_d2d) if b is not None]
        return sum(parts) if parts else None


def load_records(path: Path) -> list[dict]:
    records = []
    if not path.is_file():
        return records
    for line in path.read_text().splitlines():
        line = line.strip()
        if line:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line cut short by a killed harness
    return records


def _median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _point(rec: dict) -> tuple:
    return rec["workload"], rec["size"], rec.get("iters")


def _app_launches(rec: dict) -> int | None:
    try:
        launches = int(rec.get("result", {}).get("launches", ""))
    except (TypeError, ValueError):
        return None
    return launches if launches > 0 else None


def aggregate(records: list[dict]) -> list[Aggregate]:
    groups: dict[tuple, Aggregate] = {}
    app_launches: dict[tuple, list[int]] = {}
    for rec in records:
        if rec.get("warmup"):
            continue
        key = _point(rec) + (rec["config"],)
        agg = groups.get(key)
        if agg is None:
            agg = groups[key] = Aggregate(
                workload=rec["workload"], size=rec["size"], iters=rec["iters"], config=rec["config"],
                kind=rec["kind"], devices=rec.get("devices", ""), strategy=rec.get("strategy"))
        if rec.get("report_run"):  # its report is used below; its time (report on) is not
            if rec["status"] != "ok":
                agg.statuses[rec["status"]] = agg.statuses.get(rec["status"], 0) + 1
            continue
        agg.n += 1
        agg.statuses[rec["status"]] = agg.statuses.get(rec["status"], 0) + 1
        if rec["status"] == "ok" and rec.get("seconds") is not None:
            agg.n_ok += 1
            agg.times.append(float(rec["seconds"]))
            agg.scaled = agg.scaled or bool(rec.get("scaled"))
            made = _app_launches(rec)
            if made is not None:  # the run's own count and time: right even where `seconds` is scaled
                app_launches.setdefault(key, []).append(made)
                agg.launch_times_us.append(float(rec.get("raw_seconds", rec["seconds"])) * 1e6 / made)
        if rec.get("note") and rec["note"] not in agg.note:
            agg.note = (agg.note + "; " if agg.note else "") + rec["note"]
    for key, counts in app_launches.items():
        groups[key].app_launches = int(statistics.median(counts))
    # Report-derived fields: medians over the repeats that produced a report.
    for agg in groups.values():
        reports = [r.get("report") for r in records
                   if not r.get("warmup") and _point(r) == (agg.workload, agg.size, agg.iters)
                   and r["config"] == agg.config and r.get("report")]
        if reports:
            agg.bytes_h2d = _median_or_none([r.get("bytes_h2d") for r in reports])
            agg.bytes_d2h = _median_or_none([r.get("bytes_d2h") for r in reports])
            agg.bytes_d2d = _median_or_none([r.get("bytes_d2d") for r in reports])
            agg.launch_host_us = _median_or_none([r.get("launch_host_us") for r in reports])
            agg.launch_own_us = _median_or_none([r.get("launch_own_us") for r in reports])
            kernels = reports[0].get("kernels", [])
            launches = [k.get("launches") for k in kernels if isinstance(k.get("launches"), int)]
            splits = [k.get("split_launches") for k in kernels if isinstance(k.get("split_launches"), int)]
            agg.launches = sum(launches) if launches else None
            agg.split_launches = sum(splits) if splits else None
            agg.fallbacks = sorted({f"{k.get('name')}: {k.get('fallback_reason')}" for k in kernels
                                    if k.get("fallback_reason")})
    _derive(list(groups.values()))
    # Points in the order the suite ran them; configurations direct first, then by strategy.
    first_seen: dict[tuple, int] = {}
    for rec in records:
        first_seen.setdefault(_point(rec), len(first_seen))
    return sorted(groups.values(), key=lambda a: (first_seen.get((a.workload, a.size, a.iters), 0),) + _order(a))


STRATEGY_ORDER = ("single", "default", "uniform", "adaptive", "adaptive-comm", "oracle")


def _order(a: Aggregate) -> tuple:
    if a.kind == "direct":
        try:
            return (a.workload, a.size, a.iters, 0, int(a.config.split(":")[1]), "", 0)
        except (IndexError, ValueError):
            return (a.workload, a.size, a.iters, 0, 0, a.config, 0)
    strategy = STRATEGY_ORDER.index(a.strategy) if a.strategy in STRATEGY_ORDER else len(STRATEGY_ORDER)
    return (a.workload, a.size, a.iters, 1, 0, a.devices, strategy, a.config)


def _derive(aggregates: list[Aggregate]) -> None:
    by_point: dict[tuple, list[Aggregate]] = {}
    for agg in aggregates:
        by_point.setdefault((agg.workload, agg.size, agg.iters), []).append(agg)
    for group in by_point.values():
        direct = {int(a.config.split(":")[1]): a for a in group
                  if a.kind == "direct" and a.median is not None}
        for agg in group:
            if agg.kind == "direct":
                indices = list(direct)
            else:
                try:
                    indices = [int(x) for x in agg.devices.split(",") if x != ""]
                except ValueError:
                    indices = []
            times = [direct[i].median for i in indices if i in direct]
            if agg.median is None or not times:
                continue
            best = min(times)
            agg.speedup = best / agg.median
            if agg.kind != "direct" and len(times) == len(indices):
                agg.ideal = best * sum(1.0 / t for t in times)
                agg.efficiency = agg.speedup / agg.ideal


def _fmt(value, spec: str, missing: str = "-") -> str:
    return missing if value is None else format(value, spec)


def _fmt_bytes(value) -> str:
    if value is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.0f}{unit}" if unit == "B" else f"{value:.1f}{unit}"
        value /= 1024
    return "-"


def table(aggregates: list[Aggregate]) -> str:
    lines = []
    w = max([13] + [len(a.workload) for a in aggregates])  # launches-readback is 17 wide
    header = (f"{'workload':<{w}} {'size':>9} {'iters':>7} {'config':<28} {'ok':>5} {'median s':>10} "
              f"{'spread':>7} {'speedup':>7} {'eff':>5} {'moved':>9}  notes")
    lines.append(header)
    lines.append("-" * len(header))
    last = None
    collapsed = set()
    for a in aggregates:
        point = (a.workload, a.size, a.iters)
        if last is not None and point != last:
            lines.append("")
        last = point
        if a.statuses and set(a.statuses) == {"not-run"} and a.kind == "clsplit":
            # One line for all of a point's clsplit configurations that could not run for one reason.
            if (point, a.note) not in collapsed:
                collapsed.add((point, a.note))
                lines.append(f"{a.workload:<{w}} {a.size:>9} {a.iters:>7} "
                             f"{'clsplit (all strategies)' if 'clsplit not run' in a.note else a.config:<28}"
                             f" {'':>5} {'not run':>10}  {a.note}")
            continue
        spread = None
        if a.median and a.minimum is not None and len(a.times) > 1:
            spread = (a.maximum - a.minimum) / a.median
        notes = []
        if a.scaled:
            notes.append("scaled from fewer iterations")
        bad = {k: v for k, v in a.statuses.items() if k != "ok"}
        if bad:
            notes.append(",".join(f"{k}x{v}" for k, v in sorted(bad.items())))
        if a.split_launches is not None and a.launches:
            notes.append(f"split {a.split_launches}/{a.launches}")
        if a.launch_host_us is not None:
            notes.append(f"launch {a.launch_host_us:.1f} us host, {a.launch_own_us:.1f} own")
        if a.fallbacks:
            notes.append("fallback: " + " | ".join(a.fallbacks)[:80])
        if a.note:
            notes.append(a.note)
        lines.append(
            f"{a.workload:<{w}} {a.size:>9} {a.iters:>7} {a.config:<28} {a.n_ok:>2}/{a.n:<2} {_fmt(a.median, '10.5f'):>10} "
            f"{_fmt(spread, '6.1%'):>7} {_fmt(a.speedup, '6.2f'):>7} {_fmt(a.efficiency, '4.2f'):>5} "
            f"{_fmt_bytes(a.bytes_total):>9}  {'; '.join(notes)}")
    launches = launch_cost.table(launch_cost.rows(aggregates))
    return "\n".join(lines) + ("\n\n" + launches if launches else "")


CSV_FIELDS = ["workload", "size", "iters", "config", "kind", "devices", "strategy", "n", "n_ok",
              "median_s", "min_s", "max_s", "stdev_s", "scaled", "speedup", "ideal_speedup", "efficiency",
              "bytes_h2d", "bytes_d2h", "bytes_d2d", "bytes_total", "launches", "split_launches",
              "launch_host_us", "launch_own_us", "app_launches", "us_per_launch", "fallbacks", "statuses",
              "note"]


def _row(a: Aggregate) -> dict:
    return {
        "workload": a.workload, "size": a.size, "iters": a.iters, "config": a.config, "kind": a.kind,
        "devices": a.devices, "strategy": a.strategy, "n": a.n, "n_ok": a.n_ok,
        "median_s": a.median, "min_s": a.minimum, "max_s": a.maximum, "stdev_s": a.stdev,
        "scaled": a.scaled, "speedup": a.speedup, "ideal_speedup": a.ideal, "efficiency": a.efficiency,
        "bytes_h2d": a.bytes_h2d, "bytes_d2h": a.bytes_d2h, "bytes_d2d": a.bytes_d2d,
        "bytes_total": a.bytes_total, "launches": a.launches, "split_launches": a.split_launches,
        "launch_host_us": a.launch_host_us, "launch_own_us": a.launch_own_us,
        "app_launches": a.app_launches, "us_per_launch": a.us_per_launch,
        "fallbacks": " | ".join(a.fallbacks), "statuses": json.dumps(a.statuses, sort_keys=True),
        "note": a.note,
    }


def write_outputs(out: Path, records: list[dict], meta: dict) -> list[Aggregate]:
    aggregates = aggregate(records)
    with (out / "summary.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for a in aggregates:
            writer.writerow(_row(a))
    histories = [
        {"workload": r["workload"], "size": r["size"], "iters": r.get("iters"), "config": r["config"],
         "repeat": r.get("repeat"),
         "kernels": [{"name": k.get("name"), "ratio_history": k.get("ratio_history"),
                      "time_history": k.get("time_history"),
                      "time_ns": sum(k.get("time_ns_per_device") or [])}
                     for k in r["report"].get("kernels", []) if k.get("ratio_history") or k.get("time_history")],
         "iterations": r["report"].get("iterations") or [],
         "converged_at": r["report"].get("converged_at")}
        for r in records if not r.get("warmup") and r.get("report")
        and (r["report"].get("iterations")
             or any(k.get("ratio_history") or k.get("time_history") for k in r["report"].get("kernels", [])))]
    launch_rows = launch_cost.rows(aggregates)
    if launch_rows:
        launch_cost.write_csv(out / "launch_cost.csv", launch_rows)
    (out / "summary.json").write_text(json.dumps(
        {"meta": meta, "aggregates": [_row(a) | {"times": a.times} for a in aggregates],
         "adaptive_histories": histories, "launch_cost": [vars(r) for r in launch_rows]}, indent=1))
    (out / "table.txt").write_text(table(aggregates) + "\n")
    return aggregates
