#!/usr/bin/python3
"""Runs the pyopencl scenarios (scenarios.py) in this process on the first device of the first
OpenCL platform, whatever the loader offers (PoCL directly, or clsplit), and saves their results.

  run_scenarios.py OUTDIR [SCENARIO ...]

Writes OUTDIR/<scenario>.npz (the scenario's results) and OUTDIR/status.json ({scenario: "ok" or
the error}), rewritten after every scenario so that a crash still shows how far the run got.
Exit status 0 when every scenario ran and checked its own results, 1 otherwise.
"""
import json
import os
import sys
import time
import traceback
import warnings


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    import numpy as np
    import pyopencl as cl
    from scenarios import SCENARIOS
    # pyopencl warns about non-empty build logs; the logs are not part of what is compared.
    warnings.simplefilter("ignore", cl.CompilerWarning)
    names = sys.argv[2:] or list(SCENARIOS)
    platform = cl.get_platforms()[0]
    device = platform.get_devices()[0]
    print("device: %s on %s" % (device.name, platform.name), flush=True)
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    status = {}
    status_path = os.path.join(out_dir, "status.json")
    failed = False
    for name in names:
        status[name] = "crashed or hung (the process ended inside the scenario)"
        with open(status_path, "w") as f:
            json.dump(status, f, indent=1)
        started = time.time()
        try:
            results = SCENARIOS[name](ctx, queue)
            queue.finish()
            np.savez(os.path.join(out_dir, name + ".npz"), **{k: np.asarray(v) for k, v in results.items()})
            status[name] = "ok"
        except Exception as e:  # one failing scenario must not hide the others' results
            failed = True
            status[name] = "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc())
        print("%-18s %5.1f s  %s" % (name, time.time() - started, status[name].splitlines()[0]), flush=True)
        with open(status_path, "w") as f:
            json.dump(status, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
