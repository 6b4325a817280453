"""The command line shared by the scripted bench tests (larger_than_device.py, beyond_one_allocation.py,
staging_ring.py):
`--build BUILD --work DIR [CASE ...]`, skipped (77) without clsplit's vendors file or PoCL, each
case's failures printed, 1 if any; and what their cases share: running a workload, its RESULT
line, PoCL's environment, a vendors folder of PoCL and rusticl, the split run's verdict."""
import argparse
import os
import subprocess

POCL_ICD = "/etc/OpenCL/vendors/pocl.icd"
RUSTICL_LIBRARY = "/usr/lib/x86_64-linux-gnu/libRusticlOpenCL.so.1"
# What clsplit logs (CLSPLIT_LOG=info) for a launch the partitioner's split did not fit.
REPLANNED = "the launch is split by the devices' memory instead"


def run(command, env):
    return subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=600)


def result_fields(stdout):
    """The key=value fields of a workload's RESULT line, or None."""
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(item.split("=", 1) for item in line.split()[1:] if "=" in item)
    return None


def pocl_environment(args, devices, cache):
    """The environment without clsplit's, the loader's, PoCL's or rusticl's settings, then
    `devices` one-core PoCL pthread devices with their own kernel cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLSPLIT_", "OCL_ICD_", "POCL_", "RUSTICL_"))}
    env["POCL_DEVICES"] = " ".join(["pthread"] * devices)
    env["POCL_MAX_PTHREAD_COUNT"] = "1"
    env["POCL_CACHE_DIR"] = os.path.join(args.work, "pocl-cache", cache)
    return env


def pocl_rusticl_vendors(args):
    """A CLSPLIT_VENDORS folder naming PoCL and rusticl (RUSTICL_LIBRARY must exist)."""
    folder = os.path.join(args.work, "vendors-pocl-rusticl")
    os.makedirs(folder, exist_ok=True)
    with open(POCL_ICD) as f, open(os.path.join(folder, "pocl.icd"), "w") as out:
        out.write(f.read())
    with open(os.path.join(folder, "rusticl.icd"), "w") as out:
        out.write(RUSTICL_LIBRARY + "\n")
    return folder


def split_run_verdict(name, split, direct_fields):
    """(verified, failures) of a split run against the direct run's RESULT fields: it must verify,
    with the same max_err."""
    got = result_fields(split.stdout)
    if split.returncode != 0 or not got or got.get("verified") != "1":
        return False, ["%s: the split run did not verify (status %d): %s%s"
                       % (name, split.returncode, split.stdout[-1000:], split.stderr[-3000:])]
    if got.get("max_err") != direct_fields.get("max_err"):
        return True, ["%s: max_err %s split, %s direct" % (name, got.get("max_err"), direct_fields.get("max_err"))]
    return True, []


def run_cases(cases, check_case):
    """check_case(args, name) -> list of failure messages, or None when the case could not run
    here (a vendor missing): skipped (77) when no case ran."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("cases", nargs="*", default=sorted(cases))
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.build, "vendors", "clsplit.icd")) or not os.path.exists(POCL_ICD):
        print("needs <build>/vendors/clsplit.icd and PoCL; skipped")
        return 77
    os.makedirs(args.work, exist_ok=True)
    failures = []
    ran = 0
    for name in args.cases:
        result = check_case(args, name)
        if result is not None:
            ran += 1
            failures += result
    for f in failures:
        print("FAILED:", f)
    if ran == 0:
        print("no case could run here; skipped")
        return 77
    return 1 if failures else 0
