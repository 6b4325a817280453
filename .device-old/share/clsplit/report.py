#!/usr/bin/env python3
"""`clsplit report RUN.json [--out DIR]`: turns a clsplit run report (CLSPLIT_REPORT) into PNG
plots - work ratio per device over iterations, device time per iteration, bytes moved per
iteration - and a text summary (summary.txt, also printed).

Iterations are the application's time steps as clsplit's partitioner detected them (its kernel
sequence); without one, every launch of the first kernel starts an iteration.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # clsplit_report.py, installed beside it
import clsplit_report  # noqa: E402
from clsplit_report import ReportSummary  # noqa: E402


def per_iteration(iters: list[list[dict]], field: str, devices: int) -> list[list[float]]:
    rows = []
    for it in iters:
        row = [0.0] * devices
        for launch in it:
            for d, v in enumerate(launch.get(field, [])[:devices]):
                row[d] += v
        rows.append(row)
    return rows


def ratios(iters: list[list[dict]], devices: int) -> list[list[float]]:
    rows = []
    for g in per_iteration(iters, "groups", devices):
        total = sum(g) or 1.0
        rows.append([x / total for x in g])
    return rows


def summary(report: ReportSummary, iters: list[list[dict]]) -> str:
    lines = [f"clsplit run report: strategy {report.strategy}, clsplit {report.version}"]
    for d in report.devices:
        lines.append(f"  device {d.get('slot')}: [{d.get('index')}] {d.get('name')} ({d.get('platform')}, {d.get('type')})")
    lines.append(f"  {'kernel':28} {'launches':>9} {'split':>7}  groups / device ms")
    for k in sorted(report.kernels, key=lambda k: k.name):
        cells = "  ".join(f"{int(g)}/{t / 1e6:.2f}" for g, t in zip(k.groups_per_device or [], k.time_ns_per_device or []))
        lines.append(f"  {k.name[:28]:28} {k.launches or 0:>9} {k.split_launches or 0:>7}  {cells}")
        if k.fallback_reason:
            lines.append(f"      not split: {k.fallback_reason}")
    for key, values in (("host_to_device_bytes", report.host_to_device), ("device_to_host_bytes", report.device_to_host),
                        ("device_to_device_bytes", report.device_to_device)):
        lines.append(f"  {key}: {[int(v) for v in values]}")
    if report.launch_own_us is not None:
        lines.append(f"  host time per launch: {report.launch_host_us:.2f} us, clsplit's own {report.launch_own_us:.2f} us")
    if report.deferred_launches:
        lines.append(f"  launches enqueued by the submission thread: {report.deferred_launches}")
    lines.append(f"  iterations: {len(iters)}")
    for problem in report.problems:
        lines.append(f"  (report: {problem})")
    return "\n".join(lines) + "\n"


def plot(report: ReportSummary, iters: list[list[dict]], out: Path) -> list[Path]:
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("clsplit report: plotting needs matplotlib (Debian: python3-matplotlib); "
                         "use --no-plots for the summary alone")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(report.devices)
    labels = [f"{d.get('slot')}: {d.get('name')}" for d in report.devices]
    x = list(range(len(iters)))
    written = []

    def save(fig, name):
        path = out / name
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    series = [("ratios.png", "share of work-groups", ratios(iters, n)),
              ("time.png", "device time (ms)", [[v / 1e6 for v in r] for r in per_iteration(iters, "time_ns", n)]),
              ("bytes.png", "bytes received (MiB)",
               [[v / 2**20 for v in r] for r in per_iteration(iters, "bytes_in", n)])]
    for name, ylabel, rows in series:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        for d in range(n):
            ax.plot(x, [r[d] for r in rows], marker=".", label=labels[d])
        ax.set_xlabel("iteration")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{ylabel} per device ({report.strategy})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, name)

    # The partitioner's own view, when it has one: predicted vs measured iteration time.
    pairs = [(i["iteration"], i["predicted_ns"] / 1e6, i["measured_ns"] / 1e6)
             for i in report.iterations if i.get("predicted_ns") is not None and i.get("measured_ns") is not None]
    if pairs:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        ax.plot([p[0] for p in pairs], [p[1] for p in pairs], marker=".", label="predicted by the LP")
        ax.plot([p[0] for p in pairs], [p[2] for p in pairs], marker=".", label="measured (kernels)")
        ax.set_xlabel("iteration")
        ax.set_ylabel("ms")
        ax.set_title("iteration time: predicted vs measured")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, "prediction.png")
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="clsplit report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, help="the JSON file CLSPLIT_REPORT wrote")
    parser.add_argument("--out", type=Path, default=None, help="directory for the plots (default: <report>-plots)")
    parser.add_argument("--no-plots", action="store_true", help="print the summary only")
    args = parser.parse_args(argv)
    report = clsplit_report.load(args.report)
    if report is None or not report.kernels and report.problems:
        why = report.problems[0] if report else "no such file"
        print(f"clsplit report: cannot read {args.report}: {why}", file=sys.stderr)
        return 1
    iters = report.launch_iterations()
    text = summary(report, iters)
    print(text, end="")
    if args.no_plots:
        return 0
    out = args.out or args.report.with_name(args.report.stem + "-plots")
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.txt").write_text(text)
    for path in plot(report, iters, out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
