"""Helpers shared by the end-to-end test scripts (tests/end-to-end/faults, adaptive and
observability): failing with a message, a private OpenCL vendors directory, and running one named
test function of a script. Standard library only."""
import sys
from pathlib import Path


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def vendors_dir(parent, icds):
    """A vendors directory under `parent` holding one .icd file per (name, library) pair (ocl-icd
    loads them in name order)."""
    d = Path(parent) / ("vendors-" + "-".join(name for name, _ in icds))
    d.mkdir(exist_ok=True)
    for name, library in icds:
        (d / f"{name}.icd").write_text(library + "\n")
    return d


def main(namespace, name):
    """Runs test_<name> from a script's globals; prints ok when it returns."""
    tests = {n: f for n, f in namespace.items() if n.startswith("test_")}
    if "test_" + name not in tests:
        fail(f"no test {name}; known: {', '.join(sorted(t[5:] for t in tests))}")
    tests["test_" + name]()
    print("ok")
