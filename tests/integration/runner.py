#!/usr/bin/env python3
"""Runs one integration program directly on PoCL (the reference) or through clsplit in one
configuration, and compares every output byte with the reference; also the clinfo check.

  runner.py reference --build B --work W --name N -- PROGRAM [ARGS...]
  runner.py compare   --build B --work W --name N --config C -- PROGRAM [ARGS...]
  runner.py clinfo    --build B --work W --config C
  runner.py launcher  --build B --work W --name N --config C -- PROGRAM [ARGS...]
                      (as compare, through `clsplit [options] -- PROGRAM`: the launcher sets up
                      the loader and settings itself)
  runner.py list-devices --build B --work W   (`clsplit --list-devices [--json|--indices T]` sees PoCL's devices)
  runner.py configs   (lists the configurations)

Exit status 0: passed; 1: failed; 77: skipped (a needed vendor is not installed).
Standard library only.
"""
import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys

SKIP = 77
RUN_TIMEOUT_S = 60  # every program takes seconds; a hang is a failure
POCL_ICD = "/etc/OpenCL/vendors/pocl.icd"
OCLGRIND_LIBRARY = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"
# Mesa's OpenCL 3.0 implementation (Debian mesa-opencl-icd) on llvmpipe: a third, independent
# CPU vendor, enabled by RUSTICL_ENABLE.
RUSTICL_LIBRARY = "/usr/lib/x86_64-linux-gnu/libRusticlOpenCL.so.1"

