"""diagnose: where a workload's time goes through clsplit with the defaults over every GPU, next to
the same program run directly on the GPU. Per workload NAME:SIZE:ITERS: --repeat pairs of a direct
and a clsplit run (their `seconds=` and `verified=`), then a clsplit run with the run report (every
launch listed), a trace and clsplit's log at the level --log names (its stderr), its files packed
into OUT/diagnose.tgz (NAME-SIZE-ITERS.report.json, .trace.json.gz, .log.gz, .stdout). Extra
clsplit settings: --env (e.g. --env CLSPLIT_STRATEGY=uniform) or the caller's environment.

    python3 bench/harness/experiment.py diagnose jacobi2d:4096:200 2spmv:524288:50

(Was scripts/gpu-diagnose.sh.)
"""

from __future__ import annotations

import gzip
import re
import shutil
import tarfile

from experiments.common import Context, run_command

NAME = "diagnose"
SUMMARY = "where a workload's time goes through clsplit (report, trace, log) next to a direct run on the GPU"
QUICK = {"workloads": ["jacobi2d:1024:20"], "repeat": 1}
LEVELS = ("off", "error", "warn", "info", "debug", "trace")  # CLSPLIT_LOG's (docs/configuration.md)


def add_arguments(parser) -> None:
    parser.add_argument("workloads", nargs="*", default=["jacobi2d:4096:200"], metavar="NAME:SIZE:ITERS",
                        help="workloads (default jacobi2d:4096:200)")
    parser.add_argument("--repeat", type=int, default=2, help="direct/clsplit pairs per workload (default %(default)s)")
    # A level, not a file: the log is the report run's stderr, packed as NAME-SIZE-ITERS.log.gz.
    # clsplit takes an unknown level for `off`, which would pack an empty log without a word.
    parser.add_argument("--log", default=None, choices=LEVELS, metavar="LEVEL",
                        help="CLSPLIT_LOG (a level: %s) of the report run, whose stderr is the packed log "
                             "(default: CLSPLIT_LOG of --env or the environment, else info)" % ", ".join(LEVELS))


def fields(stdout: str) -> str:
    """The ` seconds=` and `verified=` fields of the output, as `grep -o` printed them."""
    return " ".join(re.findall(r" seconds=[0-9.e-]*|verified=[01]", stdout)) + " "


def log_level(chosen: str | None, env: dict[str, str]) -> str:
    """--log, else the caller's own CLSPLIT_LOG (--env, the environment: not overridden unasked),
    else info."""
    return chosen or env.get("CLSPLIT_LOG") or "info"


def run(ctx: Context) -> int:
    m, a, out = ctx.machine, ctx.args, ctx.out
    level = log_level(a.log, m.base)
    print(f"report runs with CLSPLIT_LOG={level}", flush=True)
    failed = 0
    packed = []
    for spec in a.workloads:
        try:
            name, size, iters = spec.split(":")
        except ValueError:
            raise SystemExit(f"error: {spec!r}: expected NAME:SIZE:ITERS")
        tag = f"{name}-{size}-{iters}"
        program = m.program(name, "--size", size, "--iters", iters)
        for _ in range(a.repeat):
            for label, done in (("direct", run_command(program, m.direct_env(), timeout=600)),
                                ("clsplit", run_command(m.through_launcher(program), m.env(), timeout=600))):
                failed += done.returncode != 0
                print(f"{label} {tag}: {fields(done.stdout)}", flush=True)
        files = {k: out / f"{tag}.{k}" for k in ("report.json", "trace.json", "stdout", "log")}
        env = m.env(CLSPLIT_REPORT=str(files["report.json"]), CLSPLIT_TRACE=str(files["trace.json"]),
                    CLSPLIT_LOG=level)
        done = run_command(m.through_launcher(program), env, timeout=600)
        failed += done.returncode != 0
        files["stdout"].write_text(done.stdout)
        files["log"].write_text(done.stderr)
        print(f"clsplit+report {tag}: {fields(done.stdout)}", flush=True)
        for key in ("trace.json", "log"):
            if files[key].exists():
                with files[key].open("rb") as raw, gzip.open(f"{files[key]}.gz", "wb") as packed_file:
                    shutil.copyfileobj(raw, packed_file)
                files[key].unlink()
                files[key] = out / f"{tag}.{key}.gz"
        packed += [f for f in files.values() if f.exists()]
    with tarfile.open(out / "diagnose.tgz", "w:gz") as archive:
        for f in packed:
            archive.add(f, arcname=f"./{f.name}")
    for f in packed:
        f.unlink()
    return 1 if failed else 0
