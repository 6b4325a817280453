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


def run(command: list[str], env: dict[str, str], timeout: float, log_path=None) -> Outcome:
    """Runs `command` in its own process group; on timeout the whole group is killed."""
    start = time.monotonic()
    try:
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, start_new_session=True)
    except OSError as error:
        return Outcome("failed", None, 0.0, stderr_tail=str(error))
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        status = None
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        stdout, stderr = process.communicate()
        status = "timeout"
    wall = time.monotonic() - start
    if log_path is not None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text(f"$ {' '.join(command)}\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n")
    result = parse_result_line(stdout)
    if status is None:
        if process.returncode == 0 and result.get("verified") == "1":
            status = "ok"
        elif process.returncode == 1 and result:
            status = "not-verified"
        elif not result and process.returncode == 0:
            status = "no-result"
        else:
            status = "failed"
    return Outcome(status, process.returncode, wall, result, stdout[-2000:], stderr[-2000:])
