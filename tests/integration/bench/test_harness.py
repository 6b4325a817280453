"""Tests of the benchmark harness's own logic (no OpenCL needed except in FakeClsplitTest and
LaunchCostRunTest, which need the built workloads and PoCL): RESULT parsing, clsplit report reading,
oracle ratios, the speedup and efficiency arithmetic, the launch-cost suites and summary, the
clsplit plumbing of run.py against a stand-in clsplit build (and the real one for launch-cost),
stopping started programs on an interrupt, the experiments' machine against a stand-in build, and
the named experiments' own logic (known integration differences, the check sweep, diagnose's log).

    python3 tests/integration/bench/test_harness.py -v      (BENCH_BUILD=<build dir> for the last)
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[3] / "bench" / "harness"
sys.path.insert(0, str(HARNESS))
sys.path.insert(1, str(HARNESS.parents[1] / "scripts"))  # the run-report reader

import clsplit_report  # noqa: E402
import execute  # noqa: E402
import launch_cost  # noqa: E402
import run as harness_run  # noqa: E402
import suites  # noqa: E402
import summary  # noqa: E402


class ResultLineTest(unittest.TestCase):
    def test_last_result_line_wins_and_values_split_on_first_equals(self):
        out = "VERIFY x: ok\nRESULT workload=a size=1 seconds=0.5 verified=1\nnoise\n" \
              "RESULT workload=b size=2 seconds=0.25 verified=0 device=A=B\n"
        parsed = execute.parse_result_line(out)
        self.assertEqual(parsed["workload"], "b")
        self.assertEqual(parsed["seconds"], "0.25")
        self.assertEqual(parsed["verified"], "0")
        self.assertEqual(parsed["device"], "A=B")

    def test_no_result_line(self):
        self.assertEqual(execute.parse_result_line("error: boom\n"), {})

    def test_status_from_exit_code_and_verification(self):
        ok = execute.run([sys.executable, "-c", "print('RESULT seconds=1 verified=1')"], dict(os.environ), 30)
        self.assertEqual(ok.status, "ok")
        wrong = execute.run([sys.executable, "-c", "print('RESULT seconds=1 verified=0'); raise SystemExit(1)"],
                            dict(os.environ), 30)
        self.assertEqual(wrong.status, "not-verified")
        crash = execute.run([sys.executable, "-c", "raise SystemExit(3)"], dict(os.environ), 30)
        self.assertEqual(crash.status, "failed")
        slow = execute.run([sys.executable, "-c", "import time; time.sleep(30)"], dict(os.environ), 0.5)
        self.assertEqual(slow.status, "timeout")


class ReportTest(unittest.TestCase):
    LIST_FORM = {
        "devices": [{"index": 0, "name": "gpu0", "platform": "p"}, {"index": 1, "name": "cpu", "platform": "q"}],
        "strategy": "adaptive-comm",
        "kernels": [
            {"name": "stencil", "launches": 10, "split_launches": 9, "fallback_reason": None,
             "groups_per_device": [600, 400], "time_ns_per_device": [5e6, 5e6],
             "ratio_history": [[0.5, 0.5], [0.7, 0.3], [0.6, 0.4], [0.62, 0.38], [0.6, 0.4]]},
            {"name": "copy", "launches": 10, "split_launches": 10, "groups_per_device": [500, 500],
             "time_ns_per_device": [1e6, 1e6]},
        ],
        "transfers": {"host_to_device_bytes": [100, 200], "device_to_host_bytes": [50, 0],
                      "device_to_device_bytes": [7, 8]},
    }

    def test_list_form(self):
        s = clsplit_report.summarize(self.LIST_FORM)
        self.assertEqual(s.strategy, "adaptive-comm")
        self.assertEqual([k.name for k in s.kernels], ["stencil", "copy"])
        self.assertEqual(s.bytes_h2d, 300)
        self.assertEqual(s.bytes_d2h, 50)
        self.assertEqual(s.bytes_d2d, 15)
        self.assertEqual(s.bytes_total, 365)
        self.assertEqual(clsplit_report.dominant_kernel(s).name, "stencil")
        ratios = clsplit_report.converged_ratios(s)  # mean of the last three history entries
        self.assertAlmostEqual(ratios[0], (0.6 + 0.62 + 0.6) / 3, places=9)
        self.assertAlmostEqual(sum(ratios), 1.0, places=12)
        self.assertEqual(clsplit_report.static_strategy([0.25, 0.75]), "static:0.2500,0.7500")

    def test_keyed_form_with_object_history_and_no_history_fallback(self):
        raw = {"kernels": {"force": {"launches": 3, "time_ns_per_device": [9, 1],
                                     "history": [{"ratios": [0.5, 0.5], "time_ns": [4, 2]},
                                                 {"ratios": [0.8, 0.2], "time_ns": [3, 3]}]},
                           "scan": {"launches": 3, "groups_per_device": [1, 0], "time_ns_per_device": [1, 0]}},
               "transfers": {}}
        s = clsplit_report.summarize(raw)
        force = clsplit_report.dominant_kernel(s)
        self.assertEqual(force.name, "force")
        self.assertEqual(force.ratio_history, [[0.5, 0.5], [0.8, 0.2]])
        self.assertEqual(force.time_history, [[4, 2], [3, 3]])
        scan_only = clsplit_report.summarize({"kernels": [raw["kernels"]["scan"] | {"name": "scan"}]})
        self.assertEqual(clsplit_report.converged_ratios(scan_only), [1.0, 0.0])

    def test_launches_grouped_into_time_steps(self):
        """What `clsplit report` plots per iteration: launches grouped at the detected sequence's
        first kernel (the partitioner names it "<hash>:<kernel>"), else at the first launched."""
        launches = [{"kernel": k, "groups": [1, 1]} for k in ("warmup", "stencil", "copy", "stencil", "copy")]
        raw = {"kernels": {}, "transfers": {}, "launches": launches, "deferred_launches": 3,
               "partitioner": {"sequence": {"kernels": ["abc:stencil", "abc:copy"]}}}
        s = clsplit_report.summarize(raw)
        self.assertEqual(s.sequence_first, "stencil")
        self.assertEqual([len(it) for it in s.launch_iterations()], [1, 2, 2])
        self.assertEqual(s.deferred_launches, 3)
        del raw["partitioner"]
        self.assertEqual([len(it) for it in clsplit_report.summarize(raw).launch_iterations()], [5])

    def test_garbage_is_reported_not_raised(self):
        s = clsplit_report.summarize({"kernels": 5})
        self.assertTrue(s.problems)
        self.assertIsNone(clsplit_report.converged_ratios(s))
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "r.json"
            bad.write_text("{not json")
            self.assertTrue(clsplit_report.load(bad).problems)
            self.assertIsNone(clsplit_report.load(Path(tmp) / "missing.json"))


def record(config, seconds, status="ok", kind=None, devices="", warmup=False, strategy=None):
    return {"workload": "w", "size": 1, "iters": 1, "config": config,
            "kind": kind or ("direct" if config.startswith("direct") else "clsplit"),
            "devices": devices, "strategy": strategy, "status": status, "seconds": seconds, "warmup": warmup}


class VendorsDirTest(unittest.TestCase):
    """Which clsplit.icd the harness gives the loader: the build's own, or one it writes for a
    bundle without a vendors directory or with one naming where it was installed elsewhere."""

    def test_build_bundle_and_moved_install(self):
        import devices
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            build, scratch = root / "build", root / "scratch"
            (build / "lib").mkdir(parents=True)
            library = build / "lib" / "libclsplit.so"
            library.write_bytes(b"")
            # A bundle without vendors/: written into scratch.
            written = devices.clsplit_vendors_dir(build, scratch)
            self.assertEqual(written, scratch / "clsplit-vendors")
            self.assertEqual(devices.clsplit_library(written), str(library.resolve()))
            # The build's own, naming its library: kept.
            (build / "vendors").mkdir()
            (build / "vendors" / "clsplit.icd").write_text(f"{library}\n")
            self.assertEqual(devices.clsplit_vendors_dir(build, scratch), build / "vendors")
            # Installed elsewhere and carried here: its path is stale, so one is written.
            (build / "vendors" / "clsplit.icd").write_text("/elsewhere/lib/libclsplit.so\n")
            moved = devices.clsplit_vendors_dir(build, scratch)
            self.assertEqual(moved, scratch / "clsplit-vendors")
            self.assertTrue(devices.clsplit_available(moved)[0])


class AggregateTest(unittest.TestCase):
    def test_speedup_and_efficiency(self):
        records = [
            record("direct:0", 1.0, devices="0"), record("direct:0", 1.2, devices="0"),
            record("direct:0", 0.8, devices="0"), record("direct:0", 50.0, devices="0", warmup=True),
            record("direct:1", 3.0, devices="1"),
            record("clsplit[0,1]:uniform", 0.9, devices="0,1", strategy="uniform"),
            record("clsplit[0,1]:adaptive", 0.8, devices="0,1", strategy="adaptive"),
            record("clsplit[0,1]:adaptive", None, status="not-verified", devices="0,1", strategy="adaptive"),
        ]
        aggs = {a.config: a for a in summary.aggregate(records)}
        d0 = aggs["direct:0"]
        self.assertEqual(d0.n, 3)  # the warm-up is not a measurement
        self.assertAlmostEqual(d0.median, 1.0)
        self.assertAlmostEqual(aggs["direct:1"].speedup, 1.0 / 3.0)
        adaptive = aggs["clsplit[0,1]:adaptive"]
        self.assertEqual((adaptive.n, adaptive.n_ok), (2, 1))
        self.assertAlmostEqual(adaptive.speedup, 1.0 / 0.8)
        # ideal = best time * sum of rates = 1.0 * (1/1 + 1/3)
        self.assertAlmostEqual(adaptive.ideal, 4.0 / 3.0)
        self.assertAlmostEqual(adaptive.efficiency, (1.0 / 0.8) / (4.0 / 3.0))
        text = summary.table(summary.aggregate(records))
        self.assertIn("not-verifiedx1", text)

    def test_outputs_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            summary.write_outputs(out, [record("direct:0", 1.0, devices="0")], {"suite": "t"})
            self.assertTrue((out / "summary.csv").read_text().startswith("workload,size"))
            self.assertEqual(json.loads((out / "summary.json").read_text())["meta"]["suite"], "t")
            self.assertIn("direct:0", (out / "table.txt").read_text())


def launch_record(config, iters, made, seconds, own=None, status="ok", repeat=0):
    """A run record of the launches program: `made` launches in `seconds`, clsplit's own host
    time per launch `own` (us) from its report."""
    kind = "direct" if config.startswith("direct") else "clsplit"
    rec = {"workload": "launches-kloop", "size": 64, "iters": iters, "config": config, "kind": kind,
           "devices": config.split(":")[1] if kind == "direct" else "0,1",
           "strategy": None if kind == "direct" else config.split(":")[1], "status": status,
           "seconds": seconds if status == "ok" else None, "raw_seconds": seconds, "warmup": False,
           "repeat": repeat, "result": {"launches": str(made), "verified": "1" if status == "ok" else "0"}}
    if own is not None:
        rec["report"] = {"launch_own_us": own, "launch_host_us": own + 2.0, "kernels": []}
    return rec


class LaunchCostTest(unittest.TestCase):
    def test_suites_cover_every_pattern_at_every_count(self):
        for name in ("launch-cost", "gpu1-launch-cost"):
            suite = suites.SUITES[name]
            self.assertTrue(suite.host_time_reports)
            self.assertTrue(set(suite.strategies) <= set(harness_run.KNOWN_STRATEGIES))
            points = {(e.workload, e.iters) for e in suite.entries}
            self.assertEqual(points, {(f"launches-{p}", n) for p in suites.LAUNCH_PATTERNS
                                      for n in (1_000, 10_000, 100_000)})
            for entry in suite.entries:  # one size per pattern: the flatness compares counts
                self.assertEqual({e.size for e in suite.entries if e.workload == entry.workload}, {entry.size})
                program, args = suites.WORKLOADS[entry.workload]
                self.assertEqual((program, args[:1]), ("launches", ["--pattern"]))
        self.assertEqual({e.device_sets for e in suites.SUITES["gpu1-launch-cost"].entries}, {("gpus",)})

    def test_points_split_by_count_and_per_launch_figures(self):
        records = [
            # 1000 asked, 1146 made (kloop rounds to whole factorisations)
            launch_record("direct:0", 1000, 1146, 0.011460), launch_record("direct:1", 1000, 1146, 0.022920),
            launch_record("clsplit[0,1]:single", 1000, 1146, 0.012606, own=2.0),
            launch_record("clsplit[0,1]:single", 1000, 1146, 0.013752, own=2.2, repeat=1),
            launch_record("clsplit[0,1]:single", 1000, 1146, 0.100000, own=9.0, repeat=2),
            launch_record("clsplit[0,1]:uniform", 1000, 1146, 0.02, own=5.0),
            launch_record("direct:0", 100000, 100080, 1.0008), launch_record("direct:1", 100000, 100080, 1.0008),
            launch_record("clsplit[0,1]:single", 100000, 100080, 1.2, own=2.4),
            launch_record("clsplit[0,1]:uniform", 100000, 100080, 2.0, own=6.0),
            launch_record("clsplit[0,1]:uniform", 100000, 100080, None, status="not-verified", repeat=1),
        ]
        aggs = summary.aggregate(records)
        by = {(a.iters, a.config): a for a in aggs}
        self.assertEqual(len(aggs), 8)  # one aggregate per (count, configuration)
        self.assertEqual(by[(1000, "direct:0")].app_launches, 1146)
        self.assertAlmostEqual(by[(1000, "direct:0")].us_per_launch, 10.0)
        self.assertAlmostEqual(by[(1000, "clsplit[0,1]:single")].us_per_launch, 12.0)  # median of 11, 12, 87.3
        self.assertAlmostEqual(by[(1000, "clsplit[0,1]:single")].launch_own_us, 2.2)
        rows = {(r.iters, r.config): r for r in launch_cost.rows(aggs)}
        self.assertEqual(set(rows), {(1000, "clsplit[0,1]:single"), (1000, "clsplit[0,1]:uniform"),
                                     (100000, "clsplit[0,1]:single"), (100000, "clsplit[0,1]:uniform")})
        single = rows[(1000, "clsplit[0,1]:single")]
        self.assertEqual(single.direct_config, "direct:0")  # the faster device of the set
        self.assertAlmostEqual(single.ratio, 10.0 / 12.0)
        self.assertIsNone(single.flatness)  # on the largest count's row only
        big = rows[(100000, "clsplit[0,1]:single")]
        self.assertAlmostEqual(big.flatness, 2.4 / 2.2)
        self.assertEqual(big.flatness_from, 1000)
        self.assertAlmostEqual(rows[(100000, "clsplit[0,1]:uniform")].flatness, 1.2)
        self.assertEqual(rows[(100000, "clsplit[0,1]:uniform")].statuses, "not-verifiedx1")
        text = summary.table(aggs)
        self.assertIn("launch cost, per launch", text)
        grows = [line for line in text.splitlines() if "grows" in line]  # 1.2 > 1.10; single's 1.09 is not
        self.assertEqual(len(grows), 1)
        self.assertIn("clsplit[0,1]:uniform", grows[0])
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            summary.write_outputs(out, records, {"suite": "t"})
            self.assertTrue((out / "launch_cost.csv").read_text().startswith("workload,size,iters,launches"))
            written = json.loads((out / "summary.json").read_text())["launch_cost"]
            self.assertEqual(len(written), 4)

    def test_no_launch_table_for_other_workloads(self):
        records = [record("direct:0", 1.0, devices="0")]
        self.assertEqual(launch_cost.rows(summary.aggregate(records)), [])
        self.assertNotIn("launch cost", summary.table(summary.aggregate(records)))

    def test_histories_left_out_of_a_slim_digest(self):
        s = clsplit_report.summarize(ReportTest.LIST_FORM)
        self.assertTrue(s.to_json()["kernels"][0]["ratio_history"])
        self.assertEqual(s.to_json(histories=False)["kernels"][0]["ratio_history"], [])


BUILD = os.environ.get("BENCH_BUILD")


@unittest.skipUnless(BUILD and (Path(BUILD) / "bench" / "bin" / "jacobi1d").is_file(),
                     "set BENCH_BUILD to a build directory with the workloads built")
class FakeClsplitTest(unittest.TestCase):
    """A stand-in clsplit build (its 'clsplit.icd' is PoCL itself and its launcher prints PoCL's devices)
    checks the clsplit half of run.py end to end: environment, report handling, oracle fallback."""

    def fake_build(self, tmp: str) -> tuple[Path, str]:
        """The stand-in build under `tmp` and PoCL's library."""
        pocl = Path("/etc/OpenCL/vendors/pocl.icd")
        if not pocl.is_file():
            self.skipTest("no PoCL ICD")
        fake = Path(tmp) / "build"
        (fake / "vendors").mkdir(parents=True)
        (fake / "bin").mkdir()
        (fake / "bench").mkdir()
        (fake / "bench" / "bin").symlink_to(Path(BUILD).resolve() / "bench" / "bin")
        library = pocl.read_text().strip()
        # The stand-in "clsplit" is PoCL under another spelling of its name (same library once
        # loaded), because the harness, like clsplit, skips clsplit's own library among vendors.
        parts = Path(library).name.split(".")
        spellings = [".".join(parts[:k]) for k in range(len(parts) - 1, 1, -1)]  # libpocl.so.2, ...
        dirs = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")
        standin = next((n for n in spellings if any((Path(d) / n).exists() for d in dirs)), None)
        if standin is None:
            self.skipTest(f"no other name for {library}")
        (fake / "vendors" / "clsplit.icd").write_text(standin + "\n")
        launcher = fake / "bin" / "clsplit"
        listing = [{"index": i, "name": "pocl", "platform": "Portable Computing Language", "type": "CPU",
                    "icd": library, "platform_index": 0, "device_index": i} for i in range(2)]
        launcher.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(listing) + "\nEOF\n")
        launcher.chmod(0o755)
        return fake, library

    def test_clsplit_plumbing(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake, library = self.fake_build(tmp)
            launcher = fake / "bin" / "clsplit"
            out = Path(tmp) / "out"
            env = dict(os.environ, POCL_DEVICES="pthread pthread", POCL_MAX_PTHREAD_COUNT="1")
            done = subprocess.run([sys.executable, str(HARNESS / "run.py"), "--build", str(fake), "--smoke",
                                   "--workloads", "jacobi1d", "--out", str(out), "--no-plots"],
                                  env=env, capture_output=True, text=True, timeout=600)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            records = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
            by_config = {r["config"]: r for r in records}
            self.assertEqual(by_config["direct:1"]["env"]["OCL_ICD_FILENAMES"], library)
            self.assertEqual(by_config["direct:1"]["command"][-4:], ["--platform", "0", "--device", "1"])
            uniform = by_config["clsplit[0,1]:uniform"]
            self.assertEqual(uniform["status"], "ok")
            self.assertEqual(uniform["env"]["OCL_ICD_VENDORS"], str(fake / "vendors"))
            self.assertEqual(uniform["env"]["CLSPLIT_STRATEGY"], "uniform")
            self.assertEqual(uniform["env"]["CLSPLIT_DEVICES"], "all")
            self.assertNotIn("--platform", uniform["command"])  # the program picks its device itself
            self.assertNotIn("CLSPLIT_REPORT", uniform["env"])  # timed runs do not pay for a report
            report_runs = [r for r in records if r["config"] == "clsplit[0,1]:uniform" and r.get("report_run")]
            self.assertEqual(len(report_runs), 1)
            self.assertIn("CLSPLIT_REPORT", report_runs[0]["env"])
            self.assertEqual(report_runs[0]["note"], "no clsplit report written")
            self.assertEqual(by_config["clsplit[0,1]:oracle"]["status"], "not-run")
            shutil.rmtree(out)

            # Without the launcher, the devices are listed per library of CLSPLIT_VENDORS, in
            # clsplit's order, and each carries its ICD library for the direct runs.
            launcher.unlink()
            vendors = Path(tmp) / "real-vendors"
            vendors.mkdir()
            (vendors / "pocl.icd").write_text(library + "\n")
            done = subprocess.run([sys.executable, str(HARNESS / "run.py"), "--build", str(fake), "--smoke",
                                   "--workloads", "ep", "--strategies", "uniform", "--out", str(out),
                                   "--no-plots"],
                                  env=dict(env, CLSPLIT_VENDORS=str(vendors)), capture_output=True, text=True,
                                  timeout=600)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            meta = json.loads((out / "meta.json").read_text())
            self.assertIn("per library", meta["lister"])
            self.assertEqual([d["icd"] for d in meta["devices"]], [library, library])
            records = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
            self.assertEqual({r["config"] for r in records}, {"direct:0", "direct:1", "clsplit[0,1]:uniform"})
            self.assertTrue(all(r["status"] == "ok" for r in records))

    def test_variants(self):
        """--variants: every clsplit configuration runs once per variant with its settings, named
        <config>+<variant>, in the same round-robin; direct runs are not multiplied."""
        with tempfile.TemporaryDirectory() as tmp:
            fake, _ = self.fake_build(tmp)
            out = Path(tmp) / "out"
            env = dict(os.environ, POCL_DEVICES="pthread pthread", POCL_MAX_PTHREAD_COUNT="1")
            done = subprocess.run([sys.executable, str(HARNESS / "run.py"), "--build", str(fake), "--smoke",
                                   "--workloads", "jacobi1d", "--strategies", "uniform", "--out", str(out),
                                   "--no-plots", "--variants", "off:CLSPLIT_OVERLAP=off;on:CLSPLIT_OVERLAP=on,X=1"],
                                  env=env, capture_output=True, text=True, timeout=600)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            records = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
            configs = {r["config"] for r in records}
            self.assertEqual(configs, {"direct:0", "direct:1", "clsplit[0,1]:uniform+off", "clsplit[0,1]:uniform+on"})
            for r in records:
                if r["config"].endswith("+off"):
                    self.assertEqual(r["env"]["CLSPLIT_OVERLAP"], "off")
                if r["config"].endswith("+on"):
                    self.assertEqual((r["env"]["CLSPLIT_OVERLAP"], r["env"]["X"]), ("on", "1"))
        with self.assertRaises(SystemExit):
            harness_run.parse_variants("bad name:K=V")
        with self.assertRaises(SystemExit):
            harness_run.parse_variants("a:novalue")
        self.assertEqual(harness_run.parse_variants(None), [("", ())])

    def test_host_time_reports(self):
        """launch-cost: the timed clsplit runs write no report; one report run per configuration asks
        for an untimed report (CLSPLIT_REPORT_TIMING=0, no per-launch records), `default` leaves
        CLSPLIT_STRATEGY unset and is kept on one device, and each count of a pattern is its own
        point."""
        with tempfile.TemporaryDirectory() as tmp:
            fake, _ = self.fake_build(tmp)
            out = Path(tmp) / "out"
            env = dict(os.environ, POCL_DEVICES="pthread pthread", POCL_MAX_PTHREAD_COUNT="1",
                       CLSPLIT_STRATEGY="uniform")  # `default` must not inherit it
            done = subprocess.run([sys.executable, str(HARNESS / "run.py"), "--build", str(fake),
                                   "--suite", "launch-cost", "--workloads", "launches-alternate", "--repeat", "1",
                                   "--warmup", "0", "--strategies", "single,default", "--device-sets", "0,1;1",
                                   "--out", str(out), "--no-plots"],
                                  env=env, capture_output=True, text=True, timeout=600)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            records = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
            report_runs = [r for r in records if r.get("report_run")]
            clsplit_runs = [r for r in records if r["kind"] == "clsplit" and not r.get("report_run")]
            self.assertEqual(sorted({r["config"] for r in clsplit_runs}),
                             ["clsplit[0,1]:default", "clsplit[0,1]:single", "clsplit[1]:default", "clsplit[1]:single"])
            self.assertEqual(len(clsplit_runs), 4 * 3)  # every configuration at 10^3, 10^4, 10^5
            self.assertEqual(len(report_runs), 4 * 3)   # and one report run each
            for r in clsplit_runs:
                self.assertNotIn("CLSPLIT_REPORT", r["env"])
                self.assertNotIn("CLSPLIT_REPORT_TIMING", r["env"])
                self.assertEqual("CLSPLIT_STRATEGY" in r["env"], r["strategy"] != "default")
            for r in report_runs:
                self.assertEqual(r["env"]["CLSPLIT_REPORT_TIMING"], "0")
                self.assertEqual(r["env"]["CLSPLIT_REPORT_LAUNCHES"], "0")
                self.assertIn("CLSPLIT_REPORT", r["env"])
                self.assertEqual(r["note"], "no clsplit report written")  # the stand-in writes none
            self.assertEqual({(r["iters"], r["result"]["launches"]) for r in records},
                             {(1000, "1000"), (10000, "10000"), (100000, "100000")})
            text = (out / "table.txt").read_text()
            self.assertIn("launch cost, per launch", text)
            rows = list(csv.DictReader((out / "launch_cost.csv").read_text().splitlines()))
            self.assertEqual(len(rows), 12)
            self.assertTrue(all(float(r["ratio"]) > 0 for r in rows))


@unittest.skipUnless(BUILD and (Path(BUILD) / "bench" / "bin" / "launches").is_file()
                     and (Path(BUILD) / "vendors" / "clsplit.icd").is_file()
                     and (Path(BUILD) / "bin" / "clsplit").is_file(),
                     "set BENCH_BUILD to a build directory with clsplit and the workloads built")
class LaunchCostRunTest(unittest.TestCase):
    """One pattern of the launch-cost suite through the real clsplit: every run verifies, and each
    configuration's report run carries clsplit's own host time per launch from its untimed report."""

    def test_alternate_through_clsplit(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            env = dict(os.environ, POCL_DEVICES="pthread pthread", POCL_MAX_PTHREAD_COUNT="1")
            done = subprocess.run([sys.executable, str(HARNESS / "run.py"), "--build", BUILD, "--suite",
                                   "launch-cost", "--workloads", "launches-alternate", "--repeat", "1",
                                   "--warmup", "0", "--strategies", "single", "--out", str(out), "--no-plots"],
                                  env=env, capture_output=True, text=True, timeout=600)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            records = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
            clsplit_runs = [r for r in records if r["kind"] == "clsplit"]
            self.assertEqual(len(clsplit_runs), 6)  # a timed run and a report run per count
            for r in clsplit_runs:
                self.assertEqual(r["status"], "ok")
                if r.get("report_run"):
                    self.assertGreater(r["report"]["launch_own_us"], 0)
                else:
                    self.assertNotIn("report", r)
            self.assertEqual(list((out / "reports").iterdir()), [])  # digested, raw reports not kept
            rows = {int(r["iters"]): r for r in csv.DictReader((out / "launch_cost.csv").read_text().splitlines())}
            self.assertEqual(sorted(rows), [1000, 10000, 100000])
            self.assertTrue(all(float(r["own_us"]) > 0 for r in rows.values()))
            self.assertTrue(rows[100000]["flatness"])
            self.assertFalse(rows[1000]["flatness"])


class InterruptTest(unittest.TestCase):
    """An interrupted harness (SIGTERM, Ctrl-C's SIGINT) stops the programs it started, whose own
    process groups the signal does not reach, and reaps them."""

    # A stand-in harness: one program (and a child of it, in its process group) run through
    # run_process; after the interrupt it says whether any child is left unreaped.
    STANDIN = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # not inherited ignored (a background job)
sys.path.insert(0, sys.argv[1])
import execute
execute.interrupt_on_sigterm()
program = "import os, subprocess, sys, time; child = subprocess.Popen(['sleep', '300']); " \\
          "open(sys.argv[1], 'w').write('%d %d' % (os.getpid(), child.pid)); time.sleep(300)"
try:
    execute.run_process([sys.executable, "-c", program, sys.argv[2]], dict(os.environ), timeout=300)
except KeyboardInterrupt:
    execute.stop_all()
    try:
        os.waitpid(-1, os.WNOHANG)
        print("children left")
    except ChildProcessError:
        print("no children")
"""

    @staticmethod
    def alive(pid: int) -> bool:
        # A zombie is dead: one whose parent died first waits for init to reap it.
        try:
            return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    def test_children_stopped(self):
        import signal
        import time
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=sig.name), tempfile.TemporaryDirectory() as tmp:
                pids = Path(tmp) / "pids"
                standin = subprocess.Popen([sys.executable, "-c", self.STANDIN, str(HARNESS), str(pids)],
                                           stdout=subprocess.PIPE, text=True)
                deadline = time.monotonic() + 30
                while not (pids.is_file() and pids.read_text()) and time.monotonic() < deadline:
                    time.sleep(0.05)
                program, grandchild = (int(p) for p in pids.read_text().split())
                try:
                    standin.send_signal(sig)
                    out, _ = standin.communicate(timeout=30)
                    self.assertEqual(out.strip(), "no children")
                    time.sleep(0.2)
                    self.assertFalse(self.alive(program), "the program outlived the interrupted harness")
                    self.assertFalse(self.alive(grandchild), "the program's own child outlived the harness")
                finally:
                    for pid in (program, grandchild):
                        if self.alive(pid):
                            os.kill(pid, signal.SIGKILL)


class FakeMachineTest(unittest.TestCase):
    """machine.Machine against a stand-in build whose launcher lists two CPU devices: what was asked
    and is missing fails or is said on stderr, and static ratios fit the devices selected."""

    def fake_build(self, root: Path, devices: list[dict]) -> Path:
        build = root / "build"
        for d in ("bin", "lib", "bench/bin"):
            (build / d).mkdir(parents=True)
        (build / "lib" / "libclsplit.so").write_bytes(b"")
        launcher = build / "bin" / "clsplit"
        launcher.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(devices) + "\nEOF\n")
        launcher.chmod(0o755)
        return build

    def cpu(self, index: int, library: str) -> dict:
        return {"index": index, "name": f"cpu{index}", "platform": "p", "type": "CPU", "icd": library,
                "platform_index": 0, "device_index": index}

    def test_missing_vendor_fails_and_fallbacks_are_said(self):
        import contextlib
        import io
        import machine
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            library = root / "libvendor.so"
            library.write_bytes(b"")
            icd = root / "vendor.icd"
            icd.write_text(f"{library}\n")
            build = self.fake_build(root, [self.cpu(0, str(library)), self.cpu(1, str(library))])
            for missing in (root / "gpu.icd", root / "empty-dir"):
                (root / "empty-dir").mkdir(exist_ok=True)
                with self.subTest(missing=missing.name), self.assertRaises(SystemExit) as stop:
                    machine.Machine(build, root / "scratch", f"{missing}:{icd}")
                self.assertIn(str(missing), str(stop.exception.code))
            (root / "gone.icd").write_text(f"{root / 'libgone.so'}\n")
            with self.assertRaises(SystemExit) as stop:
                machine.Machine(build, root / "scratch", f"{root / 'gone.icd'}")
            self.assertIn("libgone.so does not exist", str(stop.exception.code))
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                m = machine.Machine(build, root / "scratch", str(icd))
            self.assertEqual((m.gpu.index, m.cpu.index, m.gpu_and_cpu, m.gpu_and_cpu_count), (0, 1, "0,1", 2))
            self.assertIn('machine: warning: no GPU among the devices: "the GPU" is device 0, [CPU] cpu0',
                          err.getvalue())
            # Three devices, the first one a GPU without a CPU: GPU+CPU is every device, said so.
            gpu = dict(self.cpu(0, str(library)), type="GPU")
            build3 = self.fake_build(root / "three", [gpu, dict(gpu, index=1), dict(gpu, index=2)])
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                m = machine.Machine(build3, root / "scratch3", str(icd))
            self.assertEqual((m.gpu_and_cpu, m.gpu_and_cpu_count), ("all", 3))
            self.assertIn("no CPU device besides the GPU: GPU+CPU runs use every device (3)", err.getvalue())
            self.assertNotIn("no GPU among", err.getvalue())

    def test_static_ratios_one_per_device(self):
        import machine
        self.assertEqual(machine.static_strategy(0.9, 2), "static:0.9,0.1")
        self.assertEqual(machine.static_strategy(0.9, 3), "static:0.9,0.05,0.05")
        self.assertEqual(machine.static_strategy(1 / 2, 2), "static:0.5,0.5")
        self.assertEqual(machine.static_strategy(0.9, 1), "static:1")
        for n in (2, 3, 4, 8):
            ratios = [float(r) for r in machine.static_strategy(0.9, n).split(":")[1].split(",")]
            self.assertEqual(len(ratios), n)
            self.assertAlmostEqual(sum(ratios), 1.0, places=4)


class ExperimentLogicTest(unittest.TestCase):
    """The named experiments' own logic, without running anything."""

    def test_integration_known_differences_pass_others_fail(self):
        from experiments import integration
        reference = ("ranges: 1\nwide ids at offset 2500000000:\n  words: 32768 bytes, fnv aa\n  first: 1 2\n"
                     "task: 1 1\nbuild log of a clean program: empty\n")
        lost_bits = reference.replace("fnv aa", "fnv bb")
        self.assertEqual(integration.compare("itest_ndrange", reference, reference), ("identical", []))
        verdict, found = integration.compare("itest_ndrange", reference, lost_bits)
        self.assertEqual(verdict, "known")
        self.assertEqual([k.program for k in found], ["itest_ndrange"])
        self.assertTrue(found[0].reason)
        # A difference elsewhere, or in another program, or at an offset below 2^31: different.
        elsewhere = lost_bits.replace("task: 1 1", "task: 0 1")
        self.assertEqual(integration.compare("itest_ndrange", reference, elsewhere)[0], "different")
        self.assertEqual(integration.compare("itest_map", reference, lost_bits)[0], "different")
        low = reference.replace("2500000000", "2000000000")
        self.assertEqual(integration.compare("itest_ndrange", low, low.replace("fnv aa", "fnv bb"))[0], "different")
        logged = reference.replace("clean program: empty", "clean program: not empty")
        self.assertEqual(integration.compare("itest_programs", reference, logged)[0], "known")
        self.assertEqual(integration.compare("itest_ndrange", reference, logged)[0], "different")
        self.assertEqual(len({k.program for k in integration.KNOWN_DIFFERENCES}), len(integration.KNOWN_DIFFERENCES))
        self.assertEqual(integration.file_name("static:0.17,0.83"), "static_0.17_0.83")
        # A difference known under some strategies only: itest_svm's SVM is the CPU's where a
        # static split makes the CPU the home device, not under uniform.
        gpu = "svm: coarse 1 fine-buffer 0 atomics 0\nscaled: 1 bytes, fnv aa\n"
        cpu = "svm: coarse 1 fine-buffer 1 atomics 1\nscaled: 1 bytes, fnv aa\nthe buffer again: 1 bytes, fnv cc\n"
        self.assertEqual(integration.compare("itest_svm", gpu, cpu, "static:0,1")[0], "known")
        self.assertEqual(integration.compare("itest_svm", gpu, cpu, "uniform")[0], "different")
        self.assertEqual(integration.compare("itest_svm", gpu, cpu)[0], "different")
        # With several GPUs selected (NVIDIA's SVM is not offered from their shared context), under
        # any strategy; with one, not.
        self.assertEqual(integration.compare("itest_svm", gpu, cpu, "uniform", gpus=2)[0], "known")
        self.assertEqual(integration.compare("itest_svm", gpu, cpu, "uniform", gpus=1)[0], "different")
        none = "svm: coarse 0 fine-buffer 0 atomics 0\nno SVM\n"
        self.assertEqual(integration.compare("itest_svm", gpu, none, "uniform", gpus=2)[0], "different")
        # Every other line is still compared there: a wrong checksum is a difference.
        wrong = cpu.replace("scaled: 1 bytes, fnv aa", "scaled: 1 bytes, fnv ab")
        self.assertEqual(integration.compare("itest_svm", gpu, wrong, "static:0,1")[0], "different")

    def test_check_sweep_plan(self):
        from experiments import check
        self.assertEqual(check.sweep_plan("jacobi2d, gemm", "gemm=64"), [("jacobi2d", 2048), ("gemm", 64)])
        self.assertEqual(check.sweep_plan("axpy:1000", ""), [("axpy", 1000)])
        self.assertEqual(check.sweep_plan("axpy", "axpy=5"), [("axpy", 5)])
        for workloads, sizes in (("axpy", ""), ("jacobi2d:big", ""), ("jacobi2d", "gemm")):
            with self.subTest(workloads=workloads, sizes=sizes), self.assertRaises(SystemExit) as stop:
                check.sweep_plan(workloads, sizes)
            self.assertIn("error:", str(stop.exception.code))

    def test_diagnose_log_is_a_level_and_env_counts(self):
        import contextlib
        import io
        import experiment
        from experiments import diagnose, registry
        parser = experiment.make_parser(registry(), quick=False)
        self.assertIsNone(parser.parse_args(["diagnose"]).log)
        self.assertEqual(parser.parse_args(["diagnose", "--log", "debug"]).log, "debug")
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as stop:
            parser.parse_args(["diagnose", "--log", "/tmp/diagnose.log"])  # a file: clsplit would log nothing
        self.assertEqual(stop.exception.code, 2)
        self.assertEqual(diagnose.log_level(None, {"CLSPLIT_LOG": "debug"}), "debug")  # --env, environment
        self.assertEqual(diagnose.log_level("trace", {"CLSPLIT_LOG": "debug"}), "trace")
        self.assertEqual(diagnose.log_level(None, {}), "info")


if __name__ == "__main__":
    unittest.main()
