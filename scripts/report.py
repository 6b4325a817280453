#!/usr/bin/env python3
"""`clsplit report RUN.json [--out DIR]`: turns a clsplit run report (CLSPLIT_REPORT) into PNG
plots - work ratio per device over iterations, device time per iteration, bytes moved per
iteration - and a text summary (summary.txt, also printed).

Iterations are the application's time steps as clsplit's partitioner detected them (its kernel
sequence); without one, every launch of the first kernel starts an iteration.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def iterations(report: dict) -> list[list[dict]]:
    launches = report.get("launches") or []
    if not launches:
        return []
    sequence = ((report.get("partitioner") or {}).get("sequence") or {}).get("kernels") or []
    first = sequence[0].split(":")[-1] if sequence else launches[0]["kernel"]
    groups: list[list[dict]] = []
    for launch in launches:
        if launch["kernel"] == first or not groups:
            groups.append([])
        groups[-1].append(launch)
    return groups


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


def summary(report: dict, iters: list[list[dict]]) -> str:
    devices = report.get("devices", [])
    lines = [f"clsplit run report: strategy {report.get('strategy')}, clsplit {report.get('clsplit_version')}"]
    for d in devices:
        lines.append(f"  device {d['slot']}: [{d['index']}] {d['name']} ({d['platform']}, {d['type']})")
    lines.append(f"  {'kernel':28} {'launches':>9} {'split':>7}  groups / device ms")
    for name, k in sorted(report.get("kernels", {}).items()):
        cells = "  ".join(f"{g}/{t / 1e6:.2f}" for g, t in zip(k["groups_per_device"], k["time_ns_per_device"]))
        lines.append(f"  {name[:28]:28} {k['launches']:>9} {k['split_launches']:>7}  {cells}")
        if k.get("fallback_reason"):
            lines.append(f"      not split: {k['fallback_reason']}")
    t = report.get("transfers", {})
    for key in ("host_to_device_bytes", "device_to_host_bytes", "device_to_device_bytes"):
        lines.append(f"  {key}: {t.get(key)}")
    lines.append(f"  iterations: {len(iters)}")
    return "\n".join(lines) + "\n"


def plot(report: dict, iters: list[list[dict]], out: Path) -> list[Path]:
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("clsplit report: plotting needs matplotlib (Debian: python3-matplotlib); "
                         "use --no-plots for the summary alone")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    devices = report.get("devices", [])
    n = len(devices)
    labels = [f"{d['slot']}: {d['name']}" for d in devices]
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
        ax.set_title(f"{ylabel} per device ({report.get('strategy')})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, name)

    # The partitioner's own view, when it has one: predicted vs measured iteration time.
    its = (report.get("partitioner") or {}).get("iterations") or []
    pairs = [(i["iteration"], i["predictedNs"] / 1e6, i["measuredKernelNs"] / 1e6)
             for i in its if "predictedNs" in i and "measuredKernelNs" in i]
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
    try:
        report = json.loads(args.report.read_text())
    except (OSError, json.JSONDecodeError) as e:
        print(f"clsplit report: cannot read {args.report}: {e}", file=sys.stderr)
        return 1
    iters = iterations(report)
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
