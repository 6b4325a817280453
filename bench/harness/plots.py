"""PNG plots of a results directory: time, speedup, efficiency, bytes moved, adaptive histories."""

from __future__ import annotations

import re
from pathlib import Path

from summary import Aggregate


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _points(aggregates: list[Aggregate]) -> list[tuple[str, int, int]]:
    """(workload, size, iterations) in the aggregates' order."""
    seen = []
    for a in aggregates:
        if (a.workload, a.size, a.iters) not in seen:
            seen.append((a.workload, a.size, a.iters))
    return seen


def _point_label(point: tuple[str, int, int], points: list[tuple[str, int, int]]) -> str:
    """'workload\nsize', plus 'x iterations' where the suite runs that workload and size at more
    than one count."""
    workload, size, iters = point
    several = sum(1 for w, s, _ in points if (w, s) == (workload, size)) > 1
    return f"{workload}\n{size}" + (f" x{iters}" if several else "")


def _grouped_bars(plt, aggregates, value, title, ylabel, path: Path, configs_of, log=False, hline=None,
                  spread=None):
    """One group of bars per (workload, size), one bar per configuration that has a value;
    `spread(a)` gives (low, high) error bars (the min and max over the repeats)."""
    points = _points(aggregates)
    configs = []
    for a in aggregates:
        v = value(a)
        if configs_of(a) and v is not None and v > 0 and a.config not in configs:
            configs.append(a.config)
    if not points or not configs:
        return False
    lookup = {(a.workload, a.size, a.iters, a.config): a for a in aggregates}
    fig, ax = plt.subplots(figsize=(min(24, max(8, 0.3 * len(points) * len(configs) + 2)), 5))
    width = 0.8 / len(configs)
    for c, config in enumerate(configs):
        xs, ys, low, high = [], [], [], []
        for p, (workload, size, iters) in enumerate(points):
            a = lookup.get((workload, size, iters, config))
            v = value(a) if a else None
            if v is not None and v > 0:
                xs.append(p + c * width - 0.4 + width / 2)
                ys.append(v)
                lo, hi = spread(a) if spread else (v, v)
                low.append(max(0.0, v - lo))
                high.append(max(0.0, hi - v))
        if xs:
            ax.bar(xs, ys, width, label=config, yerr=[low, high] if spread else None, capsize=2)
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels([_point_label(p, points) for p in points], fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, ax.get_ylim()[1] * 1.25)  # room for the legend
    if hline is not None:
        ax.axhline(hline, color="black", linewidth=0.8, linestyle="--")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def _history_plots(plt, histories: list[dict], out: Path) -> list[Path]:
    """Per (workload, size, iterations): one row per configuration with a history (first repeat): the
    ratios of its most expensive kernel per launch, and the measured (and predicted) time per
    iteration."""
    written = []
    by_point: dict[tuple, list[dict]] = {}
    for h in histories:
        by_point.setdefault((h["workload"], h["size"], h.get("iters")), []).append(h)
    for (workload, size, iters), runs in by_point.items():
        chosen: dict[str, dict] = {}
        for run in sorted(runs, key=lambda r: r.get("repeat") or 0):
            chosen.setdefault(run["config"], run)
        rows = list(chosen.items())
        fig, axes = plt.subplots(len(rows), 2, figsize=(11, 2.8 * len(rows)), squeeze=False)
        for (config, run), (ax_ratio, ax_time) in zip(rows, axes):
            kernels = [k for k in run.get("kernels", []) if k.get("ratio_history")]
            if kernels:
                kernel = max(kernels, key=lambda k: k.get("time_ns") or 0)
                ratios = kernel["ratio_history"]
                for d in range(max(len(r) for r in ratios)):
                    ax_ratio.plot([r[d] if d < len(r) else None for r in ratios], label=f"device {d}")
                ax_ratio.set_title(f"{config}: ratios of {kernel.get('name')} per launch", fontsize=8)
                ax_ratio.set_ylim(-0.03, 1.05)  # ratios of exactly 0 or 1 stay visible
                ax_ratio.legend(fontsize=6)
            else:
                ax_ratio.set_title(f"{config}: no ratio history", fontsize=8)
            ax_ratio.set_xlabel("launch", fontsize=7)
            iterations = run.get("iterations") or []
            measured = [(i["iteration"], i["measured_ns"] * 1e-6) for i in iterations
                        if i.get("measured_ns") is not None]
            predicted = [(i["iteration"], i["predicted_ns"] * 1e-6) for i in iterations
                         if i.get("predicted_ns") is not None]
            if measured:
                ax_time.plot(*zip(*measured), label="measured")
            if predicted:
                ax_time.plot(*zip(*predicted), label="predicted", linestyle="--")
            if run.get("converged_at") is not None and run["converged_at"] >= 0:
                ax_time.axvline(run["converged_at"], color="grey", linewidth=0.8, label="converged")
            title = "kernel time per iteration (ms)" if measured or predicted else "no per-iteration times"
            ax_time.set_title(f"{config}: {title}", fontsize=8)
            ax_time.set_xlabel("iteration", fontsize=7)
            if measured or predicted:
                ax_time.legend(fontsize=6)
        fig.tight_layout()
        several = sum(1 for w, s, _ in by_point if (w, s) == (workload, size)) > 1
        name = re.sub(r"[^A-Za-z0-9_.-]", "_",
                      f"adaptive_{workload}_{size}" + (f"x{iters}" if several else "") + ".png")
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        written.append(out / name)
    return written


def write_plots(out: Path, aggregates: list[Aggregate], histories: list[dict]) -> list[Path]:
    try:
        plt = _pyplot()
    except ImportError as error:
        print(f"note: no plots ({error}); the CSV/JSON outputs are complete")
        return []
    plot_dir = out / "plots"
    plot_dir.mkdir(parents=True, exist_ok=True)
    written = []
    specs = [
        ("time.png", lambda a: a.median, "Median time of the timed region (bars: min-max over repeats)",
         "seconds", lambda a: True, True, None),
        ("speedup.png", lambda a: a.speedup, "Speedup over the best single device (direct run)",
         "speedup", lambda a: a.kind == "clsplit", False, 1.0),
        ("efficiency.png", lambda a: a.efficiency,
         "Efficiency: speedup / ideal speedup (sum of device rates / best rate)", "efficiency",
         lambda a: a.kind == "clsplit", False, 1.0),
        ("bytes.png", lambda a: a.bytes_total, "Bytes moved by clsplit (host<->device + device<->device)",
         "bytes", lambda a: a.kind == "clsplit", True, None),
    ]
    for name, value, title, ylabel, configs_of, log, hline in specs:
        spread = (lambda a: (a.minimum, a.maximum)) if name == "time.png" else None
        if _grouped_bars(plt, aggregates, value, title, ylabel, plot_dir / name, configs_of, log, hline,
                         spread):
            written.append(plot_dir / name)
    written += _history_plots(plt, histories, plot_dir)
    return written
