#!/usr/bin/env python3
"""Rebuilds summary.csv, summary.json, table.txt and the plots of a results directory from its
runs.jsonl (for instance after a run was cut short, or on another machine).

    python3 bench/harness/summarize.py --out results/full-20250101-120000
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import plots  # noqa: E402
import summary  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="results directory holding runs.jsonl")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    records = summary.load_records(args.out / "runs.jsonl")
    if not records:
        print(f"error: no records in {args.out / 'runs.jsonl'}", file=sys.stderr)
        return 2
    meta_path = args.out / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    aggregates = summary.write_outputs(args.out, records, meta)
    print(summary.table(aggregates))
    if not args.no_plots:
        histories = json.loads((args.out / "summary.json").read_text())["adaptive_histories"]
        for path in plots.write_plots(args.out, aggregates, histories):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
