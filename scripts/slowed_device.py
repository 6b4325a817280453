#!/usr/bin/env python3
"""Summarises the slowed-device experiment (scripts/gpu-slowed-device.sh): from clsplit's trace
(CLSPLIT_TRACE) and the competing process's log, each device's share of the work-groups and its
mean sub-kernel time per time window, before, during and after the competing load.

usage: slowed_device.py TRACE.json BUSY.log [--window-ms 100]
"""
import argparse
import json
import re
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("busy_log")
    ap.add_argument("--window-ms", type=float, default=100.0)
    a = ap.parse_args()
    trace = json.load(open(a.trace))
    origin_ns = trace.get("otherData", {}).get("clsplit_origin_ns", 0)
    log = open(a.busy_log).read()
    start = re.search(r"start_ns=(\d+)", log)
    end = re.search(r"end_ns=(\d+)", log)
    if not origin_ns or not start or not end:
        sys.exit("missing times (trace origin or busy-device start/end)")
    busy = ((int(start.group(1)) - origin_ns) / 1e6, (int(end.group(1)) - origin_ns) / 1e6)  # ms

    names = {}
    for e in trace["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
    kernel_tracks = {t: n for t, n in names.items() if t % 4 == 1}  # kernelTrack(slot) = 1 + 4 slot
    slots = sorted(kernel_tracks)
    groups = defaultdict(lambda: defaultdict(int))
    time_us = defaultdict(lambda: defaultdict(float))
    count = defaultdict(lambda: defaultdict(int))
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e["tid"] not in kernel_tracks:
            continue
        w = int(e["ts"] / 1e3 // a.window_ms)
        lo, hi = e["args"]["groups"]
        groups[w][e["tid"]] += hi - lo
        time_us[w][e["tid"]] += e["dur"]
        count[w][e["tid"]] += 1
    print("competing load on the device: %.0f ms to %.0f ms" % busy)
    for t in slots:
        print("track %d: %s" % (t, kernel_tracks[t]))
    header = "window(ms)  load  " + "  ".join("share%d  mean_us%d" % (i, i) for i in range(len(slots)))
    print(header)
    phases = defaultdict(lambda: defaultdict(int))
    for w in sorted(groups):
        lo_ms, hi_ms = w * a.window_ms, (w + 1) * a.window_ms
        loaded = hi_ms > busy[0] and lo_ms < busy[1]
        total = sum(groups[w].values()) or 1
        cells = []
        for t in slots:
            share = groups[w][t] / total
            mean = time_us[w][t] / count[w][t] if count[w][t] else 0.0
            cells.append("%6.3f  %8.1f" % (share, mean))
        phase = "during" if loaded else ("before" if hi_ms <= busy[0] else "after")
        for t in slots:
            phases[phase][t] += groups[w][t]
        print("%6.0f-%-6.0f %-5s %s" % (lo_ms, hi_ms, "busy" if loaded else "", "  ".join(cells)))
    print("share of work-groups per phase:")
    for phase in ("before", "during", "after"):
        total = sum(phases[phase].values())
        if total:
            print("  %-7s %s" % (phase, "  ".join("%.3f" % (phases[phase][t] / total) for t in slots)))


if __name__ == "__main__":
    main()