# name -> (vendor set, POCL_DEVICES, CLSPLIT_STRATEGY or None for the default, CLSPLIT_SINGLE_DEVICE)
# Vendor sets: "pocl" (PoCL only), "pocl+oclgrind" (Oclgrind's device is index 0: its .icd
# sorts first in the vendors directory) or "pocl+rusticl" (PoCL is 0, rusticl's llvmpipe 1).
CONFIGS = {
    "d1": ("pocl", "pthread", None, None),
    "d2-single0": ("pocl", "pthread pthread", "single", "0"),
    "d2-single1": ("pocl", "pthread pthread", "single", "1"),
    "d2-uniform": ("pocl", "pthread pthread", "uniform", None),
    "d2-static-1-0": ("pocl", "pthread pthread", "static:1,0", None),
    "d2-static-0-1": ("pocl", "pthread pthread", "static:0,1", None),
    "d2-static-3-7": ("pocl", "pthread pthread", "static:0.3,0.7", None),
    "d2-adaptive": ("pocl", "pthread pthread", "adaptive", None),
    "d2-adaptive-comm": ("pocl", "pthread pthread", "adaptive-comm", None),
    "d2-staging-static-3-7": ("pocl", "pthread pthread", "static:0.3,0.7", None),
    "d2-overlap-uniform": ("pocl", "pthread pthread", "uniform", None),
    "d3-overlap-static-3-3-4": ("pocl", "pthread pthread pthread", "static:0.3,0.3,0.4", None),
    "d1-twice-overlap-uniform": ("pocl", "pthread", "uniform", None),
    "d3-uniform": ("pocl", "pthread pthread pthread", "uniform", None),
    "d3-static-0-1-2": ("pocl", "pthread pthread pthread", "static:0,1,2", None),
    "d3-single2": ("pocl", "pthread pthread pthread", "single", "2"),
    "d3-single-named2": ("pocl", "pthread pthread pthread", "single:2", None),
    "d3-static-too-few": ("pocl", "pthread pthread pthread", "static:1,1", None),
    "d3-adaptive-comm": ("pocl", "pthread pthread pthread", "adaptive-comm", None),
    "d1-twice-uniform": ("pocl", "pthread", "uniform", None),
    "d1-twice-adaptive-comm": ("pocl", "pthread", "adaptive-comm", None),
    "oclgrind-uniform": ("pocl+oclgrind", "pthread", "uniform", None),
    "oclgrind-pocl-twice": ("pocl+oclgrind", "pthread", "static:0.45,0.45,0.1", None),
    "oclgrind-single0": ("pocl+oclgrind", "pthread", "single", "0"),
    "oclgrind-static-1-3": ("pocl+oclgrind", "pthread", "static:0.25,0.75", None),
    "rusticl-uniform": ("pocl+rusticl", "pthread", "uniform", None),
    "rusticl-static-1-3": ("pocl+rusticl", "pthread", "static:0.25,0.75", None),
    "rusticl-single1": ("pocl+rusticl", "pthread", "single", "1"),
    "nodevice": ("pocl", "pthread", None, None),
    "d2-as-gpu": ("pocl", "pthread pthread", None, None),
    "d1-submit": ("pocl", "pthread", None, None),
    "d2-single1-submit": ("pocl", "pthread pthread", "single", "1"),
    "d2-windows-static-3-7": ("pocl", "pthread pthread", "static:0.3,0.7", None),
    "d3-windows-capped": ("pocl", "pthread pthread pthread", "uniform", None),
    "d1-passthrough": ("pocl", "pthread", None, None),
    "d2-single1-passthrough": ("pocl", "pthread pthread", "single", "1"),
}
# Settings of some configurations beyond the above.
EXTRA_ENVIRONMENT = {
    "nodevice": {"CLSPLIT_DEVICES": "9"},  # selects nothing: the platform has no device
    "d2-as-gpu": {"CLSPLIT_DEVICE_TYPE": "gpu"},  # for programs that ask for GPUs only
    "d3-single-named2": {"CLSPLIT_DEVICES": "1,2"},  # device 2 is slot 1
    # One PoCL device selected twice (two slots of one real device), alone and with Oclgrind
    # (device 0) as a second vendor.
    "d1-twice-uniform": {"CLSPLIT_DEVICES": "0,0"},
    "d1-twice-adaptive-comm": {"CLSPLIT_DEVICES": "0,0"},
    "oclgrind-pocl-twice": {"CLSPLIT_DEVICES": "1,1,0"},
    # Copies between the devices through host memory, as between discrete GPUs, with host
    # versions pinned from a pool small enough that it evicts and falls back to pageable memory.
    "d2-staging-static-3-7": {"CLSPLIT_TEST_FORCE_STAGING": "1", "CLSPLIT_PINNED_MB": "2",
                              "CLSPLIT_HOST_PTR_SYNC": "2"},
    # Boundary-first launches: halo work-groups first, moves on a second queue per device
    # (through host memory as between GPUs; in-device copies between two slots of one device).
    "d2-overlap-uniform": {"CLSPLIT_TEST_FORCE_STAGING": "1", "CLSPLIT_OVERLAP": "on",
                           "CLSPLIT_HOST_PTR_SYNC": "2"},
    "d3-overlap-static-3-3-4": {"CLSPLIT_TEST_FORCE_STAGING": "1", "CLSPLIT_OVERLAP": "on",
                                "CLSPLIT_HOST_PTR_SYNC": "2"},
    "d1-twice-overlap-uniform": {"CLSPLIT_DEVICES": "0,0", "CLSPLIT_OVERLAP": "on"},
    # Launches enqueued by the submission thread (device/Submission.h; off by default).
    # Untimed report: a timed one gives every command an event, and those launches are not deferred.
    "d1-submit": {"CLSPLIT_SUBMIT_THREAD": "on", "CLSPLIT_REPORT_TIMING": "0"},
    "d2-single1-submit": {"CLSPLIT_SUBMIT_THREAD": "on", "CLSPLIT_REPORT_TIMING": "0"},
    # Devices hold only the bytes their slices use (windows), moved through host memory; and
    # devices with little memory for clsplit, whose copies are evicted to the host and shrunk.
    "d2-windows-static-3-7": {"CLSPLIT_WINDOWS": "always", "CLSPLIT_TEST_FORCE_STAGING": "1",
                              "CLSPLIT_HOST_PTR_SYNC": "2"},
    "d3-windows-capped": {"CLSPLIT_DEVICE_MEMORY": "1M", "CLSPLIT_HOST_PTR_SYNC": "2"},
    # One device runs everything: clsplit's layer on it (d1), and clsplit stepping aside, the
    # program handed PoCL's own platform (no run report: one would keep the layer).
    "d1": {"CLSPLIT_PASSTHROUGH": "off"},
    "d1-passthrough": {"CLSPLIT_LOG": "info"},
    # Stepping aside for one of PoCL's two devices: PoCL's platform, changed to list that device
    # alone (icd/api/OneDevicePlatform.cpp), every call going straight to PoCL.
    "d2-single1-passthrough": {"CLSPLIT_LOG": "info"},
}
# Configurations where clsplit steps aside (icd/config/PassThrough.h): what stderr must say, and
# the real platform clinfo must show instead of clsplit's.
PASSTHROUGH = {"d1-passthrough": "its calls go straight to the vendor",
               "d2-single1-passthrough": "lists that device alone of its 2"}
