#!/usr/bin/env python3
"""The adaptive strategies on real devices (PoCL, Oclgrind), read from the run report's ratio
history: a simulator hundreds of times slower gets (almost) nothing, two equal devices share the
work evenly, and the split follows a load that moves during the run; results stay those of a
direct run. Usage: test_adaptive.py <build dir> <test program dir> <test name>."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
from endtoend import check, fail, main, vendors_dir  # noqa: E402

BUILD = Path(sys.argv[1]).resolve()
PROGRAMS = Path(sys.argv[2]).resolve()
OCLGRIND_LIBRARY = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"
TMP = Path(tempfile.mkdtemp(prefix="clsplit-adaptive-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
BASE = {k: v for k, v in os.environ.items()
        if not k.startswith("CLSPLIT_") and k not in ("OCL_ICD_FILENAMES", "OCL_ICD_VENDORS")}


def vendors(*icds):
    return vendors_dir(TMP, icds)


POCL = ("pocl", "libpocl.so.2")
OCLGRIND = ("0-oclgrind", OCLGRIND_LIBRARY)  # sorts first: device 0


def run(command, env, what):
    p = subprocess.run([str(c) for c in command], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        fail(f"{what} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p


def through_clsplit(command, strategy, real_vendors, pocl_devices, report, what, concurrent=True):
    """`concurrent`: PoCL's two pthread devices share one CPU and take turns, which the adaptive
    strategies notice (they then stop splitting); the balancing tests treat them as concurrent."""
    env = dict(BASE, POCL_DEVICES=pocl_devices, POCL_MAX_PTHREAD_COUNT="1", OCL_ICD_VENDORS=str(BUILD / "vendors"),
               CLSPLIT_VENDORS=str(real_vendors), CLSPLIT_DEVICES="all", CLSPLIT_STRATEGY=strategy,
               CLSPLIT_REPORT=str(report))
    if concurrent:
        env["CLSPLIT_TEST_CONCURRENT_DEVICES"] = "1"
    return run(command, env, what)


def history(report, kernel):
    r = json.loads(Path(report).read_text())
    for k in r["partitioner"]["kernels"]:
        if k["kernel"].endswith(":" + kernel):
            return [entry["ratios"] for entry in k["history"]]
    fail(f"no history for {kernel} in {report}")


def mean_share(entries, device):
    return sum(e[device] for e in entries) / len(entries)


def test_oclgrind_gets_little():
    if not os.path.exists(OCLGRIND_LIBRARY):
        print("skipped: no Oclgrind")
        sys.exit(77)
    report = TMP / "oclgrind.json"
    p = through_clsplit([BUILD / "bench" / "bin" / "jacobi1d", "--size", "16384", "--iters", "30"], "adaptive-comm",
                        vendors(OCLGRIND, POCL), "pthread", report, "jacobi1d on Oclgrind + PoCL")
    check("verified=1" in p.stdout, p.stdout)
    devices = json.loads(report.read_text())["partitioner"]["devices"]
    check(devices[0]["platform"] != devices[1]["platform"], f"two vendors, one platform: {devices}")
    check(all(d["concurrentGroups"] >= 1 for d in devices), f"no compute units: {devices}")
    late = history(report, "jacobi1d_stencil")[-10:]
    check(mean_share(late, 0) <= 0.05, f"Oclgrind (device 0) still gets {mean_share(late, 0):.2f}: {late}")


def test_equal_devices_share_evenly():
    report = TMP / "equal.json"
    p = through_clsplit([BUILD / "bench" / "bin" / "gemm", "--size", "256", "--iters", "30"], "adaptive-comm",
                        vendors(POCL), "pthread pthread", report, "gemm on two PoCL devices")
    check("verified=1" in p.stdout, p.stdout)
    devices = json.loads(report.read_text())["partitioner"]["devices"]
    check(devices[0]["platform"] == devices[1]["platform"], f"two PoCL devices, two platforms: {devices}")
    late = history(report, "gemm")[-8:]
    share = mean_share(late, 0)
    # Equal devices on a machine shared with other jobs: even within a wide margin.
    check(0.3 <= share <= 0.7, f"device 0 gets {share:.2f} of two equal devices' work: {late}")


def test_devices_taking_turns_are_not_split():
    """Two of PoCL's pthread devices share one pool of threads: splitting between them only adds
    costs. Without being told otherwise, adaptive-comm runs every kernel on one of them (as
    `single` does, on the one-device path), and the report says they take turns."""
    report = TMP / "turns.json"
    p = through_clsplit([BUILD / "bench" / "bin" / "gemm", "--size", "256", "--iters", "30"], "adaptive-comm",
                        vendors(POCL), "pthread pthread", report, "gemm on two PoCL devices", concurrent=False)
    check("verified=1" in p.stdout, p.stdout)
    full = json.loads(report.read_text())
    devices = full["partitioner"]["devices"]
    check(devices[0]["concurrency"][1] == 0 and devices[1]["concurrency"][0] == 0,
          f"the two devices should be taken to take turns: {devices}")
    gemm = full["kernels"]["gemm"]
    used = [i for i, g in enumerate(gemm["groups_per_device"]) if g]
    check(gemm["launches"] == 30 and gemm["split_launches"] == 0 and len(used) == 1,
          f"gemm should run every launch whole on one device: {gemm}")


def test_split_follows_moving_load():
    program = PROGRAMS / "shifting_load"
    direct = run([program, "--iters", "40", "--switch", "20"],
                 dict(BASE, POCL_DEVICES="pthread", POCL_MAX_PTHREAD_COUNT="1", OCL_ICD_VENDORS=str(vendors(POCL))),
                 "direct run")
    for strategy in ("adaptive", "adaptive-comm"):
        report = TMP / f"moving-{strategy}.json"
        p = through_clsplit([program, "--iters", "40", "--switch", "20"], strategy, vendors(POCL), "pthread pthread",
                            report, f"moving load, {strategy}")
        check(p.stdout == direct.stdout, f"{strategy}: output differs from the direct run: {p.stdout} vs {direct.stdout}")
        h = history(report, "work")
        check(len(h) == 40, f"{len(h)} launches in the history")
        # Heavy work first in the front half: device 0 (the front slice) should get less than
        # half; after the switch, more (balanced: about 0.26 and 0.74).
        before, after = mean_share(h[12:20], 0), mean_share(h[32:40], 0)
        check(before < 0.45 and after > 0.55,
              f"{strategy}: device 0's share {before:.2f} before the switch, {after:.2f} after: {h[10:]}")


def check_slab_updates(args, strategy, init, direct, report):
    """partial_slabs through clsplit: the output of the direct run, `init` split once, the 400
    slab updates (`bump`) all whole and at least 300 of them run as is. Returns bump's entry."""
    p = through_clsplit(args, strategy, vendors(POCL), "pthread pthread", report, f"{' '.join(map(str, args[1:]))}, {strategy}")
    check(p.stdout == direct.stdout, f"{strategy}: output differs from the direct run: {p.stdout} vs {direct.stdout}")
    kernels = json.loads(report.read_text())["kernels"]
    check(kernels[init]["split_launches"] == 1, f"{strategy}: {init} was not split: {kernels[init]}")
    bump = kernels["bump"]
    check(bump["launches"] == 400 and bump["split_launches"] == 0, f"{strategy}: {bump}")
    check(bump["resident_launches"] >= 300, f"{strategy}: only {bump['resident_launches']} of 400 launches ran as is")
    return bump


