"""Running one workload process and reading its RESULT line."""

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


def run_process(command: list[str], env: dict[str, str], timeout: float | None = None,
                merge: bool = False) -> tuple[int | None, str, str, float]:
    """Runs `command` in its own process group (killed whole on timeout); `merge`: stderr into
    stdout. Returns (exit status, or None on timeout; stdout; stderr; seconds); OSError raises."""
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT if merge else subprocess.PIPE, text=True,
                               errors="replace", start_new_session=True)
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
    return code, stdout or "", stderr or "", time.monotonic() - start


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