PASSTHROUGH_PLATFORM = "Portable Computing Language"
# Devices that do not share the host's memory (Oclgrind, forced staging) follow the program's
# own writes into CL_MEM_USE_HOST_PTR memory only when asked (buffers.cpp case 7 needs it).
for _name in ("oclgrind-uniform", "oclgrind-pocl-twice", "oclgrind-single0", "oclgrind-static-1-3"):
    EXTRA_ENVIRONMENT.setdefault(_name, {})["CLSPLIT_HOST_PTR_SYNC"] = "2"
# PoCL's pthread devices take turns (one pool of threads), and the adaptive strategies therefore
# leave them whole; these tests are about correct results, so their adaptive configurations
# split anyway, as they would between devices that run at once.
for _name, (_, _, _strategy, _) in CONFIGS.items():
    if _strategy in ("adaptive", "adaptive-comm"):
        EXTRA_ENVIRONMENT.setdefault(_name, {})["CLSPLIT_TEST_CONCURRENT_DEVICES"] = "1"
# What stderr must say in some configurations (a misconfiguration is explained, not fatal), and
# the strategy the run report then names (the one in effect).
EXPECTED_LOG = {
    "d3-static-too-few": "CLSPLIT_STRATEGY=static:1,1: static gives 2 ratios for 3 devices; using adaptive-comm",
}
STRATEGY_IN_EFFECT = {"d3-static-too-few": "adaptive-comm"}


def vendors_dir(work, vendor_set):
    """A vendors directory holding exactly the ICDs of `vendor_set` (None if one is missing)."""
    if not os.path.exists(POCL_ICD):
        return None
    if "oclgrind" in vendor_set and not os.path.exists(OCLGRIND_LIBRARY):
        return None
    if "rusticl" in vendor_set and not os.path.exists(RUSTICL_LIBRARY):
        return None
    path = os.path.join(work, "vendors-" + vendor_set.replace("+", "-"))
    os.makedirs(path, exist_ok=True)
    with open(POCL_ICD) as f:
        write_atomically(os.path.join(path, "pocl.icd"), f.read())
    if "oclgrind" in vendor_set:
        write_atomically(os.path.join(path, "oclgrind.icd"), OCLGRIND_LIBRARY + "\n")
    if "rusticl" in vendor_set:
        write_atomically(os.path.join(path, "rusticl.icd"), RUSTICL_LIBRARY + "\n")
    return path


def write_atomically(path, text):
    """Tests run in parallel (ctest -j) share these files: never show a half-written one."""
    temporary = "%s.%d.tmp" % (path, os.getpid())
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def base_environment(pocl_devices, work, cache):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CLSPLIT_") and not k.startswith("OCL_ICD_") and not k.startswith("POCL_")}
    env["POCL_DEVICES"] = pocl_devices
    env["POCL_MAX_PTHREAD_COUNT"] = "1"
    # PoCL's kernel cache per configuration: tests of other configurations (and the reference)
    # build the same programs at the same moment, and PoCL 3.1's cache is not safe for that (a
    # reloaded library binary failed to link now and then under ctest -j2/-j3).
    env["POCL_CACHE_DIR"] = os.path.join(work, "pocl-cache", cache)
    return env


def clsplit_environment(build, work, config):
    vendor_set, pocl_devices, strategy, single = CONFIGS[config]
    vendors = vendors_dir(work, vendor_set)
    if vendors is None:
        return None
    env = base_environment(pocl_devices, work, "clsplit-" + config)
    env["OCL_ICD_VENDORS"] = os.path.join(build, "vendors")
    env["CLSPLIT_VENDORS"] = vendors
    env["CLSPLIT_DEVICES"] = "all"
    env["CLSPLIT_CONFIG"] = "/dev/null"  # no user or system config file
    env["CLSPLIT_CACHE_DIR"] = os.path.join(work, "analysis-cache")
    if "rusticl" in vendor_set:
        env["RUSTICL_ENABLE"] = "llvmpipe"
    if strategy:
        env["CLSPLIT_STRATEGY"] = strategy
    if single:
        env["CLSPLIT_SINGLE_DEVICE"] = single
    env.update(EXTRA_ENVIRONMENT.get(config, {}))
    return env


