"""Runs a command and succeeds only if it exits with the given status (e.g. 1: verification failed).

    python3 expect_exit.py STATUS command [args...]
"""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect_exit.py STATUS command [args...]")
expected = int(sys.argv[1])
status = subprocess.run(sys.argv[2:]).returncode
if status != expected:
    print(f"expected exit status {expected}, got {status}", file=sys.stderr)
    sys.exit(1)
