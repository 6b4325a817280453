#!/usr/bin/env python3
"""Device failures injected into real calls (CLSPLIT_TEST_FAULTS) on two PoCL devices: clsplit
runs the work elsewhere and the results stay right, or the program gets an OpenCL error code -
never a crash, a hang or a wrong result. Usage: test_faults.py <build dir> <test name>."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
from endtoend import check, fail, main  # noqa: E402

BUILD = Path(sys.argv[1]).resolve()
ENV = dict(os.environ, POCL_DEVICES="pthread pthread", POCL_MAX_PTHREAD_COUNT="1",
           OCL_ICD_VENDORS=str(BUILD / "vendors"), CLSPLIT_DEVICES="all", CLSPLIT_STRATEGY="uniform")
for k in ("CLSPLIT_REPORT", "CLSPLIT_TRACE", "CLSPLIT_SUMMARY", "OCL_ICD_FILENAMES", "CLSPLIT_TEST_FAULTS"):
    ENV.pop(k, None)
TMP = Path(tempfile.mkdtemp(prefix="clsplit-faults-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


def run(program, args, **extra):
    p = subprocess.run([str(BUILD / "bench" / "bin" / program), *args], env=dict(ENV, **extra),
                       capture_output=True, text=True, timeout=300)
    if p.returncode < 0:
        fail(f"{program} died of signal {-p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


def warm(program, args, **extra):
    """Runs `program` once without faults, so that PoCL's kernel cache holds what its launches
    compile. A program that exits on an error while PoCL 3.1's worker still compiles an earlier
    launch's kernel dies of a signal: the worker meets LLVM objects that exit already destroyed
    (docs/limitations.md); the tests below exit on errors by design."""
    p = run(program, args, CLSPLIT_PASSTHROUGH="off", **extra)  # built as under fault injection
    check(p.returncode == 0, f"{program} without faults failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")


def verified(p, what):
    check(p.returncode == 0 and "verified=1" in p.stdout, f"{what}: not verified ({p.returncode}):\n{p.stdout}\n{p.stderr}")


def report(path):
    return json.loads(Path(path).read_text())


def test_kernel_rejected_once():
    """Device 1 rejects one sub-kernel: its slice runs on device 0, the result is right."""
    path = TMP / "once.json"
    p = run("jacobi1d", ["--size", "65536", "--iters", "10"], CLSPLIT_TEST_FAULTS="clEnqueueNDRangeKernel@1:3",
            CLSPLIT_REPORT=str(path))
    verified(p, "one rejected sub-kernel")
    check("test fault" in p.stderr and "ran on slot 0" in p.stderr, f"no recovery logged:\n{p.stderr}")
    k = report(path)["kernels"]
    check(k["jacobi1d_stencil"]["split_launches"] + k["jacobi1d_copy"]["split_launches"] >= 18,
          f"the other launches should still split: {k}")


def test_kernel_rejected_always():
    """Device 1 rejects every sub-kernel: every launch runs on device 0, results right."""
    p = run("jacobi2d", ["--size", "128", "--iters", "6"], CLSPLIT_TEST_FAULTS="clEnqueueNDRangeKernel@1:1+")
    verified(p, "device 1 rejecting every kernel")


def test_transfers_fail():
    """Transfers to device 1 fail: launches run whole on device 0."""
    path = TMP / "transfers.json"
    p = run("jacobi1d", ["--size", "65536", "--iters", "5"], CLSPLIT_TEST_FAULTS="clEnqueueWriteBuffer@1:1+",
            CLSPLIT_REPORT=str(path), CLSPLIT_EAGER_UPLOAD="0")
    verified(p, "failing transfers to device 1")
    reasons = [k["fallback_reason"] for k in report(path)["kernels"].values()]
    check(any(r and "device failed" in r for r in reasons), f"no fallback reason recorded: {reasons}")


def test_initial_writes_fail():
    """Writes to device 0 fail, eager uploads on (the default): new data the application writes
    is kept on the host instead, and launches run whole on device 1."""
    path = TMP / "initial-writes.json"
    p = run("jacobi1d", ["--size", "65536", "--iters", "5"], CLSPLIT_TEST_FAULTS="clEnqueueWriteBuffer@0:1+",
            CLSPLIT_REPORT=str(path))
    verified(p, "failing writes to device 0")
    check("kept on the host" in p.stderr, f"no log line on the failed write:\n{p.stderr}")


def test_merged_atomics_partial():
    """A rejected sub-kernel of a launch whose atomics are merged cannot be rerun safely: the
    program gets CL_OUT_OF_RESOURCES (exit status 3 of the workloads), and does not crash."""
    warm("sotl", ["--size", "4096", "--iters", "2"])
    p = run("sotl", ["--size", "4096", "--iters", "2"], CLSPLIT_TEST_FAULTS="clEnqueueNDRangeKernel@1:2")
    check(p.returncode == 3, f"expected the OpenCL error exit (3), got {p.returncode}:\n{p.stdout}\n{p.stderr}")
    check("CL_OUT_OF_RESOURCES" in p.stdout + p.stderr, f"the error is not the device's:\n{p.stdout}\n{p.stderr}")


def test_single_device_error():
    """With one device there is nowhere else to go: the application gets the error code."""
    warm("jacobi1d", ["--size", "4096", "--iters", "3"], CLSPLIT_DEVICES="0")
    p = run("jacobi1d", ["--size", "4096", "--iters", "3"], CLSPLIT_DEVICES="0",
            CLSPLIT_TEST_FAULTS="clEnqueueNDRangeKernel@0:2")
    check(p.returncode == 3 and "CL_OUT_OF_RESOURCES" in p.stdout + p.stderr,
          f"expected CL_OUT_OF_RESOURCES from the second launch, got {p.returncode}:\n{p.stdout}\n{p.stderr}")


def test_read_fails():
    """A failing read-back gives the application an error, not stale data."""
    warm("jacobi1d", ["--size", "4096", "--iters", "3"])
    p = run("jacobi1d", ["--size", "4096", "--iters", "3"], CLSPLIT_TEST_FAULTS="clEnqueueReadBuffer@0:1+,clEnqueueReadBuffer@1:1+")
    check(p.returncode == 3 and "CL_OUT_OF_RESOURCES" in p.stdout + p.stderr,
          f"expected CL_OUT_OF_RESOURCES from the read, got {p.returncode}:\n{p.stdout}\n{p.stderr}")


def test_bad_spec():
    """A malformed fault spec is a warning, not a crash, and injects nothing."""
    p = run("jacobi1d", ["--size", "4096", "--iters", "2"], CLSPLIT_TEST_FAULTS="clEnqueueNDRangeKernel@9:1")
    verified(p, "malformed spec")
    check("CLSPLIT_TEST_FAULTS" in p.stderr, f"no warning:\n{p.stderr}")


if __name__ == "__main__":
    main(globals(), sys.argv[2])