def run(command, env):
    try:
        p = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=RUN_TIMEOUT_S)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        err = (e.stderr or b"").decode(errors="replace")
        return "timeout after %d s" % RUN_TIMEOUT_S, out, err


def tail(text, lines=40):
    parts = text.rstrip("\n").split("\n")
    return "\n".join(parts[-lines:])


def reference_path(work, name):
    return os.path.join(work, "reference", name + ".out")


def cmd_reference(a):
    if not os.path.exists(POCL_ICD):
        print("SKIP: PoCL is not installed (%s)" % POCL_ICD)
        return SKIP
    env = base_environment("pthread", a.work, "reference")
    env["OCL_ICD_VENDORS"] = vendors_dir(a.work, "pocl")
    rc, out, err = run(a.program, env)
    os.makedirs(os.path.dirname(reference_path(a.work, a.name)), exist_ok=True)
    if rc != 0:
        print("FAIL: the program fails on PoCL without clsplit (status %s): the test itself is broken" % rc)
        print(out)
        print("stderr:\n" + tail(err))
        return 1
    with open(reference_path(a.work, a.name), "w") as f:
        f.write(out)
    print(out, end="")
    print("reference: %d lines on PoCL" % out.count("\n"))
    return 0


def check_report(config, report_file):
    """What the run report must show for the configuration (device use of fixed strategies)."""
    problems, notes = [], []
    try:
        with open(report_file) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return ["no readable run report (%s)" % e], notes
    kernels = report.get("kernels", {})
    _, _, strategy, single = CONFIGS[config]
    in_effect = STRATEGY_IN_EFFECT.get(config, strategy or "adaptive-comm")
    if report.get("strategy") != in_effect:
        problems.append("the report names strategy %r, not %r" % (report.get("strategy"), in_effect))
    if strategy and strategy.startswith("single:"):  # a device index: its slot among those selected
        strategy, single = strategy.split(":")
        selected = EXTRA_ENVIRONMENT.get(config, {}).get("CLSPLIT_DEVICES", "all")
        if selected != "all":
            single = str(selected.split(",").index(single))
    launches = sum(k.get("launches", 0) for k in kernels.values())
    split = sum(k.get("split_launches", 0) for k in kernels.values())
    moved = report.get("transfers", {}).get("device_to_device_bytes", [])
    notes.append("launches %d, split %d, device-to-device bytes %s" % (launches, split, moved))
    devices = len(report.get("devices", [])) or None
    if config.endswith("-submit"):
        deferred = report.get("deferred_launches", 0)
        notes.append("launches deferred to the submission thread: %d" % deferred)
        # Most launches of a program that launches a kernel again and again (same shape, no
        # event asked for) leave their enqueue to the thread.
        if launches >= 100 and deferred < launches // 4:
            problems.append("only %d of %d launches were deferred to the submission thread" % (deferred, launches))
    for name, k in kernels.items():
        # Under uniform with two devices or more, a kernel a test names split_* splits every launch.
        if name.startswith("split_") and strategy == "uniform" and devices != 1:
            if k.get("launches", 0) == 0 or k.get("split_launches", 0) != k.get("launches", 0):
                problems.append("kernel %s split %s of %s launches under uniform (fallback: %s)" % (
                    name, k.get("split_launches"), k.get("launches"), k.get("fallback_reason")))
        # One a test names whole_* never splits, and the report says why.
        if name.startswith("whole_") and devices != 1 and strategy == "uniform":
            if k.get("split_launches", 0) != 0 or not k.get("fallback_reason"):
                problems.append("kernel %s: %s split launches, fallback reason %r (expected none split, a reason)" % (
                    name, k.get("split_launches"), k.get("fallback_reason")))
        # Boundary-first configurations: a halo_* kernel that splits writes what the other
        # devices fetched last time, so it launches those work-groups first.
        overlap = EXTRA_ENVIRONMENT.get(config, {}).get("CLSPLIT_OVERLAP") == "on"
        if overlap and name == "halo_copy" and k.get("split_launches", 0) > 10:
            if k.get("boundary_first_launches", 0) < k.get("split_launches", 0) // 2:
                problems.append("kernel %s: %s of %s split launches boundary-first (expected most)" % (
                    name, k.get("boundary_first_launches"), k.get("split_launches")))
        if name == "halo_stencil" and k.get("boundary_first_launches", 0):
            problems.append("kernel %s ran boundary-first though nothing fetches what it writes" % name)
        groups = k.get("groups_per_device", [])
        used = [i for i, g in enumerate(groups) if g]
        if strategy == "single" and used and used != [int(single)]:
            problems.append("kernel %s ran on slots %s, not only on the single device %s" % (name, used, single))
        if strategy and strategy.startswith("static:"):
            ratios = [float(r) for r in strategy[len("static:"):].split(",")]
            for slot in used:
                if slot < len(ratios) and ratios[slot] == 0:
                    problems.append("kernel %s ran groups on slot %d whose static share is 0" % (name, slot))
    return problems, notes


