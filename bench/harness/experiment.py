#!/usr/bin/env python3
"""Named experiments of the bench harness, one command each (the GPU machine's measurements, and
the harness's own experiments): each sets up the machine (machine.py: vendors directories, device
discovery, the build or bundle layout), runs its programs and prints what it measured; files go to
--out (default $OUT, else /tmp/out).

    python3 bench/harness/experiment.py --list
    python3 bench/harness/experiment.py NAME [--build build|.device] [--out DIR] [--quick] [options]
    python3 bench/harness/experiment.py NAME --help
    python3 bench/harness/experiment.py all [--quick] [--skip a,b] [--only a,b]   # each into DIR/NAME

`--quick`: small sizes and one repeat, to check that an experiment works (every experiment in a
few minutes with `all --quick`), not to measure. Without a GPU, "the GPU" is the first device:
on the development machine every experiment runs on PoCL's two pthread devices.
Exit status: 0 when every run worked (verified, identical), 1 otherwise, 2 on a usage error.
Interrupted (Ctrl-C, SIGTERM, SIGHUP), it stops the programs it started before exiting (1).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from experiments import registry  # noqa: E402  (it also finds the run-report reader)
import execute  # noqa: E402
import machine  # noqa: E402
from experiments.common import Context  # noqa: E402


def common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    group = common.add_argument_group("every experiment")
    group.add_argument("--build", type=Path, default=machine.default_build(),
                       help="a clsplit build, or an installed tree such as .device (default: %(default)s)")
    group.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or "/tmp/out"),
                       help="where files go (default: $OUT, else /tmp/out)")
    group.add_argument("--vendors", default=None,
                       help="the real vendors: a directory, .icd files or libraries, ':'-separated "
                            "(default: NVIDIA's library when present and PoCL's .icd)")
    group.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                       help="extra environment for every run (repeatable)")
    group.add_argument("--quick", action="store_true",
                       help="small sizes, one repeat: checks that it works, measures nothing")
    return common


def make_parser(experiments: dict, quick: bool) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     allow_abbrev=False)
    parser.add_argument("--list", action="store_true", help="list the experiments and what each measures")
    sub = parser.add_subparsers(dest="name", metavar="NAME")
    common = common_options()
    for name, module in experiments.items():
        # No abbreviations: `--quick` is recognised before parsing (its defaults depend on it).
        p = sub.add_parser(name, parents=[common], help=module.SUMMARY, description=module.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
        module.add_arguments(p)
        if quick:
            p.set_defaults(**module.QUICK)
    p = sub.add_parser("all", parents=[common], allow_abbrev=False,
                       help="every experiment, one after another, each into OUT/NAME",
                       description="Every experiment with its default options (with --quick: its quick ones), "
                                   "one after another, each writing into OUT/NAME; a summary at the end.")
    p.add_argument("--skip", default="", help="comma-separated experiments to leave out")
    p.add_argument("--only", default="", help="comma-separated experiments to run (in the registry's order)")
    return parser


def list_experiments(experiments: dict) -> str:
    width = max(len(n) for n in experiments)
    return "\n".join(f"{name:<{width}}  {module.SUMMARY}" for name, module in experiments.items())


def run_one(module, args: argparse.Namespace, scratch: Path) -> int:
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    ctx = Context(args, args.out, scratch / module.NAME, getattr(module, "OCL_ICD_FIRST", False))
    return int(module.run(ctx) or 0)


def run_all(experiments: dict, parser: argparse.ArgumentParser, args: argparse.Namespace, scratch: Path) -> int:
    skip = {s for s in args.skip.split(",") if s}
    only = [s for s in args.only.split(",") if s]
    unknown = (skip | set(only)) - set(experiments)
    if unknown:
        parser.error(f"unknown experiments {sorted(unknown)}; --list names them")
    chosen = [n for n in experiments if n not in skip and (not only or n in only)]
    results = []
    for name in chosen:
        # The experiment's own defaults (quick ones under --quick), the common options of `all`.
        argv = [name, "--build", str(args.build), "--out", str(args.out / name)]
        argv += ["--vendors", args.vendors] if args.vendors else []
        argv += [f"--env={e}" for e in args.env] + (["--quick"] if args.quick else [])
        own = parser.parse_args(argv)
        print(f"\n===== {name}: {experiments[name].SUMMARY}", flush=True)
        start = time.monotonic()
        try:
            rc = run_one(experiments[name], own, scratch)
        except SystemExit as stop:
            rc = stop.code if isinstance(stop.code, int) else 2
            if not isinstance(stop.code, int):
                print(stop.code, flush=True)
        except Exception:  # one experiment's bug must not stop the others
            traceback.print_exc()
            rc = 1
        results.append((name, rc, time.monotonic() - start))
        print(f"===== {name}: exit {rc}, {results[-1][2]:.0f} s", flush=True)
    print("\nexperiment        exit  seconds")
    for name, rc, seconds in results:
        print(f"{name:<17} {rc:>4}  {seconds:7.0f}")
    return 0 if all(rc == 0 for _, rc, _ in results) else 1


def main(argv: list[str]) -> int:
    experiments = registry()
    parser = make_parser(experiments, quick="--quick" in argv)
    args = parser.parse_args(argv)
    if args.list:
        print(list_experiments(experiments))
        return 0
    if not args.name:
        parser.print_usage()
        print("\nexperiments:\n" + list_experiments(experiments))
        return 2
    execute.interrupt_on_sigterm()
    scratch = Path(tempfile.mkdtemp(prefix="clsplit-experiment-"))
    try:
        if args.name == "all":
            return run_all(experiments, parser, args, scratch)
        return run_one(experiments[args.name], args, scratch)
    except KeyboardInterrupt:
        execute.stop_all()  # what the experiment started itself (run_process stops its own)
        print("interrupted", flush=True)
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
