"""Running one workload process and reading its RESULT line; the processes a harness starts are
stopped when it is interrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field


@dataclass
class Outcome:
    status: str  # ok | not-verified | failed | timeout | no-result
    returncode: int | None
    wall_s: float
    result: dict[str, str] = field(default_factory=dict)
    stdout_tail: str = ""
    stderr_tail: str = ""

    @property
    def seconds(self) -> float | None:
        try:
            return float(self.result["seconds"])
        except (KeyError, ValueError):
            return None

    @property
    def verified(self) -> bool:
        return self.result.get("verified") == "1"


def parse_result_line(stdout: str) -> dict[str, str]:
    """The last `RESULT k=v k=v ...` line of a workload's output as a dict ({} when absent)."""
    found: dict[str, str] = {}
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            found = {}
            for token in line.split()[1:]:
                key, sep, value = token.partition("=")
                if sep:
                    found[key] = value
    return found


# Processes started and not yet reaped. Each runs in its own process group (a new session), out of
# reach of the terminal's Ctrl-C and of a SIGTERM to the harness: an interrupted harness stops
# them itself (stop_all), else they would run on after it.
_RUNNING: set[subprocess.Popen] = set()
# Seconds an interrupted child gets between SIGTERM and SIGKILL: a child that is itself a harness
# (check runs run.py) stops its own children on SIGTERM first.
INTERRUPT_GRACE_S = 5.0


def start(command: list[str], env: dict[str, str], **popen) -> subprocess.Popen:
    """Starts `command` in its own process group, tracked until stop() (or stop_all) reaps it."""
    process = subprocess.Popen(command, env=env, start_new_session=True, **popen)
    _RUNNING.add(process)
    return process


def stop(process: subprocess.Popen, grace: float = 0.0) -> None:
    """Ends `process`'s whole group if the process still runs (SIGTERM, SIGKILL `grace` seconds
    later; SIGKILL at once with 0) and reaps it, so that no zombie is left."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM if grace > 0 else signal.SIGKILL)
            if grace > 0:
                try:
                    process.wait(grace)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()
    _RUNNING.discard(process)


def stop_all(grace: float = INTERRUPT_GRACE_S) -> None:
    """Stops every process start() started that is not reaped yet (an interrupted harness)."""
    for process in list(_RUNNING):
        stop(process, grace)


def interrupt_on_sigterm() -> None:
    """SIGTERM and SIGHUP (a killed job, `timeout`, a closed terminal) end the harness as Ctrl-C
    does, by KeyboardInterrupt: the running command's group is stopped (run_process) and the
    caller's handler can stop_all(); Python's default would exit at once, leaving them running.
    A signal the caller ignores (`nohup`) stays ignored."""
    def interrupted(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, interrupted)


def run_process(command: list[str], env: dict[str, str], timeout: float | None = None,
                merge: bool = False) -> tuple[int | None, str, str, float]:
    """Runs `command` in its own process group (killed whole on timeout, and when the harness is
    interrupted meanwhile); `merge`: stderr into stdout. Returns (exit status, or None on timeout;
    stdout; stderr; seconds); OSError raises."""
    start_s = time.monotonic()
    process = start(command, env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                    text=True, errors="replace")
    try:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
            code = process.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            stdout, stderr = process.communicate()
            code = None
    except BaseException:  # KeyboardInterrupt (Ctrl-C, or a signal interrupt_on_sigterm turned into one)
        stop(process, INTERRUPT_GRACE_S)
        raise
    _RUNNING.discard(process)
    return code, stdout or "", stderr or "", time.monotonic() - start_s


def run(command: list[str], env: dict[str, str], timeout: float, log_path=None) -> Outcome:
    """Runs `command` in its own process group; on timeout the whole group is killed."""
    try:
        code, stdout, stderr, wall = run_process(command, env, timeout)
    except OSError as error:
        return Outcome("failed", None, 0.0, stderr_tail=str(error))
    status = None if code is not None else "timeout"
    if log_path is not None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text(f"$ {' '.join(command)}\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n")
    result = parse_result_line(stdout)
    if status is None:
        if code == 0 and result.get("verified") == "1":
            status = "ok"
        elif code == 1 and result:
            status = "not-verified"
        elif not result and code == 0:
            status = "no-result"
        else:
            status = "failed"
    return Outcome(status, code, wall, result, stdout[-2000:], stderr[-2000:])