def cmd_compare(a):
    ref = reference_path(a.work, a.name)
    if not os.path.exists(ref):
        print("FAIL: no reference output (%s); run integration.%s.reference first" % (ref, a.name))
        return 1
    env = clsplit_environment(a.build, a.work, a.config)
    if env is None:
        print("SKIP: a vendor of configuration %s is not installed" % a.config)
        return SKIP
    report_file = os.path.join(a.work, "reports", "%s.%s.json" % (a.name, a.config))
    os.makedirs(os.path.dirname(report_file), exist_ok=True)
    if os.path.exists(report_file):
        os.remove(report_file)
    no_report = a.no_report or a.config in PASSTHROUGH
    if not no_report:
        env["CLSPLIT_REPORT"] = report_file
    rc, out, err = run(a.program, env)
    with open(ref) as f:
        expected = f.read()
    failed = False
    if out != expected:
        failed = True
        print("FAIL: output differs from the reference (PoCL without clsplit), configuration %s" % a.config)
        diff = difflib.unified_diff(expected.splitlines(), out.splitlines(), "reference", "clsplit " + a.config,
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:80]))
    if rc != 0:
        failed = True
        print("FAIL: exit status %s through clsplit" % rc)
    problems, notes = check_report(a.config, report_file) if rc == 0 and not no_report else ([], [])
    if a.config in PASSTHROUGH:
        if PASSTHROUGH[a.config] not in err:
            problems.append("clsplit did not step aside: stderr does not say '%s'" % PASSTHROUGH[a.config])
        # The program's side: what a program sees in the same environment is the real platform.
        seen = platforms_seen(a.build, env)
        if seen != [PASSTHROUGH_PLATFORM]:
            problems.append("a program sees the platforms %s, not %s alone" % (seen, PASSTHROUGH_PLATFORM))
    for p in problems:
        failed = True
        print("FAIL: run report: " + p)
    expected_log = EXPECTED_LOG.get(a.config)
    if expected_log and expected_log not in err:
        failed = True
        print("FAIL: stderr does not say: " + expected_log)
    for n in notes:
        print("report: " + n)
    if failed or err.strip():
        print("stderr:\n" + tail(err))
    if not failed:
        print("identical to the reference (%d lines), configuration %s" % (expected.count("\n"), a.config))
    return 1 if failed else 0


def platforms_seen(build, env):
    """The platform of every device `list-devices` (a bench program) sees under `env`, one entry
    per device (a device the program should not see shows as a second entry)."""
    rc, out, err = run([os.path.join(build, "bench", "bin", "list-devices")], env)
    try:
        return sorted(d["platform"] for d in json.loads(out)) if rc == 0 else ["exit %s: %s" % (rc, tail(err))]
    except ValueError:
        return ["not JSON: " + tail(out)]


# Whether clsplit steps aside (icd/config/PassThrough.h), seen from a program: configuration,
# extra settings, the platform of each device the program must see, what stderr must say.
PASSTHROUGH_CASES = [
    ("one PoCL device", "d1", {}, [PASSTHROUGH_PLATFORM], "its calls go straight to the vendor"),
    ("single on rusticl, the only device of its platform", "pocl+rusticl", {"CLSPLIT_STRATEGY": "single:1"},
     ["rusticl"], "its calls go straight to the vendor"),
    ("single on one of PoCL's two devices: a platform listing it alone", "d2",
     {"CLSPLIT_STRATEGY": "single"}, [PASSTHROUGH_PLATFORM], "lists that device alone of its 2"),
    ("one device selected twice", "d1-twice", {"CLSPLIT_DEVICES": "0,0"}, ["clsplit"], "device slot 1: [0]"),
    ("CLSPLIT_PASSTHROUGH=no", "d1", {"CLSPLIT_PASSTHROUGH": "no"}, ["clsplit"], "CLSPLIT_PASSTHROUGH=no"),
    ("an unknown CLSPLIT_PASSTHROUGH", "d1", {"CLSPLIT_PASSTHROUGH": "of"}, ["clsplit"],
     "CLSPLIT_PASSTHROUGH=of is not auto or off"),
    ("a run report asked for", "d1", {"CLSPLIT_REPORT": "REPORT"}, ["clsplit"], "CLSPLIT_REPORT is set"),
]


