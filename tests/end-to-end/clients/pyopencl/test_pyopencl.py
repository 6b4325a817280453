#!/usr/bin/python3
"""clsplit's pyopencl client test: runs the pyopencl scenarios (scenarios.py) directly on PoCL (the
reference) and through clsplit in one configuration, compares every result, and checks in the run
report that the user-written kernels were split.

  test_pyopencl.py reference --work W --compute-units K
  test_pyopencl.py compare   --build B --work W --config C [--scenario S ...]
  test_pyopencl.py configs

pyopencl sizes launches from CL_DEVICE_MAX_COMPUTE_UNITS (clrandom derives each work-item's key
from its global id and strides by the global size; the scans split their work by it), so results
legitimately depend on it. clsplit's device reports the sum of its devices' compute units, so each
configuration is compared with a reference device that reports the same count: one PoCL pthread
device with POCL_MAX_PTHREAD_COUNT=K (PoCL reports K compute units).

Results must be identical bit for bit, except the float values that scenarios.ORDER_DEPENDENT
lists (sums whose order OpenCL leaves open): those may differ by at most the bound the scenario
saved with them (twice Higham's worst-case rounding error of a float32 sum, see scenarios.py);
the output says when they were not identical.

Exit status 0: passed; 1: failed; 77: skipped (no pyopencl/numpy in this Python, or no PoCL).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

SKIP = 77
RUN_TIMEOUT_S = 900  # cold PoCL and analysis caches: the generated scan kernels take long to build
POCL_ICD = "/etc/OpenCL/vendors/pocl.icd"
HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (POCL_DEVICES (one-core devices: their count is the compute units of clsplit's device),
#          CLSPLIT_STRATEGY or None for the default, user kernels must split, runs, scenarios)
# pyopencl keeps built programs in its binary cache (per configuration, kept between test runs
# so that runs after the first are fast). A cache miss builds from source, and pyopencl then
# appends a random constant to the source to defeat implementation caches, so clsplit analyses
# it afresh; a hit creates the program from the binary clsplit returned (clCreateProgramWithBinary).
# "runs" > 1 starts from an empty cache and repeats the program: the first run builds from
# source, the later ones from the cached binaries (both paths on every test run).
CONFIGS = {
    "d1": ("pthread", None, False, 1, None),
    "d2-uniform": ("pthread pthread", "uniform", True, 1, None),
    "d3-static": ("pthread pthread pthread", "static:0.2,0.3,0.5", True, 1, None),
    "d2-adaptive-comm": ("pthread pthread", "adaptive-comm", False, 1, None),
    "d2-uniform-cached-binaries": ("pthread pthread", "uniform", True, 2,
                                   ["user_program", "host_pointers", "jacobi", "images"]),
}


def have_python_modules():
    try:
        import numpy  # noqa: F401
        import pyopencl  # noqa: F401
        return True
    except ImportError as e:
        print("SKIP: %s lacks pyopencl or numpy (%s); install python3-pyopencl" % (sys.executable, e))
        return False


def write_atomically(path, text):
    temporary = "%s.%d.tmp" % (path, os.getpid())
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def reference_dir(work, compute_units):
    return os.path.join(work, "reference-cu%d" % compute_units)


def base_environment(work, pocl_devices, pyopencl_cache, max_threads=1):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLSPLIT_", "OCL_ICD_", "POCL_", "PYOPENCL_"))}
    env["POCL_DEVICES"] = pocl_devices
    env["POCL_MAX_PTHREAD_COUNT"] = str(max_threads)
    # PoCL's kernel cache is shared by every run (it is safe across processes and saves minutes);
    # pyopencl's binary cache belongs to one configuration (XDG_CACHE_HOME).
    env["POCL_CACHE_DIR"] = os.path.join(work, "pocl-cache")
    env["XDG_CACHE_HOME"] = pyopencl_cache
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_scenarios(env, out_dir, scenarios):
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    command = [sys.executable, os.path.join(HERE, "run_scenarios.py"), out_dir] + scenarios
    try:
        p = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=RUN_TIMEOUT_S)
        rc, log = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, log = "timeout after %d s" % RUN_TIMEOUT_S, (e.stdout or b"").decode(errors="replace")
    try:
        with open(os.path.join(out_dir, "status.json")) as f:
            status = json.load(f)
    except (OSError, ValueError):
        status = {}
    return rc, log, status


def cmd_reference(a):
    if not have_python_modules():
        return SKIP
    if not os.path.exists(POCL_ICD):
        print("SKIP: PoCL is not installed (%s)" % POCL_ICD)
        return SKIP
    vendors = os.path.join(a.work, "vendors-pocl")
    os.makedirs(vendors, exist_ok=True)
    with open(POCL_ICD) as f:
        write_atomically(os.path.join(vendors, "pocl.icd"), f.read())
    cache = os.path.join(a.work, "reference-xdg-cache")  # the device's cache identity has no unit count
    env = base_environment(a.work, "pthread", cache, a.compute_units)
    env["OCL_ICD_VENDORS"] = vendors
    rc, log, status = run_scenarios(env, reference_dir(a.work, a.compute_units), a.scenario)
    print(log, end="")
    if rc != 0:
        print("FAIL: the scenarios fail on PoCL without clsplit (status %s): the test itself is broken" % rc)
        return 1
    print("reference: %d scenarios on one PoCL device with %d compute units" % (len(status), a.compute_units))
    return 0


def compare_scenario(name, reference_file, actual_file, order_dependent):
    """Returns (problems, notes) comparing two saved result sets."""
    import numpy as np
    problems, notes = [], []
    expected, actual = np.load(reference_file), np.load(actual_file)
    if sorted(expected.files) != sorted(actual.files):
        return ["result keys differ: %s vs %s" % (sorted(expected.files), sorted(actual.files))], notes
    for key in sorted(expected.files):
        e, g = expected[key], actual[key]
        if e.dtype != g.dtype or e.shape != g.shape:
            problems.append("%s: %s%s vs reference %s%s" % (key, g.dtype, g.shape, e.dtype, e.shape))
            continue
        if e.tobytes() == g.tobytes():
            continue
        if (name, key) in order_dependent:
            bound = expected[order_dependent[(name, key)]]  # itself compared exactly
            difference = np.abs(e.astype(np.float64) - g.astype(np.float64))
            if np.all(difference <= bound):
                notes.append("%s: differs from the reference by up to %g (allowed: %g, summation order)" % (
                    key, difference.max(), float(np.min(bound))))
                continue
            problems.append("%s: differs by %g, more than the summation-order bound" % (key, difference.max()))
            continue
        mismatch = np.flatnonzero(e.view(np.uint8).ravel() != g.view(np.uint8).ravel()) // e.itemsize
        first = int(mismatch[0]) if len(mismatch) else -1
        problems.append("%s: %d of %d elements differ; first at flat index %d: %r vs reference %r" % (
            key, len(np.unique(mismatch)), e.size, first, g.ravel()[first], e.ravel()[first]))
    return problems, notes


def check_report(report_file, must_split, all_user_kernels_ran):
    """Lists every kernel (split or not, and why) and checks that the user kernels were split."""
    sys.path.insert(0, HERE)
    from scenarios import USER_KERNELS
    problems, lines = [], []
    try:
        with open(report_file) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return ["no readable run report (%s)" % e], lines
    kernels = report.get("kernels", {})
    for name in sorted(kernels):
        k = kernels[name]
        lines.append("  %-34s launches %4d  split %4d  groups/device %-18s %s" % (
            name, k.get("launches", 0), k.get("split_launches", 0), k.get("groups_per_device"),
            "" if not k.get("fallback_reason") else "fallback: " + k["fallback_reason"]))
    for name in USER_KERNELS:
        if name not in kernels:
            if all_user_kernels_ran:
                problems.append("user kernel %s is missing from the run report" % name)
        elif must_split and kernels[name].get("split_launches", 0) == 0:
            problems.append("user kernel %s was never split (%s)" % (name, kernels[name].get("fallback_reason")))
    return problems, lines


def cmd_compare(a):
    if not have_python_modules():
        return SKIP
    if not os.path.exists(POCL_ICD):
        print("SKIP: PoCL is not installed (%s)" % POCL_ICD)
        return SKIP
    pocl_devices, strategy, must_split, runs, subset = CONFIGS[a.config]
    compute_units = len(pocl_devices.split())
    reference = reference_dir(a.work, compute_units)
    try:
        with open(os.path.join(reference, "status.json")) as f:
            reference_status = json.load(f)
    except (OSError, ValueError):
        print("FAIL: no reference results in %s; run clients.pyopencl.reference.cu%d first" % (
            reference, compute_units))
        return 1
    sys.path.insert(0, HERE)
    from scenarios import ORDER_DEPENDENT, SCENARIOS
    scenarios = a.scenario or subset or list(SCENARIOS)
    config_dir = os.path.join(a.work, a.config)
    cache = os.path.join(config_dir, "xdg-cache")
    if runs > 1:
        shutil.rmtree(cache, ignore_errors=True)
    env = base_environment(a.work, pocl_devices, cache)
    env["OCL_ICD_VENDORS"] = os.path.join(a.build, "vendors")
    env["OCL_ICD_FILENAMES"] = os.path.join(a.build, "lib", "libclsplit.so")
    env["CLSPLIT_VENDORS"] = POCL_ICD
    env["CLSPLIT_DEVICES"] = "all"
    env["CLSPLIT_CONFIG"] = "/dev/null"
    env["CLSPLIT_CACHE_DIR"] = os.path.join(a.work, "analysis-cache")
    if strategy:
        env["CLSPLIT_STRATEGY"] = strategy
    failed = False
    for run in range(runs):
        out_dir = os.path.join(config_dir, "run%d" % run)
        report_file = os.path.join(config_dir, "report%d.json" % run)
        if os.path.exists(report_file):
            os.remove(report_file)
        env["CLSPLIT_REPORT"] = report_file
        rc, log, status = run_scenarios(env, out_dir, scenarios)
        print("=== run %d of %d through clsplit, configuration %s%s" % (
            run + 1, runs, a.config, " (programs from pyopencl's binary cache)" if run else ""))
        print(log, end="")
        if rc != 0:
            failed = True
            print("FAIL: run_scenarios exit status %s through clsplit" % rc)
        for name in scenarios:
            if reference_status.get(name) != "ok":
                failed = True
                print("FAIL: %s: no reference result" % name)
                continue
            if status.get(name) != "ok":
                failed = True
                print("FAIL: %s through clsplit: %s" % (name, status.get(name, "did not run")))
                continue
            problems, notes = compare_scenario(name, os.path.join(reference, name + ".npz"),
                                               os.path.join(out_dir, name + ".npz"), ORDER_DEPENDENT)
            for p in problems:
                failed = True
                print("FAIL: %s: %s" % (name, p))
            for n in notes:
                print("note: %s: %s" % (name, n))
            if not problems:
                print("%-18s identical to the reference%s" % (name, " (within the bounds above)" if notes else ""))
        if rc == 0:
            problems, lines = check_report(report_file, must_split, not (a.scenario or subset))
            print("kernels in the run report:")
            print("\n".join(lines))
            for p in problems:
                failed = True
                print("FAIL: run report: " + p)
    if not failed:
        print("PASS: %d scenarios identical to PoCL without clsplit, configuration %s" % (len(scenarios), a.config))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["reference", "compare", "configs"])
    parser.add_argument("--build")
    parser.add_argument("--work")
    parser.add_argument("--config", choices=sorted(CONFIGS))
    parser.add_argument("--compute-units", type=int, default=1, help="of the reference device")
    parser.add_argument("--scenario", action="append", default=[], help="run only these scenarios")
    a = parser.parse_args()
    if a.mode == "configs":
        for name in CONFIGS:
            print(name)
        return 0
    a.work = os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)
    if a.mode == "reference":
        return cmd_reference(a)
    a.build = os.path.abspath(a.build)
    return cmd_compare(a)


if __name__ == "__main__":
    sys.exit(main())
