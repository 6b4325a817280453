"""The command line shared by the scripted bench tests (larger_than_device.py, beyond_one_allocation.py,
staging_ring.py):
`--build BUILD --work DIR [CASE ...]`, skipped (77) without clsplit's vendors file or PoCL, each
case's failures printed, 1 if any."""
import argparse
import os

POCL_ICD = "/etc/OpenCL/vendors/pocl.icd"


def run_cases(cases, check_case):
    """check_case(args, name) -> list of failure messages."""
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
    for name in args.cases:
        failures += check_case(args, name)
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0