def cmd_passthrough(a):
    """Each PASSTHROUGH_CASES entry: the platforms a program sees, and the reason clsplit logs."""
    failed = False
    for what, setup, settings, expected, reason in PASSTHROUGH_CASES:
        vendor_set = "pocl+rusticl" if setup == "pocl+rusticl" else "pocl"
        pocl_devices = "pthread pthread" if setup == "d2" else "pthread"
        vendors = vendors_dir(a.work, vendor_set)
        if vendors is None:
            print("skipped (%s not installed): %s" % (vendor_set, what))
            continue
        env = base_environment(pocl_devices, a.work, "passthrough")
        env.update({"OCL_ICD_VENDORS": os.path.join(a.build, "vendors"), "CLSPLIT_VENDORS": vendors,
                    "CLSPLIT_CONFIG": "/dev/null", "CLSPLIT_LOG": "info",
                    "CLSPLIT_CACHE_DIR": os.path.join(a.work, "analysis-cache")})
        if "rusticl" in vendor_set:
            env["RUSTICL_ENABLE"] = "llvmpipe"
        env.update({k: v.replace("REPORT", os.path.join(a.work, "passthrough-report.json")) for k, v in settings.items()})
        rc, out, err = run([os.path.join(a.build, "bench", "bin", "list-devices")], env)
        try:
            seen = sorted(d["platform"] for d in json.loads(out)) if rc == 0 else None
        except ValueError:
            seen = None
        ok = seen == expected and reason in err
        print("%s %s: sees %s%s" % ("ok  " if ok else "FAIL", what, seen,
                                     "" if reason in err else "; stderr lacks '%s'" % reason))
        if not ok:
            failed = True
            print(tail(err))
    return 1 if failed else 0


def cmd_broken_vendor(a):
    """A vendor clsplit cannot start on: the program must see no platform and exit normally."""
    failed = False
    for mode in ("auto", "off"):
        env = base_environment("pthread", a.work, "broken-vendor")
        env.update({"OCL_ICD_VENDORS": os.path.join(a.build, "vendors"), "CLSPLIT_VENDORS": a.vendor_library,
                    "CLSPLIT_CONFIG": "/dev/null", "CLSPLIT_PASSTHROUGH": mode})
        rc, out, err = run([os.path.join(a.build, "bench", "bin", "list-devices")], env)
        crashed = not isinstance(rc, int) or rc < 0 or rc > 3 or "terminate called" in err
        seen = out.strip()
        ok = not crashed and seen in ("", "[]", "[\n]") or (not crashed and '"platform"' not in seen)
        print("%s CLSPLIT_PASSTHROUGH=%s: exit %s, stdout %r" % ("ok  " if ok else "FAIL", mode, rc, seen[:80]))
        if not ok:
            failed = True
            print(tail(err))
        # The order both loaders use: a lookup by name first (clsplit starts up there), then
        # clIcdGetPlatformIDsKHR, which must answer an error.
        probe = ("import ctypes, sys\n"
                 "lib = ctypes.CDLL(sys.argv[1])\n"
                 "lookup = lib.clGetExtensionFunctionAddress\n"
                 "lookup.restype, lookup.argtypes = ctypes.c_void_p, [ctypes.c_char_p]\n"
                 "print('lookup', lookup(b'clGetPlatformInfo'))\n"
                 "n = ctypes.c_uint(99)\n"
                 "print('platforms', lib.clIcdGetPlatformIDsKHR(0, None, ctypes.byref(n)), n.value)\n")
        rc, out, err = run([sys.executable, "-c", probe, os.path.join(a.build, "lib", "libclsplit.so")], env)
        ok = rc == 0 and "lookup None" in out and "platforms -6 99" in out
        print("%s lookup before start-up, CLSPLIT_PASSTHROUGH=%s: exit %s, %r" % ("ok  " if ok else "FAIL", mode, rc,
                                                                                 out.strip()))
        if not ok:
            failed = True
            print(tail(err))
    return 1 if failed else 0


