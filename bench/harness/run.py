#!/usr/bin/env python3
"""clsplit benchmark harness: runs every workload of a suite directly on each real device and through
clsplit with each strategy, repeats the measurements, and writes a table, CSV, JSON and PNG plots.

    python3 bench/harness/run.py --build build --suite smoke|medium|full --repeat 3 --out results/

Results are written incrementally (runs.jsonl after every run, summary.* after every suite entry), so
an interrupted run still leaves data; `summarize.py --out DIR` rebuilds the summary and the plots.
Exit status: 0 when every run that was attempted verified, 1 otherwise, 2 on a usage or setup error.
See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The run-report reader: scripts/ in the source tree, share/clsplit/ (the harness' parent) installed.
for _reader in (Path(__file__).resolve().parents[2] / "scripts", Path(__file__).resolve().parent.parent):
    if (_reader / "clsplit_report.py").exists():
        sys.path.insert(1, str(_reader))
        break

import clsplit_report  # noqa: E402
import devices as devs  # noqa: E402
import execute  # noqa: E402
import plots  # noqa: E402
import summary  # noqa: E402
from suites import SUITES, WORKLOADS, Entry, Suite  # noqa: E402

STRATEGIES = ("single", "uniform", "adaptive", "adaptive-comm", "oracle")
# Also accepted, never run unless asked for (--strategies or a suite's own list): `default` leaves
# CLSPLIT_STRATEGY unset, so clsplit runs with its own default, as a user would run it.
KNOWN_STRATEGIES = STRATEGIES + ("default",)
# On one device every strategy runs the same plan: these are measured there (`single`, and
# `default` for what an unconfigured run costs); the others would repeat `single`.
ONE_DEVICE_STRATEGIES = ("single", "default")


@dataclass(frozen=True)
class Config:
    name: str                        # direct:<i> | clsplit[<set>]:<strategy>
    kind: str                        # direct | clsplit
    device: devs.Device | None = None
    device_set: tuple[devs.Device, ...] = ()
    set_label: str = ""                # device indices, "0,1"
    clsplit_devices: str = ""          # CLSPLIT_DEVICES value: "all" or the indices
    strategy: str | None = None
    variant_env: tuple[tuple[str, str], ...] = ()  # --variants: settings of this clsplit variant


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=Path("build"), help="CMake build directory")
    parser.add_argument("--suite", default="smoke", choices=sorted(SUITES), help="which suite")
    parser.add_argument("--smoke", action="store_true",
                        help="CI mode: the smoke suite, once, no warm-up, fail unless every run verifies")
    parser.add_argument("--out", type=Path, default=None, help="results directory (default results/<suite>-<time>)")
    parser.add_argument("--repeat", type=int, default=None, help="measured runs per configuration")
    parser.add_argument("--warmup", type=int, default=None,
                        help="unmeasured runs (with --iters 1) before a configuration's first measured run")
    parser.add_argument("--workloads", default=None, help="comma-separated subset of: " + ",".join(WORKLOADS))
    parser.add_argument("--strategies", default=None,
                        help="clsplit strategies to run, of " + ",".join(KNOWN_STRATEGIES) + " (default: the "
                             "suite's own list, else all of " + ",".join(STRATEGIES) + "; `default` = "
                             "CLSPLIT_STRATEGY unset)")
    parser.add_argument("--device-sets", default=None,
                        help="clsplit device sets, ';'-separated: 'all', 'gpus', 'cpus' or indices like '0,1' "
                             "(default: each suite entry's own, else all)")
    parser.add_argument("--direct-all", action="store_true",
                        help="direct runs on every device, not only those of the entry's device sets")
    parser.add_argument("--no-direct", action="store_true", help="skip the direct runs")
    parser.add_argument("--no-clsplit", action="store_true", help="skip the clsplit runs")
    parser.add_argument("--run-timeout", type=float, default=None, help="seconds before a run is killed")
    parser.add_argument("--time-budget", type=float, default=None,
                        help="stop starting new runs after this many seconds (repeats run round-robin)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="extra environment for every run (repeatable)")
    parser.add_argument("--variants", default=None, metavar="NAME:K=V,K=V;NAME:...",
                        help="run every clsplit configuration once per variant, with the variant's settings "
                             "(e.g. 'off:CLSPLIT_OVERLAP=off;on:CLSPLIT_OVERLAP=on'), side by side in the same "
                             "round-robin; configurations are named <config>+<variant>")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the devices, configurations and number of runs, run nothing")
    args = parser.parse_args(argv)
    args.variant_list = parse_variants(args.variants)
    if args.smoke:
        args.suite = "smoke"
        args.repeat = 1 if args.repeat is None else args.repeat
        args.warmup = 0 if args.warmup is None else args.warmup
    return args


def parse_variants(text: str | None) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """'name:K=V,K=V;name2:K=V' -> [(name, ((K, V), ...)), ...]; [("", ())] when not given."""
    if not text:
        return [("", ())]
    variants = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        name, _, settings = part.partition(":")
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name.strip()):
            raise SystemExit(f"error: variant name {name!r}: letters, digits, '_', '.', '-' only")
        pairs = []
        for item in (i.strip() for i in settings.split(",")):
            if not item:
                continue
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise SystemExit(f"error: variant {name}: {item!r} is not KEY=VALUE")
            pairs.append((key.strip(), value.strip()))
        variants.append((name.strip(), tuple(pairs)))
    return variants or [("", ())]


def select_entries(suite: Suite, workloads: str | None) -> list[Entry]:
    if not workloads:
        return list(suite.entries)
    wanted = [w.strip() for w in workloads.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in WORKLOADS]
    if unknown:
        raise SystemExit(f"error: unknown workload(s) {unknown}; known: {', '.join(WORKLOADS)}")
    return [e for e in suite.entries if e.workload in wanted]


def config_label(config: Config) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", config.name)


def point_label(entry: Entry) -> str:
    """File-name part of a suite entry: workload, size and iterations (a suite may hold one
    workload and size at several iteration counts)."""
    return f"{entry.workload}_{entry.size}x{entry.iters}"


class Harness:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.suite = SUITES[args.suite]
        self.build = args.build.resolve()
        self.repeat = args.repeat if args.repeat is not None else self.suite.repeat
        self.warmup = args.warmup if args.warmup is not None else self.suite.warmup
        self.run_timeout = args.run_timeout or self.suite.run_timeout
        self.time_budget = args.time_budget if args.time_budget is not None else self.suite.time_budget
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.out = (args.out or Path("results") / f"{self.suite.name}-{stamp}").resolve()
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "reports").mkdir(exist_ok=True)
        self.scratch = self.out / "scratch"
        self.scratch.mkdir(exist_ok=True)
        self.records_path = self.out / "runs.jsonl"
        if self.records_path.exists():  # never mix two runs' records
            self.records_path.rename(self.records_path.with_suffix(f".jsonl.prev-{stamp}"))
        self.records: list[dict] = []
        self.env = devs.environment_with(self.suite.env, args.env)
        self.entries = select_entries(self.suite, args.workloads)
        self.binaries = devs.bench_bin(self.build)
        self.vendors = devs.clsplit_vendors_dir(self.build, self.scratch)
        self.start = time.monotonic()
        self.counter = 0
        self.budget_exhausted = False

    # ----------------------------------------------------------------- set-up
    def check_binaries(self) -> None:
        missing = [str(self.binaries / e.program) for e in self.entries
                   if not (self.binaries / e.program).is_file()]
        if missing:
            raise SystemExit("error: workload binaries missing (build them with "
                             f"`ninja -C {self.build} bench_workloads`): {', '.join(sorted(set(missing)))}")

    def discover(self) -> None:
        self.clsplit_ok, self.clsplit_reason = devs.clsplit_available(self.vendors)
        if self.args.no_clsplit:
            self.clsplit_ok, self.clsplit_reason = False, "disabled by --no-clsplit"
        try:
            # The launcher lists the vendors clsplit will use: the caller's OCL_ICD_VENDORS, as
            # launch() passes it on (without this the GPU machine's list missed the GPU).
            env = dict(self.env)
            if "OCL_ICD_VENDORS" in env and "CLSPLIT_VENDORS" not in env:
                env["CLSPLIT_VENDORS"] = env["OCL_ICD_VENDORS"]
            self.devices, self.lister = devs.list_devices(
                self.build, self.binaries, env,
                devs.clsplit_library(self.vendors) if self.clsplit_ok else None)
        except devs.DeviceListError as error:
            raise SystemExit(f"error: cannot list devices: {error}")
        if not self.devices:
            raise SystemExit("error: no OpenCL device found (check OCL_ICD_VENDORS / POCL_DEVICES)")
        chosen = self.args.strategies or ",".join(self.suite.strategies or STRATEGIES)
        strategies = [s.strip() for s in chosen.split(",") if s.strip()]
        unknown = [s for s in strategies if s not in KNOWN_STRATEGIES]
        if unknown:
            raise SystemExit(f"error: unknown strategies {unknown}; known: {', '.join(KNOWN_STRATEGIES)}")
        self.strategies = strategies
        for entry in self.entries:  # reject bad device sets before running anything
            try:
                self.configs_for(entry)
            except devs.DeviceListError as error:
                raise SystemExit(f"error: {entry.key}: {error}")

    def device_set_texts(self, entry: Entry) -> list[str]:
        if self.args.device_sets:
            return [t for t in self.args.device_sets.split(";") if t.strip()]
        return list(entry.device_sets or ("all",))

    def configs_for(self, entry: Entry) -> list[Config]:
        sets = []
        for text in self.device_set_texts(entry):
            chosen = devs.parse_device_set(text, self.devices)
            label = ",".join(str(d.index) for d in chosen)
            sets.append((tuple(chosen), label, "all" if text.strip() == "all" else label))
        configs: list[Config] = []
        if not self.args.no_direct:
            used = {d.index for chosen, _, _ in sets for d in chosen}
            configs += [Config(f"direct:{d.index}", "direct", device=d) for d in self.devices
                        if self.args.direct_all or d.index in used]
        for chosen, label, value in sets:
            strategies = self.strategies if len(chosen) > 1 else [s for s in self.strategies
                                                                   if s in ONE_DEVICE_STRATEGIES]
            for strategy in strategies:
                for variant, settings in self.args.variant_list:
                    configs.append(Config(f"clsplit[{label}]:{strategy}" + (f"+{variant}" if variant else ""),
                                          "clsplit", device_set=chosen, set_label=label, clsplit_devices=value,
                                          strategy=strategy, variant_env=settings))
        return configs

    def meta(self) -> dict:
        return {
            "suite": self.suite.name, "build": str(self.build), "repeat": self.repeat, "warmup": self.warmup,
            "run_timeout": self.run_timeout, "time_budget": self.time_budget,
            "strategies": self.strategies, "host_time_reports": self.suite.host_time_reports,
            "started": datetime.datetime.now().isoformat(timespec="seconds"), "host": platform.node(),
            "lister": self.lister, "devices": [vars(d) for d in self.devices],
            "clsplit": {"available": self.clsplit_ok, "reason": self.clsplit_reason,
                        "vendors": str(self.vendors), "library": devs.clsplit_library(self.vendors)},
            "binaries": str(self.binaries),
            "env": {k: self.env[k] for k in sorted(self.env)
                    if k.startswith(("POCL_", "OCL_", "CLSPLIT_", "CUDA_", "BENCH_", "LD_LIBRARY_PATH"))},
            "argv": sys.argv,
        }

    # ----------------------------------------------------------------- running
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def out_of_time(self) -> bool:
        if self.time_budget is not None and self.elapsed() > self.time_budget:
            if not self.budget_exhausted:
                print(f"time budget of {self.time_budget:.0f}s spent: starting no new runs", flush=True)
            self.budget_exhausted = True
        return self.budget_exhausted

    def append(self, record: dict) -> None:
        self.records.append(record)
        with self.records_path.open("a") as handle:
            handle.write(json.dumps(record) + "\n")

    def base_record(self, entry: Entry, config: Config, repeat: int, warmup: bool) -> dict:
        return {
            "workload": entry.workload, "size": entry.size, "iters": entry.iters, "config": config.name,
            "kind": config.kind, "repeat": repeat, "warmup": warmup,
            "device": vars(config.device) if config.device else None,
            "devices": str(config.device.index) if config.device else config.set_label,
            "strategy": config.strategy,
        }

    def oracle_strategy(self, entry: Entry, config: Config) -> tuple[str | None, str]:
        """`static:` ratios from this entry's adaptive-comm run on the same device set."""
        variant = config.name[config.name.index("+"):] if "+" in config.name else ""
        source = f"clsplit[{config.set_label}]:adaptive-comm{variant}"
        candidates = [r for r in self.records if r["workload"] == entry.workload and r["size"] == entry.size
                      and r["iters"] == entry.iters and r["config"] == source and r.get("report")
                      and r["status"] == "ok"]
        candidates.sort(key=lambda r: (r.get("warmup", False), r.get("repeat", 0)))
        for record in candidates:
            report = record["report"]
            kernels = [clsplit_report.KernelSummary(**k) for k in report.get("kernels", [])]
            ratios = clsplit_report.converged_ratios(clsplit_report.ReportSummary(kernels=kernels))
            if ratios is None:
                continue
            if len(ratios) != len(config.device_set):
                return None, f"adaptive-comm report has {len(ratios)} ratios for {len(config.device_set)} devices"
            return clsplit_report.static_strategy(ratios), ""
        return None, "no adaptive-comm report with ratios for this entry"

    def launch(self, entry: Entry, config: Config, repeat: int, warmup: bool, report: bool = False) -> dict:
        """One run. clsplit writes its run report only when `report` (the report run of a
        configuration, whose time is not used): a report costs every launch its bookkeeping, which
        the timed runs must not pay (0.7 us of a 2-3 us launch on PoCL, measured 2026-11-25). In a
        suite with host_time_reports the report run sets CLSPLIT_REPORT_TIMING=0 (nothing timed
        that an ordinary run would not time), so its report has clsplit's own host time per launch
        as an ordinary run pays it, plus the report's bookkeeping."""
        record = self.base_record(entry, config, repeat, warmup)
        if report:
            record["report_run"] = True
        binary = str(self.binaries / entry.program)
        iters = 1 if warmup else entry.iters
        env_delta: dict[str, str] = {}
        report_path = None
        if config.kind == "direct":
            if config.device.is_cpu and entry.cpu_iters and not warmup:
                iters = min(entry.iters, entry.cpu_iters)
            env, device_args = devs.direct_launch(config.device, self.scratch, self.env)
            env_delta = {k: env[k] for k in env if self.env.get(k) != env[k]}
            command = [binary, *entry.command_args(iters), *device_args]
        else:
            if not self.clsplit_ok:
                record.update(status="not-run", note=f"clsplit not run: {self.clsplit_reason}")
                return record
            strategy = config.strategy
            if strategy == "oracle":
                strategy, why = self.oracle_strategy(entry, config)
                if strategy is None:
                    record.update(status="not-run", note=f"oracle not run: {why}")
                    return record
            env = dict(self.env)
            env.pop("CLSPLIT_REPORT", None)
            env_delta = {
                "OCL_ICD_VENDORS": str(self.vendors),
                "CLSPLIT_DEVICES": config.clsplit_devices,
                **dict(config.variant_env),
            }
            if strategy == "default":  # clsplit's own default, as an unconfigured run gets it
                env.pop("CLSPLIT_STRATEGY", None)
            else:
                env_delta["CLSPLIT_STRATEGY"] = strategy
            host_time_report = self.suite.host_time_reports and report
            if report:
                report_path = self.out / "reports" / f"{point_label(entry)}_{config_label(config)}.json"
                report_path.unlink(missing_ok=True)
                env_delta["CLSPLIT_REPORT"] = str(report_path)
            if host_time_report:
                env_delta["CLSPLIT_REPORT_TIMING"] = "0"
                env_delta["CLSPLIT_REPORT_LAUNCHES"] = "0"  # no per-launch records in the host time
            # clsplit finds the real vendors itself; keep the caller's choice visible to it.
            if "OCL_ICD_VENDORS" in self.env and "CLSPLIT_VENDORS" not in self.env:
                env_delta["CLSPLIT_VENDORS"] = self.env["OCL_ICD_VENDORS"]
            # Both loaders: ocl-icd reads OCL_ICD_VENDORS; the Khronos loader (first on the GPU
            # machine) needs OCL_ICD_FILENAMES to see clsplit alone - what `clsplit --` sets.
            env_delta["OCL_ICD_FILENAMES"] = devs.clsplit_library(self.vendors)
            env.update(env_delta)
            command = [binary, *entry.command_args(iters)]
            record["strategy_value"] = strategy
        record.update(command=command, env=env_delta, iters_run=iters)
        log_path = self.out / "logs" / f"{point_label(entry)}_{config_label(config)}_" \
                                       f"{'w' if warmup else 'report' if report else 'r'}{repeat}.log"
        outcome = execute.run(command, env, entry.timeout or self.run_timeout, log_path)
        record.update(status=outcome.status, returncode=outcome.returncode, wall_s=round(outcome.wall_s, 3),
                      result=outcome.result, verified=outcome.verified)
        if outcome.seconds is not None:
            record["raw_seconds"] = outcome.seconds
            scale = entry.iters / iters if not warmup else 1.0
            record["seconds"] = outcome.seconds * scale
            record["scaled"] = scale != 1.0
        if outcome.status != "ok":
            record["stderr_tail"] = outcome.stderr_tail[-1500:]
            record["stdout_tail"] = outcome.stdout_tail[-1500:]
        else:
            log_path.unlink(missing_ok=True)  # keep logs of failed runs only
        if report_path is not None:
            report = clsplit_report.load(report_path)
            if report is None:
                record["note"] = "no clsplit report written"
            else:
                # A host-time report per run: ratio histories from the first repeat only (10^5
                # launches make ~0.4 MB of them per record), and no raw report kept (~10 MB each
                # at 10^5 launches, ~60 of them a suite); the digest has what the summary uses.
                record["report"] = report.to_json(histories=not host_time_report or repeat == 0)
                if host_time_report:
                    report_path.unlink(missing_ok=True)
        return record

    def progress(self, record: dict) -> None:
        self.counter += 1
        seconds = record.get("seconds")
        shown = f"{seconds:.5f}s" if seconds is not None else "-"
        extra = record.get("note") or ""
        if record["status"] not in ("ok", "not-run") and record.get("stderr_tail"):
            extra = record["stderr_tail"].strip().splitlines()[-1][:120] if record["stderr_tail"].strip() else extra
        print(f"[{self.counter:4d} {self.elapsed():6.1f}s] {record['workload']:<12} {record['size']:>9} "
              f"x{record['iters']:<7} "
              f"{record['config']:<28} {'warm-up' if record['warmup'] else 'report' if record.get('report_run') else 'rep ' + str(record['repeat']):<7} "
              f"{record['status']:<12} {shown:>11}  {extra}", flush=True)

    def run(self) -> int:
        self.check_binaries()
        self.discover()
        meta = self.meta()
        (self.out / "meta.json").write_text(json.dumps(meta, indent=1))
        total = sum(len(self.configs_for(e)) for e in self.entries)
        print(f"suite {self.suite.name}: {len(self.entries)} entries, {total} configurations in all, "
              f"repeat {self.repeat}, warm-up {self.warmup}; results in {self.out}")
        print(f"devices (from {self.lister}):")
        for d in self.devices:
            print(f"  {d.index}: [{d.type}] {d.name} | {d.platform} | icd={d.icd}")
        if not self.clsplit_ok:
            print(f"clsplit runs: NOT RUN ({self.clsplit_reason})")
        elif self.suite.host_time_reports:
            print("clsplit report runs: CLSPLIT_REPORT_TIMING=0 (own host time per launch); timed runs: no report")
        if self.args.dry_run:
            runs = 0
            for entry in self.entries:
                configs = self.configs_for(entry)
                measured = [c for c in configs if c.kind == "direct" or self.clsplit_ok]
                report_runs = sum(c.kind == "clsplit" for c in measured)
                runs += len(measured) * (self.repeat + self.warmup) + report_runs
                print(f"  {entry.key} x {entry.iters}: " + ", ".join(c.name for c in configs))
            print(f"{runs} runs (repeat {self.repeat}, warm-up {self.warmup}); time budget "
                  f"{self.time_budget if self.time_budget is not None else 'none'}")
            shutil.rmtree(self.scratch, ignore_errors=True)
            return 0
        not_run_reported = set()
        for repeat in range(self.repeat):
            for entry in self.entries:
                for config in self.configs_for(entry):
                    if self.out_of_time():
                        break
                    if config.kind == "clsplit" and not self.clsplit_ok:
                        if (entry.key, entry.iters, config.name) not in not_run_reported:
                            not_run_reported.add((entry.key, entry.iters, config.name))
                            record = self.base_record(entry, config, repeat, False)
                            record.update(status="not-run", note=f"clsplit not run: {self.clsplit_reason}")
                            self.append(record)
                        continue
                    if repeat == 0:
                        for w in range(self.warmup):
                            record = self.launch(entry, config, w, warmup=True)
                            self.append(record)
                            self.progress(record)
                        # Bytes moved, ratios, host time: from a run whose time is not used.
                        if config.kind == "clsplit":
                            record = self.launch(entry, config, 0, warmup=False, report=True)
                            self.append(record)
                            self.progress(record)
                    record = self.launch(entry, config, repeat, warmup=False)
                    self.append(record)
                    self.progress(record)
                summary.write_outputs(self.out, self.records, meta)
        aggregates = summary.write_outputs(self.out, self.records, meta)
        print()
        print(summary.table(aggregates))
        if not self.args.no_plots:
            histories = json.loads((self.out / "summary.json").read_text())["adaptive_histories"]
            written = plots.write_plots(self.out, aggregates, histories)
            if written:
                print(f"\nplots: {', '.join(str(p.relative_to(self.out)) for p in written)}")
        shutil.rmtree(self.scratch, ignore_errors=True)
        bad = [r for r in self.records if r["status"] not in ("ok", "not-run")]
        attempted = [r for r in self.records if r["status"] != "not-run"]
        print(f"\n{len(attempted) - len(bad)}/{len(attempted)} runs verified"
              + (f"; {len(bad)} did not: " + ", ".join(sorted({"%s/%s:%s" % (r["workload"], r["config"], r["status"])
                                                               for r in bad})) if bad else "")
              + (f"; clsplit not run ({self.clsplit_reason})" if not self.clsplit_ok else "")
              + (" ; time budget cut the suite short" if self.budget_exhausted else ""))
        print(f"results: {self.out}")
        return 1 if bad else 0


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    execute.interrupt_on_sigterm()  # SIGTERM too stops the running workload (run_process)
    try:
        return Harness(args).run()
    except KeyboardInterrupt:
        execute.stop_all()
        print("interrupted; runs so far are in runs.jsonl (summarize.py rebuilds the summary)")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
