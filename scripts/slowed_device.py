#!/usr/bin/env python3
"""Summarises the slowed-device experiment (scripts/gpu-slowed-device.sh): from clsplit's trace
(CLSPLIT_TRACE) and the logs of the competing loads (each with start_ns= and end_ns= on the
steady clock), each device's share of the work-groups and its mean sub-kernel time per time
window, and per phase (no load, or which load was running).

usage: slowed_device.py TRACE.json --load NAME=LOG [--load NAME=LOG ...] [--window-ms 250]
"""
import argparse
import json
import re
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--load", action="append", default=[], help="NAME=LOG of a competing load")
    ap.add_argument("--window-ms", type=float, default=250.0)
    a = ap.parse_args()
    trace = json.load(open(a.trace))
    origin_ns = trace.get("otherData", {}).get("clsplit_origin_ns", 0)
    if not origin_ns:
        sys.exit("the trace has no clsplit_origin_ns")
    loads = []
    for spec in a.load:
        name, path = spec.split("=", 1)
        text = open(path).read()
        start, end = re.search(r"start_ns=(\d+)", text), re.search(r"end_ns=(\d+)", text)
        if not start or not end:
            sys.exit("%s: no start_ns/end_ns" % path)
        loads.append((name, (int(start.group(1)) - origin_ns) / 1e6, (int(end.group(1)) - origin_ns) / 1e6))

    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    tracks = sorted(t for t in names if t % 4 == 1)  # kernel tracks: 1 + 4 * slot
    groups = defaultdict(lambda: defaultdict(int))
    time_us = defaultdict(lambda: defaultdict(float))
    count = defaultdict(lambda: defaultdict(int))
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e["tid"] not in tracks:
            continue
        w = int(e["ts"] / 1e3 // a.window_ms)
        lo, hi = e["args"]["groups"]
        groups[w][e["tid"]] += hi - lo
        time_us[w][e["tid"]] += e["dur"]
        count[w][e["tid"]] += 1
    for name, lo, hi in loads:
        print("load %s: %.0f ms to %.0f ms" % (name, lo, hi))
    for i, t in enumerate(tracks):
        print("device %d: %s" % (i, names[t]))
    print("window (ms)   phase     " + "  ".join("share%d mean_us%d" % (i, i) for i in range(len(tracks))))
    phases = defaultdict(lambda: defaultdict(int))
    order = []
    for w in sorted(groups):
        lo_ms, hi_ms = w * a.window_ms, (w + 1) * a.window_ms
        inside = [n for n, s, e in loads if hi_ms > s and lo_ms < e]
        phase = "+".join(inside) if inside else "none"
        total = sum(groups[w].values()) or 1
        cells = []
        for t in tracks:
            mean = time_us[w][t] / count[w][t] if count[w][t] else 0.0
            cells.append("%6.3f %8.0f" % (groups[w][t] / total, mean))
            phases[phase][t] += groups[w][t]
        if phase not in order:
            order.append(phase)
        print("%6.0f-%-6.0f %-9s %s" % (lo_ms, hi_ms, phase, "  ".join(cells)))
    print("share of work-groups per phase (windows overlapping a load count for it):")
    for phase in order:
        total = sum(phases[phase].values())
        print("  %-9s %s" % (phase, "  ".join("%.3f" % (phases[phase][t] / total) for t in tracks)))


if __name__ == "__main__":
    main()