def cmd_launcher(a):
    """compare, but through the `clsplit` launcher's options instead of environment variables."""
    launcher = os.path.join(a.build, "bin", "clsplit")
    if not os.path.exists(launcher):
        print("FAIL: no launcher at %s" % launcher)
        return 1
    vendor_set, pocl_devices, strategy, single = CONFIGS[a.config]
    vendors = vendors_dir(a.work, vendor_set)
    if vendors is None:
        print("SKIP: a vendor of configuration %s is not installed" % a.config)
        return SKIP
    report_file = os.path.join(a.work, "reports", "%s.launcher-%s.json" % (a.name, a.config))
    os.makedirs(os.path.dirname(report_file), exist_ok=True)
    if os.path.exists(report_file):
        os.remove(report_file)
    env = base_environment(pocl_devices, a.work, "launcher-" + a.config)
    env["CLSPLIT_CONFIG"] = "/dev/null"
    env["CLSPLIT_CACHE_DIR"] = os.path.join(a.work, "analysis-cache")
    if single:
        env["CLSPLIT_SINGLE_DEVICE"] = single
    command = [launcher, "--vendors", vendors, "--devices", "all", "--report", report_file]
    if strategy:
        command += ["--strategy", strategy]
    rc, out, err = run(command + ["--"] + a.program, env)
    with open(reference_path(a.work, a.name)) as f:
        expected = f.read()
    failed = False
    if out != expected:
        failed = True
        print("FAIL: output through the launcher differs from the reference, configuration %s" % a.config)
        diff = difflib.unified_diff(expected.splitlines(), out.splitlines(), "reference", "clsplit launcher",
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:80]))
    if rc != 0:
        failed = True
        print("FAIL: exit status %s through the launcher" % rc)
    if rc == 0:
        problems, notes = check_report(a.config, report_file)
        for p in problems:
            failed = True
            print("FAIL: run report: " + p)
        for n in notes:
            print("report: " + n)
    if failed or err.strip():
        print("stderr:\n" + tail(err))
    if not failed:
        print("identical to the reference through the launcher, configuration %s" % a.config)
    return 1 if failed else 0


def cmd_list_devices(a):
    launcher = os.path.join(a.build, "bin", "clsplit")
    vendors = vendors_dir(a.work, "pocl")
    if vendors is None:
        print("SKIP: PoCL is not installed")
        return SKIP
    env = base_environment("pthread pthread", a.work, "list-devices")
    env["CLSPLIT_VENDORS"] = vendors
    env["CLSPLIT_CONFIG"] = "/dev/null"
    failed = False
    rc, out, err = run([launcher, "--list-devices", "--json"], env)
    try:
        devices = json.loads(out)
    except ValueError as e:
        devices = None
        print("FAIL: --list-devices --json is not JSON (%s):\n%s" % (e, out))
    if rc != 0 or devices is None:
        failed = True
    else:
        print(json.dumps(devices, indent=1))
        pocl = [d for d in devices if "Portable" in d.get("platform", "")]
        if len(devices) != 2 or len(pocl) != 2 or [d.get("index") for d in devices] != [0, 1]:
            failed = True
            print("FAIL: expected PoCL's two devices with indices 0 and 1")
        if not all(d.get("selected") for d in devices):
            failed = True
            print("FAIL: the default selection (no GPU) must select every device")
    env["CLSPLIT_DEVICES"] = "1"
    rc, out, err = run([launcher, "--list-devices"], env)
    print(out)
    lines = [l for l in out.splitlines() if l.strip().startswith("[")]
    if rc != 0 or len(lines) != 2 or "(selected)" in lines[0] or "(selected)" not in lines[1]:
        failed = True
        print("FAIL: with CLSPLIT_DEVICES=1 only device 1 must be marked selected")
    # The scripts' way to find devices of a type (scripts/gpu-*.sh): indices, comma-separated.
    for kind, expected in (("cpu", "0,1"), ("all", "0,1"), ("gpu", "")):
        rc, out, err = run([launcher, "--list-devices", "--indices", kind], env)
        if rc != 0 or out.strip() != expected:
            failed = True
            print("FAIL: --list-devices --indices %s printed %r (status %d), expected %r" % (kind, out, rc, expected))
    rc, out, err = run([launcher, "--list-devices", "--indices", "fpga"], env)
    if rc == 0:
        failed = True
        print("FAIL: --indices fpga must be refused")
    return 1 if failed else 0


