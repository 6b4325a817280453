#!/usr/bin/env python3
"""End-to-end checks of what clsplit tells its users, on two PoCL devices: the run report
(fields, and transfer volumes that prove only missing bytes move), the timeline trace, the summary
and `clsplit report`. Usage: test_observability.py <build dir> <test name>."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
from endtoend import check, main, vendors_dir  # noqa: E402

BUILD = Path(sys.argv[1]).resolve()
ENV = dict(os.environ, POCL_DEVICES="pthread pthread", POCL_MAX_PTHREAD_COUNT="1",
           OCL_ICD_VENDORS=str(BUILD / "vendors"), CLSPLIT_DEVICES="all")
for k in ("CLSPLIT_STRATEGY", "CLSPLIT_REPORT", "CLSPLIT_TRACE", "CLSPLIT_SUMMARY", "OCL_ICD_FILENAMES"):
    ENV.pop(k, None)
TMP = Path(tempfile.mkdtemp(prefix="clsplit-obs-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


def run(program, args, **extra):
    env = dict(ENV, **extra)
    p = subprocess.run([str(BUILD / "bench" / "bin" / program), *args], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"{program} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    assert "verified=1" in p.stdout, p.stdout
    return p


def test_report_volumes():
    """Jacobi-1D split in two moves only the halo between iterations; the copy kernel, split
    like the stencil, moves nothing; the final read moves each device's part once."""
    n, iters = 65536, 20
    path = TMP / "jacobi1d.json"
    run("jacobi1d", ["--size", str(n), "--iters", str(iters)], CLSPLIT_STRATEGY="uniform",
        CLSPLIT_REPORT=str(path))
    r = json.loads(path.read_text())
    for key in ("clsplit_version", "strategy", "devices", "kernels", "launches", "transfers", "partitioner"):
        check(key in r, f"report lacks {key}")
    check(len(r["devices"]) == 2, "two devices expected")
    for name in ("jacobi1d_stencil", "jacobi1d_copy"):
        k = r["kernels"][name]
        check(k["launches"] == iters and k["split_launches"] == iters, f"{name} not split every time: {k}")
        check(k["fallback_reason"] is None, f"{name} fell back: {k['fallback_reason']}")
        check(all(g > 0 for g in k["groups_per_device"]), f"{name} groups {k['groups_per_device']}")
        check(all(t > 0 for t in k["time_ns_per_device"]), f"{name} times {k['time_ns_per_device']}")
    launches = r["launches"]
    check(len(launches) == 2 * iters, f"{len(launches)} launches recorded")
    stencils = [l for l in launches if l["kernel"] == "jacobi1d_stencil"]
    copies = [l for l in launches if l["kernel"] == "jacobi1d_copy"]
    check(all(sum(l["bytes_in"]) == 0 for l in copies), "the copy kernel moved bytes")
    # After the first launch (initial upload), each stencil needs one float from the neighbour.
    for l in stencils[1:]:
        check(l["bytes_in"] == [4, 4], f"halo exchange moved {l['bytes_in']} bytes, expected [4, 4]")
    first = sum(stencils[0]["bytes_in"])
    check(first <= n * 4 + 64, f"first launch moved {first} bytes, more than the input")
    t = r["transfers"]
    # The read-back moves each device's written part once; a device read may take along an end
    # point it also holds (valid on the host too) rather than start another transfer.
    moved = sum(t["device_to_host_bytes"])
    check((n - 2) * 4 <= moved <= n * 4, f"read-back moved {t['device_to_host_bytes']}")
    # Host time per entry point: every launch counted, vendor time a part of the total.
    times = {e["entry"]: e for e in r["host_time"]}
    launch = times.get("clEnqueueNDRangeKernel")
    check(launch is not None and launch["calls"] == 2 * iters, f"host_time of launches: {launch}")
    check(0 < launch["driver_ns"] < launch["total_ns"], f"vendor time not within the total: {launch}")
    check(launch["own_ns_per_call"] == (launch["total_ns"] - launch["driver_ns"]) // launch["calls"],
          f"own time per call inconsistent: {launch}")
    check("clEnqueueReadBuffer" in times and "clBuildProgram" in times, f"entries: {sorted(times)}")


