"""What the experiments share: the context they run in (options, output directory, the machine),
a log that prints and writes a file under the output directory, running one command, and spotting
a strategy that clsplit did not apply."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from execute import run_process
from machine import Machine


@dataclass
class Ran:
    returncode: int  # 124 when it ran past its timeout (as `timeout` says)
    stdout: str
    stderr: str
    wall_s: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_command(command: list[str], env: dict[str, str], timeout: float | None = None, merge: bool = False) -> Ran:
    """Runs `command` in its own process group (killed whole on timeout); `merge`: stderr into stdout."""
    try:
        code, stdout, stderr, seconds = run_process(command, env, timeout, merge)
    except OSError as error:
        return Ran(127, "", f"{command[0]}: {error}\n", 0.0)
    return Ran(124 if code is None else code, stdout, stderr, seconds)


def strategy_not_applied(output: str) -> str | None:
    """clsplit's log line saying that CLSPLIT_STRATEGY was not applied (invalid, or static ratios
    that do not match the selected devices: it then runs adaptive-comm), else None."""
    return next((l for l in output.splitlines() if re.search("CLSPLIT_STRATEGY.*using adaptive-comm", l)), None)


def tail(text: str, lines: int) -> str:
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


class Log:
    """Lines printed as they come and written to a file (what `| tee FILE` did)."""

    def __init__(self, path: Path | None):
        self.handle = path.open("w") if path else None

    def __call__(self, text: str = "") -> None:
        print(text, flush=True)
        if self.handle:
            self.handle.write(text + "\n")
            self.handle.flush()

    def close(self) -> None:
        if self.handle:
            self.handle.close()

    def __enter__(self) -> "Log":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Context:
    """One experiment's run: its options, output directory, scratch directory and machine (set up
    on first use, so that an experiment that only reads files needs no build)."""

    def __init__(self, args: argparse.Namespace, out: Path, scratch: Path, ocl_icd_first: bool):
        self.args = args
        self.out = out
        self.scratch = scratch
        scratch.mkdir(parents=True, exist_ok=True)
        self.ocl_icd_first = ocl_icd_first

    @cached_property
    def machine(self) -> Machine:
        machine = Machine(self.args.build, self.scratch, self.args.vendors, self.args.env, self.ocl_icd_first)
        print(machine.describe(), flush=True)
        return machine

    def log(self, name: str | None) -> Log:
        """A log written to <out>/<name> (None: printed only)."""
        return Log(self.out / name if name else None)
