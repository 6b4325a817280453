"""Tests of the named experiments (bench/harness/experiment.py): the registry lists every
experiment module, each one's --help works, the machine helper sets up PoCL as "the GPU" when
there is none, the slowed-device summary reads a trace, and two cheap experiments (call-costs,
startup) run on PoCL's two pthread devices and print their rows with numbers.

    BENCH_BUILD=<build dir> python3 tests/integration/bench/test_experiments.py -v
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[3] / "bench" / "harness"
sys.path.insert(0, str(HARNESS))
EXPERIMENT = HARNESS / "experiment.py"
BUILD = os.environ.get("BENCH_BUILD", "")
POCL = {"POCL_DEVICES": "pthread pthread", "POCL_MAX_PTHREAD_COUNT": "1"}

from experiments import MODULES, registry  # noqa: E402
from experiments.slowed_device import summarize  # noqa: E402


def experiment(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXPERIMENT), *args], env=dict(os.environ, **POCL),
                          capture_output=True, text=True, timeout=timeout)


def built(*programs: str) -> bool:
    build = Path(BUILD) if BUILD else None
    return bool(build and (build / "bin" / "clsplit").is_file() and (build / "vendors" / "clsplit.icd").is_file()
                and all((build / "bench" / "bin" / p).is_file() for p in programs)
                and Path("/etc/OpenCL/vendors/pocl.icd").is_file())


class RegistryTest(unittest.TestCase):
    def test_list_names_every_experiment_module(self):
        files = {p.stem for p in (HARNESS / "experiments").glob("*.py")} - {"__init__", "common"}
        self.assertEqual(files, set(MODULES), "every experiment module is registered, and only those")
        done = experiment("--list")
        self.assertEqual(done.returncode, 0, done.stderr)
        listed = {line.split()[0] for line in done.stdout.splitlines() if line.strip()}
        names = set(registry())
        self.assertEqual(listed, names)
        self.assertEqual(len(names), len(MODULES))
        for line in done.stdout.splitlines():
            self.assertGreater(len(line.split(None, 1)[1]), 20, f"one line on what it measures: {line!r}")

    def test_every_help(self):
        for name, module in registry().items():
            with self.subTest(name=name):
                done = experiment(name, "--help")
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn(f"experiment.py {name}", done.stdout)
                self.assertIn("--quick", done.stdout)
                # --quick names only options the experiment has.
                parser_dests = re.findall(r"--([a-z-]+)", done.stdout)
                for option in module.QUICK:
                    self.assertIn(option.replace("_", "-"), parser_dests + ["workloads"], f"{name}: QUICK {option}")
        done = experiment("all", "--help")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("--skip", done.stdout)

    def test_unknown_experiment(self):
        self.assertEqual(experiment("no-such-experiment").returncode, 2)


class SlowedDeviceSummaryTest(unittest.TestCase):
    def test_shares_per_window_and_phase(self):
        with tempfile.TemporaryDirectory() as tmp:
            origin = 10_000_000_000
            events = [{"ph": "M", "name": "thread_name", "tid": 1, "args": {"name": "device 0: kernels"}},
                      {"ph": "M", "name": "thread_name", "tid": 5, "args": {"name": "device 1: kernels"}}]
            # Window 0 (0-250 ms): 3:1 groups; window 1 (250-500 ms, the load): 1:3.
            for ts_ms, groups in ((10, (0, 30, 30, 40)), (260, (0, 10, 10, 40))):
                lo, mid, _, hi = groups
                events.append({"ph": "X", "tid": 1, "ts": ts_ms * 1e3, "dur": 100, "args": {"groups": [lo, mid]}})
                events.append({"ph": "X", "tid": 5, "ts": ts_ms * 1e3, "dur": 300, "args": {"groups": [mid, hi]}})
            trace = Path(tmp) / "t.json"
            trace.write_text(json.dumps({"otherData": {"clsplit_origin_ns": origin}, "traceEvents": events}))
            load = Path(tmp) / "load.log"
            load.write_text(f"start_ns={origin + 300_000_000}\nend_ns={origin + 400_000_000}\n")
            lines = summarize(trace, [("gpu-load", load)], 250.0)
            self.assertIn("load gpu-load: 300 ms to 400 ms", lines)
            self.assertIn("     0-250    none       0.750      100   0.250      300", lines)
            self.assertIn("   250-500    gpu-load   0.250      100   0.750      300", lines)
            self.assertEqual(lines[-1], "  gpu-load  0.250  0.750")


@unittest.skipUnless(built("call-costs", "jacobi2d"), "set BENCH_BUILD to a build with clsplit and the bench programs (and PoCL)")
class PoclRunTest(unittest.TestCase):
    def test_machine_without_gpu(self):
        import machine
        old = {k: os.environ.get(k) for k in POCL}
        os.environ.update(POCL)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                m = machine.Machine(Path(BUILD), Path(tmp), "/etc/OpenCL/vendors/pocl.icd")
                self.assertEqual(len(m.devices), 2)
                self.assertFalse(m.has_gpu)
                self.assertEqual((m.gpu.index, m.cpu.index), (0, 1))  # "the GPU": the first device
                self.assertEqual(m.gpu_and_cpu, "0,1")
                self.assertEqual(m.gpu_indices, "0")
                self.assertEqual(len(list(m.real.glob("*.icd"))), 1)
                self.assertIn("libpocl", (next(m.gpu_vendors.glob("*.icd"))).read_text())
                direct = m.direct_env()
                self.assertEqual(direct["OCL_ICD_VENDORS"], str(m.gpu_vendors))
                through = m.clsplit_env("0,1", "uniform")
                self.assertEqual((through["CLSPLIT_DEVICES"], through["CLSPLIT_STRATEGY"]), ("0,1", "uniform"))
                self.assertEqual(through["CLSPLIT_VENDORS"], str(m.real))
                self.assertTrue(through["LD_LIBRARY_PATH"].startswith(str(Path(BUILD).resolve() / "lib")))
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_call_costs(self):
        with tempfile.TemporaryDirectory() as tmp:
            done = experiment("call-costs", "--build", BUILD, "--out", tmp, "--count", "50", "--split-count", "20",
                              "--repeat", "1")
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            labels = ["direct GPU", "clsplit GPU alone, defaults", "clsplit GPU alone, layer, eventless",
                      "clsplit GPU alone, layer, events",
                      "clsplit GPU+CPU adaptive-comm", "clsplit GPU+CPU uniform (split)"]
            for label in labels:
                for what in ("clEnqueueNDRangeKernel (no event)", "clEnqueueNDRangeKernel (event)"):
                    row = re.escape(f"{label} | {what}") + r" +[0-9]+\.[0-9]+ us/call$"
                    self.assertRegex(done.stdout, re.compile(row, re.M))
            log = (Path(tmp) / "call-costs.log").read_text().splitlines()
            self.assertEqual(len(log), 2 * len(labels))

    def test_startup(self):
        with tempfile.TemporaryDirectory() as tmp:
            done = experiment("startup", "--build", BUILD, "--out", tmp, "--size", "64", "--iters", "2", "--repeat", "1")
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            for config in ("direct", "single-gpu+cpu", "adaptive-comm-gpu", "adaptive-comm-gpu+cpu"):
                row = re.escape(config) + r" +median +[0-9.]+ ms  \(min +[0-9.]+, max +[0-9.]+, 1 runs\); " \
                                          r"writes before it: median +-?[0-9.]+ ms$"
                self.assertRegex(done.stdout, re.compile(r"^" + row, re.M))
            self.assertIn("unverified or failed runs: 0", done.stdout)
            runs = (Path(tmp) / "startup-runs.log").read_text().splitlines()
            self.assertEqual(len(runs), 4)
            self.assertTrue(all(re.fullmatch(r"\S+ [0-9.]+ 1 [0-9.]+", r) for r in runs), runs)


if __name__ == "__main__":
    unittest.main()