def test_report_fallback_reason():
    """A kernel that cannot be split says why, in the report and the summary."""
    path = TMP / "sotl.json"
    p = run("sotl", ["--size", "2048", "--iters", "2"], CLSPLIT_STRATEGY="uniform",
            CLSPLIT_REPORT=str(path), CLSPLIT_SUMMARY="1")
    r = json.loads(path.read_text())
    reason = r["kernels"]["sort"]["fallback_reason"]
    check(reason and "sorted_pos" in reason, f"sort's fallback reason: {reason}")
    check(r["kernels"]["count"]["split_launches"] == 2, "count (merged atomics) was not split")
    check("not split (2x):" in p.stderr and "sort" in p.stderr, "summary lacks the fallback")
    reasons = r["kernels"]["sort"]["fallback_reasons"]
    check(list(reasons.values()) == [2] and reason in reasons, f"sort's fallback reasons: {reasons}")
    check(r["kernels"]["count"]["fallback_reasons"] == {}, "count ran whole for a reason")


def test_trace():
    path = TMP / "trace.json"
    run("jacobi2d", ["--size", "256", "--iters", "4"], CLSPLIT_STRATEGY="uniform", CLSPLIT_TRACE=str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    check(any("host" in n for n in names.values()), f"no host track: {names}")
    for slot in (0, 1):
        check(any(n.startswith(f"device {slot}") and n.endswith("kernels") for n in names.values()),
              f"no kernel track for device {slot}: {names}")
    spans = [e for e in events if e.get("ph") == "X"]
    kernels = [e for e in spans if e["name"] in ("jacobi2d_stencil", "jacobi2d_copy")]
    check(len(kernels) == 16, f"{len(kernels)} sub-kernels in the trace, expected 16")
    check(all(e["dur"] >= 0 and e["ts"] >= 0 and e["tid"] in names for e in spans), "malformed spans")
    check(any(e["name"] == "plan launch" for e in spans), "no planning spans")
    check(any(e["name"] == "analysis" for e in spans), "no analysis span")


def test_report_command():
    path = TMP / "r.json"
    run("jacobi2d", ["--size", "256", "--iters", "6"], CLSPLIT_STRATEGY="adaptive-comm", CLSPLIT_REPORT=str(path))
    out = TMP / "plots"
    p = subprocess.run([str(BUILD / "bin" / "clsplit"), "report", str(path), "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"clsplit report failed: {p.stderr}")
    check("jacobi2d_stencil" in p.stdout and "iterations: 6" in p.stdout, p.stdout)
    for png in ("ratios.png", "time.png", "bytes.png"):
        f = out / png
        check(f.is_file() and f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{png} missing or not a PNG")


def test_hints():
    """An unsplit kernel of a "closed" program: `clsplit hints --dump` names the program hash and
    what defeated the analysis; a hint file under that name makes the kernel split, correctly."""
    import re
    program = str(BUILD / "tests" / "bin" / "observability_scatter")
    dump = TMP / "dump"
    before = TMP / "before.json"
    env = dict(ENV, CLSPLIT_CACHE_DIR=str(TMP / "cache"))
    p = subprocess.run([str(BUILD / "bin" / "clsplit"), "hints", "--dump", "--dir", str(dump),
                        "--strategy", "uniform", "--report", str(before), "--", program, "3"],
                       env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0 and "verified=1" in p.stdout, f"dump run failed:\n{p.stdout}\n{p.stderr}")
    m = re.search(r"^program ([0-9a-f]{64})$", p.stdout, re.M)
    check(m is not None, f"no program hash in the dump:\n{p.stdout}")
    digest = m.group(1)
    check("1 program(s)" in p.stdout, p.stdout)
    check("kernel scatter(pos, in, out)" in p.stdout and "unsplittable:" in p.stdout, p.stdout)
    check("opencl_increasing_buffer pos" in p.stdout, "the dump does not suggest the hint")
    check((dump / f"{digest}.cl").read_text().count("out[pos[i]]") == 1, "the dumped source")
    check("0 split-ready, 1 run whole" in (dump / f"{digest}.txt").read_text(), "the dump file")
    k = json.loads(before.read_text())["kernels"]["scatter"]
    check(k["split_launches"] == 0 and k["fallback_reason"], f"split without a hint: {k}")

    hints = TMP / "hints"
    hints.mkdir()
    (hints / f"{digest}.hints").write_text("// written from the dump\n[kernel scatter]\n"
                                           "#pragma opencl_increasing_buffer pos\n")
    after = TMP / "after.json"
    p = subprocess.run([program, "3"], env=dict(env, OCL_ICD_FILENAMES=str(BUILD / "lib" / "libclsplit.so"),
                                                CLSPLIT_STRATEGY="uniform", CLSPLIT_HINTS=str(hints),
                                                CLSPLIT_REPORT=str(after)),
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0 and "verified=1" in p.stdout, f"hinted run failed:\n{p.stdout}\n{p.stderr}")
    k = json.loads(after.read_text())["kernels"]["scatter"]
    check(k["split_launches"] == 3 and k["fallback_reason"] is None, f"not split with the hint: {k}")
    check(all(g > 0 for g in k["groups_per_device"]), f"groups {k['groups_per_device']}")


def test_replication():
    """A kernel whose over-approximated write regions overlap between slices still splits, by
    running a few work-groups on both devices (thesis 3.1.3); its results are those of one device."""
    program = str(BUILD / "tests" / "integration" / "bin" / "itest_alternate")
    pocl_only = vendors_dir(TMP, [("pocl", "libpocl.so.2")])
    direct = subprocess.run([program], env=dict(ENV, OCL_ICD_VENDORS=str(pocl_only), POCL_DEVICES="pthread"),
                            capture_output=True, text=True, timeout=300)
    check(direct.returncode == 0, f"direct run failed:\n{direct.stdout}\n{direct.stderr}")
    path = TMP / "alternate.json"
    split = subprocess.run([program], env=dict(ENV, CLSPLIT_STRATEGY="uniform", CLSPLIT_REPORT=str(path)),
                           capture_output=True, text=True, timeout=300)
    check(split.returncode == 0, f"split run failed:\n{split.stdout}\n{split.stderr}")
    check(split.stdout == direct.stdout, "checksums differ from the direct run:\n"
          + "\n".join(l for l in split.stdout.splitlines() if l not in direct.stdout.splitlines()))
    k = json.loads(path.read_text())["kernels"]["reverseBlocks"]
    check(k["launches"] > 0 and k["split_launches"] == k["launches"], f"reverseBlocks not split every time: {k}")
    check(k["fallback_reason"] is None, f"fell back: {k['fallback_reason']}")
    groups = k["groups_per_device"]
    check(all(g > 0 for g in groups), f"groups {groups}")
    # 8 launches of 4096 items, in groups of 16 (odd launches) or 64 (clsplit's choice for a NULL
    # local size): 4 * 256 + 4 * 64 groups if none ran twice.
    check(k["launches"] == 8, f"{k['launches']} launches of reverseBlocks, expected 8")
    check(sum(groups) > 4 * 256 + 4 * 64, f"no replicated work-groups: {groups}")


def test_indirection_reads():
    """A monotone indirection hint reads a few row-pointer elements to place the slices; an index
    buffer no launch writes is read once, not before every launch (a read waits for the device,
    so a launch that reads cannot run ahead of it): the vendor reads do not grow with the number
    of launches."""
    reads = {}
    for iters in (10, 30):
        path = TMP / f"spmv-skewed-{iters}.json"
        run("spmv-skewed", ["--size", "65536", "--iters", str(iters)], CLSPLIT_STRATEGY="uniform",
            CLSPLIT_REPORT=str(path), CLSPLIT_REPORT_TIMING="0")
        r = json.loads(path.read_text())
        k = r["kernels"]["spmv"]
        check(k["split_launches"] == iters, f"spmv split {k['split_launches']} of {iters} launches")
        reads[iters] = {d["function"]: d["calls"] for d in r["driver_calls"]}.get("clEnqueueReadBuffer", 0)
    check(reads[30] <= reads[10] + 2, f"vendor reads grow with the launches: {reads}")


def test_images():
    """Kernels that only read images split (each device holding the images whole); kernels that
    write an image run whole and say why; the program's own checks pass either way."""
    path = TMP / "images.json"
    env = dict(ENV, CLSPLIT_STRATEGY="uniform", CLSPLIT_REPORT=str(path))
    p = subprocess.run([str(BUILD / "tests" / "integration" / "bin" / "itest_images")], env=env,
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0 and p.stdout.rstrip().endswith("done"), f"itest_images failed:\n{p.stdout}\n{p.stderr}")
    r = json.loads(path.read_text())
    # (toBuffer and readUint index their output with get_image_width: a value of the launch.)
    for name in ("blurRed", "crossBorder", "read1d", "toBuffer", "readUint"):
        k = r["kernels"][name]
        check(k["split_launches"] == k["launches"] >= 1, f"{name} (reads images only) was not split: {k}")
    stencil = r["kernels"]["stencilStep"]
    check(stencil["split_launches"] == 0, "stencilStep writes an image, yet was split")
    check("writes an image" in (stencil["fallback_reason"] or ""), f"stencilStep's reason: {stencil['fallback_reason']}")
    calls = {d["function"] for d in r["driver_calls"]}
    check({"clCreateImage", "clEnqueueReadImage", "clEnqueueWriteImage"} <= calls, f"image calls: {sorted(calls)}")


def test_analyzer_module():
    """Clang and LLVM (libclsplit-analyzer.so) are loaded only when a program's analysis is not
    cached; without the module, programs still run right, whole, and nothing wrong is cached."""
    cache = TMP / "module-cache"
    args = ["--size", "65536", "--iters", "4"]

    def report(name, **extra):
        path = TMP / f"{name}.json"
        p = run("jacobi1d", args, CLSPLIT_STRATEGY="uniform", CLSPLIT_CACHE_DIR=str(cache),
                CLSPLIT_REPORT=str(path), **extra)
        return json.loads(path.read_text()), p

    missing, p = report("module-missing", CLSPLIT_ANALYZER_MODULE=str(TMP / "no-such-module.so"))
    check(missing["analyzer_loaded"] is False, "a module that does not exist was loaded")
    stencil = missing["kernels"]["jacobi1d_stencil"]
    check(stencil["split_launches"] == 0, f"split without an analysis: {stencil}")
    check("analyzer module" in (stencil["fallback_reason"] or ""), f"reason: {stencil['fallback_reason']}")
    check("could not be loaded" in p.stderr, f"no log line says why:\n{p.stderr}")

    first, _ = report("module-first")
    check(first["analyzer_loaded"] is True, "a cache miss did not load the analyzer")
    check(first["kernels"]["jacobi1d_stencil"]["split_launches"] == 4, "the failed analysis was cached")

    again, _ = report("module-cached")
    check(again["analyzer_loaded"] is False, "a cached analysis still loaded the analyzer")
    check(again["kernels"]["jacobi1d_stencil"]["split_launches"] == 4, "the cached analysis does not split")


if __name__ == "__main__":
    main(globals(), sys.argv[2])
