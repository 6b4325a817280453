"""The registry of named experiments (bench/harness/experiment.py runs them), in the order `all`
runs them. Each module has NAME, SUMMARY (one line), a docstring (its --help), QUICK (option
values for `--quick`: small sizes, one repeat), OCL_ICD_FIRST (put Debian's ocl-icd before the
CUDA toolkit's loader, as the script it replaces did), add_arguments(parser) and run(ctx) -> exit
status."""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path

# The experiments import the harness' modules (devices, execute, machine) and the run-report
# reader: scripts/ in the source tree, share/clsplit/ (the harness' parent) when installed.
_HARNESS = Path(__file__).resolve().parents[1]
if str(_HARNESS) not in sys.path:
    sys.path.insert(0, str(_HARNESS))
for _reader in (_HARNESS.parents[1] / "scripts", _HARNESS.parent):
    if (_reader / "clsplit_report.py").exists():
        if str(_reader) not in sys.path:
            sys.path.insert(1, str(_reader))
        break

MODULES = ("check", "integration", "call_costs", "host_costs", "transfers", "slowed_device", "startup",
           "diagnose", "launch_cost", "process_start", "window_cost")


def registry() -> dict:
    """NAME -> module, in MODULES' order."""
    found = {}
    for name in MODULES:
        module = import_module(f"experiments.{name}")
        found[module.NAME] = module
    return found
