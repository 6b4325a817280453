#!/usr/bin/env python3
"""Differential fuzzing of clsplit's splitting: a generated program (generate.py) runs on PoCL
directly (the reference) and through clsplit on several devices with a strategy; every buffer's
hash must be identical.

  fuzz.py case --build B --driver D --seed S [--config C ...] [--work W] [--keep DIR]
      one seed; without --config, the configurations the seed draws (what the campaign runs).
      This is the one command that reproduces a campaign failure.
  fuzz.py file --build B --driver D --program P.desc [--config C ...]
      a saved program (regressions: the configurations come from its `# config:` lines, each
      run `# repeat: N` times; `# expect-split: KERNEL...` kernels must be split in every run).
  fuzz.py batch --build B --driver D --first S --count N
      seeds S .. S+N-1, each in its drawn configurations (the CTest batches).
  fuzz.py validate --driver D --first S --count N
      checks the generator: each seed's program (small sizes) runs under Oclgrind with its data-race,
      bounds and API checks; any report, or an output different from PoCL's, is a generator bug.
  fuzz.py campaign --build B --driver D --first S --count N [-j J] [--failures DIR] [--summary F]
      as batch, in parallel; every failure is saved (program, configuration, both outputs,
      stderr, run report, the command that reproduces it) and a summary printed.

A configuration is DEVICES/STRATEGY: DEVICES is pocl2, pocl3 (two or three one-core PoCL pthread
devices; with the suffix -staging, copies between them go through host memory as between
discrete GPUs: CLSPLIT_TEST_FORCE_STAGING=1) or oclgrind (one PoCL device and Oclgrind); STRATEGY is a CLSPLIT_STRATEGY value
(uniform, static:R0,R1[,R2], adaptive, adaptive-comm). Seeds whose number is divisible by 3
generate small programs; only those run with Oclgrind.

Exit status 0: every run identical; 1: a difference or a failed run; 77: PoCL not installed.
Standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

SKIP = 77
RUN_TIMEOUT_S = 120
POCL_ICD = "/etc/OpenCL/vendors/pocl.icd"
OCLGRIND_LIBRARY = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"
POCL_DEVICES = {"pocl2": "pthread pthread", "pocl3": "pthread pthread pthread", "oclgrind": "pthread"}
DEVICE_COUNT = {"pocl2": 2, "pocl3": 3, "oclgrind": 2}
STAGING_SUFFIX = "-staging"  # CLSPLIT_TEST_FORCE_STAGING=1: copies between devices go through the host


def is_small(seed):
    return seed % 3 == 0


def drawn_configs(seed):
    """The two configurations a seed runs in (deterministic)."""
    rng = random.Random(seed * 7919 + 17)
    configs = []
    while len(configs) < 2:
        devices = rng.choice(["pocl2", "pocl3", "oclgrind"] if is_small(seed) else ["pocl2", "pocl2", "pocl3"])
        if devices == "oclgrind" and any(c.startswith("oclgrind") for c in configs):
            devices = "pocl2"
        strategy = rng.choice(["uniform", "uniform", "static", "static", "static", "adaptive-comm", "adaptive"])
        if strategy == "static":
            # At least two devices with a share: a static plan with one device tests no split.
            ratios = [rng.choice([0, 1, 2, 3, 5, 8]) for _ in range(DEVICE_COUNT[devices])]
            while sum(1 for r in ratios if r) < 2:
                ratios[rng.randrange(len(ratios))] = rng.choice([1, 2, 3, 5, 8])
            strategy = "static:" + ",".join(str(r) for r in ratios)
        if devices != "oclgrind" and rng.random() < 0.25:
            devices += STAGING_SUFFIX
        config = "%s/%s" % (devices, strategy)
        if config not in configs:
            configs.append(config)
    return configs


def write_atomically(path, text):
    temporary = "%s.%d.%d.tmp" % (path, os.getpid(), threading.get_ident())  # campaign threads too
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def vendors_dir(work, with_oclgrind):
    path = os.path.join(work, "vendors-oclgrind" if with_oclgrind else "vendors-pocl")
    os.makedirs(path, exist_ok=True)
    with open(POCL_ICD) as f:
        write_atomically(os.path.join(path, "pocl.icd"), f.read())
    if with_oclgrind:
        write_atomically(os.path.join(path, "oclgrind.icd"), OCLGRIND_LIBRARY + "\n")
    return path


def base_environment(pocl_devices):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLSPLIT_", "OCL_ICD_", "POCL_", "OCLGRIND_"))}
    env["POCL_DEVICES"] = pocl_devices
    env["POCL_MAX_PTHREAD_COUNT"] = "1"
    return env


def run(command, env):
    try:
        p = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT_S)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return ("timeout after %d s" % RUN_TIMEOUT_S, (e.stdout or b"").decode(errors="replace"),
                (e.stderr or b"").decode(errors="replace"))


def run_reference(a, program):
    env = base_environment("pthread")
    env["OCL_ICD_VENDORS"] = vendors_dir(a.work, False)
    return run([a.driver, program], env)


def run_clsplit(a, program, config, report):
    devices, strategy = config.split("/", 1)
    staging = devices.endswith(STAGING_SUFFIX)
    if staging:
        devices = devices[:-len(STAGING_SUFFIX)]
    if devices not in POCL_DEVICES:
        raise SystemExit("unknown devices '%s' in configuration %s" % (devices, config))
    env = base_environment(POCL_DEVICES[devices])
    env["OCL_ICD_VENDORS"] = os.path.join(a.build, "vendors")
    env["OCL_ICD_FILENAMES"] = os.path.join(a.build, "lib", "libclsplit.so")
    env["CLSPLIT_VENDORS"] = vendors_dir(a.work, devices == "oclgrind")
    env["CLSPLIT_DEVICES"] = "all"
    env["CLSPLIT_CONFIG"] = "/dev/null"
    env["CLSPLIT_STRATEGY"] = strategy
    env["CLSPLIT_CACHE_DIR"] = os.path.join(a.work, "analysis-cache")
    env["CLSPLIT_REPORT"] = report
    if staging:
        env["CLSPLIT_TEST_FORCE_STAGING"] = "1"
    return run([a.driver, program], env)


def read_report(path):
    """(launches, split launches, {kernel: fallback reason}) from a run report."""
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    kernels = r.get("kernels", {})
    launches = sum(k.get("launches", 0) for k in kernels.values())
    split = sum(k.get("split_launches", 0) for k in kernels.values())
    reasons = {name: k.get("fallback_reason") for name, k in kernels.items() if k.get("fallback_reason")}
    split_by_kernel = {name: k.get("split_launches", 0) for name, k in kernels.items()}
    return launches, split, reasons, split_by_kernel


def check_program(a, program, configs, label, keep=None, expect_split=()):
    """Runs one program in its configurations. Returns a list of result dicts. Kernels named in
    `expect_split` must be split at least once in every run (precision regressions)."""
    results = []
    rc, reference, err = run_reference(a, program)
    if rc != 0:
        # The generator promises valid programs: a reference failure is a generator bug.
        results.append({"label": label, "config": "reference", "status": "reference-failed",
                        "detail": "exit status %s\n%s" % (rc, err[-3000:])})
        if keep:
            save_failure(a, keep, label, "reference", program, "", reference, err, None)
        return results
    for config in configs:
        report = os.path.join(a.work, "report-%s-%d.json" % (label, os.getpid()))
        if os.path.exists(report):
            os.remove(report)
        started = time.time()
        rc, out, err = run_clsplit(a, program, config, report)
        info = read_report(report)
        result = {"label": label, "config": config, "seconds": round(time.time() - started, 2)}
        split_by_kernel = {}
        if info:
            result["launches"], result["split_launches"], result["fallbacks"], split_by_kernel = info
        unsplit = [k for k in expect_split if not split_by_kernel.get(k)]
        if rc != 0:
            result["status"] = "clsplit-failed"
            result["detail"] = "exit status %s\n%s" % (rc, err[-3000:])
        elif out != reference:
            result["status"] = "differs"
            ref_lines, out_lines = reference.splitlines(), out.splitlines()
            result["detail"] = "\n".join("reference: %s\nclsplit:   %s" % (r, o)
                                         for r, o in zip(ref_lines, out_lines) if r != o)
        elif info is None:
            result["status"] = "no-report"
            result["detail"] = err[-3000:]
        elif unsplit:
            result["status"] = "not-split"
            result["detail"] = "expected split launches of %s; fallbacks: %s" % (
                ", ".join(unsplit), result.get("fallbacks"))
        else:
            result["status"] = "ok"
        if result["status"] != "ok" and keep:
            save_failure(a, keep, label, config, program, reference, out, err, report)
        if os.path.exists(report):
            os.remove(report)
        results.append(result)
    return results


def save_failure(a, directory, label, config, program, reference, out, err, report):
    path = os.path.join(directory, "%s-%s" % (label, config.replace("/", "_").replace(":", "_").replace(",", "_")))
    os.makedirs(path, exist_ok=True)
    shutil.copy(program, os.path.join(path, "program.desc"))
    for name, text in (("reference.out", reference), ("clsplit.out", out), ("stderr.txt", err),
                       ("config.txt", config + "\n")):
        with open(os.path.join(path, name), "w") as f:
            f.write(text)
    if report and os.path.exists(report):
        shutil.copy(report, os.path.join(path, "report.json"))
    with open(os.path.join(path, "reproduce.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s in configuration %s: the saved program, then (for a seed) from the seed\n"
                % (label, config))
        common = "%s %s %%s --build %s --driver %s --config '%s'" % (
            sys.executable, os.path.abspath(__file__), a.build, a.driver, config)
        f.write(common % ("file --program " + os.path.join(path, "program.desc")) + "\n")
        if label.startswith("seed"):
            f.write("# " + common % ("case --seed " + label[4:]) + "\n")


def generate_program(seed, work):
    path = os.path.join(work, "seed-%d.desc" % seed)
    with open(path, "w") as f:
        f.write(generate.Generator(seed, is_small(seed)).generate())
    return path


def run_seed(a, seed, configs=None, keep=None):
    try:
        program = generate_program(seed, a.work)
    except Exception as e:  # a generator bug must not end a campaign
        return [{"label": "seed%d" % seed, "config": "generator", "status": "generator-failed", "detail": repr(e)}]
    results = check_program(a, program, configs or drawn_configs(seed), "seed%d" % seed, keep)
    os.remove(program)
    return results


def validate_seed(a, seed):
    """The generator's promise, checked by Oclgrind: no race, no out-of-bounds access, and the
    same hashes as PoCL (float results are exact)."""
    path = os.path.join(a.work, "validate-%d.desc" % seed)
    with open(path, "w") as f:
        f.write(generate.Generator(seed, True).generate())
    rc, reference, err = run_reference(a, path)
    result = {"label": "seed%d" % seed, "config": "oclgrind-checks", "status": "ok"}
    if rc != 0:
        result.update(status="reference-failed", detail=err[-3000:])
        return result
    env = base_environment("pthread")
    env["OCL_ICD_VENDORS"] = vendors_dir(a.work, False)
    rc, out, err = run(["oclgrind", "--data-races", "--check-api", "--max-errors", "10", a.driver, path], env)
    if rc != 0 or err.strip():
        result.update(status="oclgrind-reports", detail="exit status %s\n%s" % (rc, err[-3000:]))
    elif out != reference:
        result.update(status="differs", detail="Oclgrind's output differs from PoCL's")
    if result["status"] == "ok":
        os.remove(path)
    else:
        result["detail"] += "\nprogram kept: " + path
    return result


def print_result(r, verbose=True):
    line = "%-10s %-36s %s" % (r["label"], r["config"], r["status"].upper() if r["status"] != "ok" else "identical")
    if "launches" in r:
        line += "  (launches %d, split %d%s, %.1f s)" % (r["launches"], r["split_launches"],
                                                       ", fallback: %s" % "; ".join(
                                                           "%s: %s" % kv for kv in r["fallbacks"].items())
                                                       if r["fallbacks"] and verbose else "", r["seconds"])
    print(line)
    if r["status"] != "ok":
        print("  " + r.get("detail", "").replace("\n", "\n  "))
    sys.stdout.flush()


def summarise(results):
    programs = len({r["label"] for r in results})
    runs = [r for r in results if r["config"] != "reference"]
    failed = [r for r in results if r["status"] != "ok"]
    launches = sum(r.get("launches", 0) for r in runs)
    split = sum(r.get("split_launches", 0) for r in runs)
    programs_split = len({r["label"] for r in runs if r.get("split_launches", 0) > 0})
    reasons = {}
    for r in runs:
        for reason in r.get("fallbacks", {}).values():
            key = reason.split(" at line")[0][:90]
            reasons[key] = reasons.get(key, 0) + 1
    return {"programs": programs, "clsplit_runs": len(runs), "launches": launches, "split_launches": split,
            "programs_with_a_split_launch": programs_split, "failures": len(failed),
            "failure_kinds": sorted({"%s %s" % (r["label"], r["config"]) for r in failed}),
            "fallback_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1]))}


def prepare(a):
    if not os.path.exists(POCL_ICD):
        print("SKIP: PoCL is not installed (%s)" % POCL_ICD)
        sys.exit(SKIP)
    a.build = os.path.abspath(a.build)
    a.driver = os.path.abspath(a.driver)
    if a.work is None:
        a.work = tempfile.mkdtemp(prefix="clsplit-fuzz-")
    a.work = os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["case", "file", "batch", "campaign", "configs", "validate"])
    parser.add_argument("--build", default=".")
    parser.add_argument("--driver", default="fuzz_driver")
    parser.add_argument("--work")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--program")
    parser.add_argument("--config", action="append")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--failures", help="directory for failing cases")
    parser.add_argument("--summary", help="JSON summary file (campaign)")
    a = parser.parse_args()
    if a.mode == "configs":
        for seed in range(a.first, a.first + a.count):
            print(seed, "small" if is_small(seed) else "", " ".join(drawn_configs(seed)))
        return 0
    prepare(a)
    results = []
    if a.mode == "case":
        if a.seed is None:
            parser.error("case needs --seed")
        results = run_seed(a, a.seed, a.config, a.failures)
        for r in results:
            print_result(r)
    elif a.mode == "file":
        if not a.program:
            parser.error("file needs --program")
        configs, repeat, expect_split = list(a.config or []), 1, []
        with open(a.program) as f:
            for line in f:
                if line.startswith("# config:"):
                    configs.append(line.split(":", 1)[1].strip())
                elif line.startswith("# repeat:"):  # intermittent failures: run each configuration N times
                    repeat = int(line.split(":", 1)[1])
                elif line.startswith("# expect-split:"):  # a kernel that must be split (precision)
                    expect_split += line.split(":", 1)[1].split()
        configs = [c for c in configs for _ in range(repeat)]
        if not configs:
            parser.error("no configuration (--config or '# config:' lines)")
        results = check_program(a, a.program, configs, os.path.basename(a.program).split(".")[0], a.failures,
                                expect_split)
        for r in results:
            print_result(r)
    elif a.mode == "batch":
        for seed in range(a.first, a.first + a.count):
            for r in run_seed(a, seed, None, a.failures):
                results.append(r)
                print_result(r)
    elif a.mode == "validate":
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for r in pool.map(lambda seed: validate_seed(a, seed), range(a.first, a.first + a.count)):
                results.append(r)
                print_result(r)
    else:
        started = time.time()
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futures = [pool.submit(run_seed, a, seed, None, a.failures)
                       for seed in range(a.first, a.first + a.count)]
            for future in concurrent.futures.as_completed(futures):
                for r in future.result():
                    results.append(r)
                    print_result(r, verbose=False)
        summary = summarise(results)
        summary.update({"first_seed": a.first, "seeds": a.count, "seconds": round(time.time() - started)})
        print(json.dumps(summary, indent=1))
        if a.summary:
            with open(a.summary, "w") as f:
                json.dump({"summary": summary, "results": results}, f, indent=1)
    if a.mode != "campaign":
        s = summarise(results)
        print("programs %d, clsplit runs %d, launches %d, split %d, failures %d" % (
            s["programs"], s["clsplit_runs"], s["launches"], s["split_launches"], s["failures"]))
    return 0 if all(r["status"] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