def test_whole_kernel_gathers_its_buffers():
    """A one-work-group kernel runs whole on one device, reading and writing slabs of buffers
    that a split launch spread over both: once nothing has been split for a while, its buffers
    are brought to its device whole and its launches run as is there (no plan per launch)."""
    program = PROGRAMS / "partial_slabs"
    direct = run([program, "--launches", "400"],
                 dict(BASE, POCL_DEVICES="pthread", POCL_MAX_PTHREAD_COUNT="1", OCL_ICD_VENDORS=str(vendors(POCL))),
                 "direct run")
    for strategy in ("uniform", "adaptive-comm"):
        report = TMP / f"gather-{strategy}.json"
        # Gathered after a few dozen launches (LaunchPlan::gather); without it, the device that
        # runs `bump` would never hold the half of `in` the other one initialised.
        bump = check_slab_updates([program, "--launches", "400"], strategy, "init", direct, report)
        if strategy == "adaptive-comm":
            # Its sampled launches' times reach the partitioner without completion callbacks
            # (Runtime::harvestMeasurements, read by the launches that follow and by the final
            # blocking read: on a loaded machine the program may enqueue all 400 before the
            # device finishes the first, and then only that read finds them complete).
            model = [k for k in json.loads(report.read_text())["partitioner"]["kernels"] if k["kernel"].endswith(":bump")]
            device = 0 if bump["groups_per_device"][0] else 1
            check(model and model[0]["nsPerGroup"][device] is not None,
                  f"bump was never measured: {model[0]['nsPerGroup'] if model else 'no model'}")


def test_whole_kernel_with_wait_lists_settles():
    """The same slab updates, each waiting for the previous one's event, on buffers its device
    holds whole while the other device still holds halves of them (a split launch wrote them, a
    whole kernel read them): nothing has to move, so once the partitioner keeps the kernel there
    the launches drop the other copies and run as is, although they wait (kernel + marker chains
    over two queues look like this). With `uniform` only: under adaptive-comm, the one-work-group
    kernel's measured times on two devices sharing this CPU are noisy enough (one 150 us sample
    of a 5 us kernel) that the partitioner may rightly move it once, and its buffers then follow
    it only through plans, since a launch that waits is not gathered by moves."""
    program = PROGRAMS / "partial_slabs"
    args = [program, "--launches", "400", "--chained"]
    direct = run(args, dict(BASE, POCL_DEVICES="pthread", POCL_MAX_PTHREAD_COUNT="1", OCL_ICD_VENDORS=str(vendors(POCL))),
                 "direct run")
    for strategy in ("uniform",):
        check_slab_updates(args, strategy, "init2", direct, TMP / f"chained-{strategy}.json")


if __name__ == "__main__":
    main(globals(), sys.argv[3])