def cmd_clinfo(a):
    clinfo = shutil.which("clinfo")
    if not clinfo:
        print("SKIP: clinfo is not installed")
        return SKIP
    env = clsplit_environment(a.build, a.work, a.config)
    if env is None:
        print("SKIP: a vendor of configuration %s is not installed" % a.config)
        return SKIP
    failed = False
    for args in ([], ["-l"]):
        rc, out, err = run([clinfo] + args, env)
        what = "clinfo " + " ".join(args)
        print("%s: exit status %s, %d lines" % (what, rc, out.count("\n")))
        if rc != 0:
            failed = True
            print("FAIL: %s exit status %s\nstdout tail:\n%s\nstderr tail:\n%s" % (what, rc, tail(out), tail(err)))
            continue
        lines = out.splitlines()
        devices_expected = 0 if a.config == "nodevice" else 1
        # clsplit's platform and device, or (stepping aside) the real ones without clsplit's name.
        platform_name = PASSTHROUGH_PLATFORM if a.config in PASSTHROUGH else "clsplit"
        device_mark = "pthread-" if a.config in PASSTHROUGH else "clsplit ("
        if a.config in PASSTHROUGH and "clsplit" in out:
            failed = True
            print("FAIL: %s shows clsplit although it should step aside" % what)
        if args == ["-l"]:
            platforms = [l for l in lines if l.startswith("Platform #")]
            devices = [l for l in lines if "Device #" in l]
            ok = (len(platforms) == 1 and platform_name in platforms[0] and len(devices) == devices_expected
                  and all(device_mark in d for d in devices))
            print(out, end="")
        else:
            counts = [l.split()[-1] for l in lines if l.startswith("Number of devices")]
            ok = ("Number of platforms" in out and "Platform Name" in out and platform_name in out
                  and counts == [str(devices_expected)] and (devices_expected == 0 or device_mark in out))
            if a.config == "d2-as-gpu":
                types = [l for l in lines if l.strip().startswith("Device Type")]
                ok = ok and len(types) == 1 and types[0].split()[-1] == "GPU"
            for line in lines:
                if any(k in line for k in ("Number of platforms", "Platform Name", "Number of devices",
                                           "Device Name", "Device Version", "Device Type")):
                    print("  " + line.strip())
        if not ok:
            failed = True
            print("FAIL: %s does not show exactly one %s platform with %d device(s)%s" % (
                what, platform_name, devices_expected, " of type GPU" if a.config == "d2-as-gpu" else ""))
        if "error" in err.lower() or "critical" in err.lower():
            failed = True
            print("FAIL: %s logged errors:\n%s" % (what, tail(err)))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["reference", "compare", "clinfo", "launcher", "list-devices", "configs",
                                         "passthrough", "broken-vendor"])
    parser.add_argument("--build")
    parser.add_argument("--work")
    parser.add_argument("--name")
    parser.add_argument("--config", choices=sorted(CONFIGS))
    parser.add_argument("--no-report", action="store_true", help="run without CLSPLIT_REPORT (no report checks)")
    parser.add_argument("--vendor-library", help="broken-vendor: the broken ICD library")
    argv = sys.argv[1:]
    program = []
    if "--" in argv:  # everything after -- is the program and its arguments
        program = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    a = parser.parse_args(argv)
    a.program = program
    if a.mode == "configs":
        for name, (vendor_set, pocl, strategy, single) in CONFIGS.items():
            print("%-22s %-14s POCL_DEVICES=%-26s strategy=%s%s" % (
                name, vendor_set, '"%s"' % pocl, strategy or "(default)", " single=" + single if single else ""))
        return 0
    a.build = os.path.abspath(a.build)
    a.work = os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)
    return {"reference": cmd_reference, "compare": cmd_compare, "clinfo": cmd_clinfo, "launcher": cmd_launcher,
            "list-devices": cmd_list_devices, "passthrough": cmd_passthrough,
            "broken-vendor": cmd_broken_vendor}[a.mode](a)


if __name__ == "__main__":
    sys.exit(main())
