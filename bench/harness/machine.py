#!/usr/bin/env python3
"""The machine an experiment runs on: where the build's programs are, the vendors directories it
needs, the real devices, and the environments that run a program directly or through clsplit.

Build layouts: a CMake build (`--build build`: `bin/clsplit`, `lib/libclsplit.so`, `bench/bin/*`,
`tests/integration/bin/itest_*`) or an installed tree (`--build .device`, made by
scripts/gpu-bundle.sh from cmake/Install.cmake's components: `bin/clsplit`, `lib/` with the
libraries the GPU machine lacks, `bench/*`, `itest/itest_*`).

Vendors directories (one `.icd` file per library, written under a scratch directory):
  real     every real vendor: NVIDIA's library (not registered on the GPU machine) when the
           system has it, and PoCL's .icd; without either, every .icd of /etc/OpenCL/vendors;
           `--vendors` names them instead (a directory, .icd files or libraries, ':'-separated)
  gpu      the library of "the GPU": the first GPU-type device, else the first device
  cpu      the library of the first CPU-type device (else PoCL's)
  clsplit  clsplit alone (devices.clsplit_vendors_dir: the bundle's own when it names this
           machine's path)
Devices: `<build>/bin/clsplit --list-devices --json` with CLSPLIT_VENDORS = real (devices.py).
Without a GPU vendor (the development machine) PoCL runs as two one-core pthread devices unless
the caller set POCL_DEVICES / POCL_MAX_PTHREAD_COUNT, as the harness's smoke suite does.

    python3 bench/harness/machine.py --build .device [--dir /tmp/vendors] [--shell]

prints the layout, the vendors directories and the devices; with `--shell`, `export` lines for a
shell (`eval "$(python3 bench/harness/machine.py --build .device --dir /tmp/vendors --shell)"`).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devices as devs  # noqa: E402

NVIDIA_LIBRARY = "libnvidia-opencl.so.1"
SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")
# Debian's ocl-icd: on the GPU machine the CUDA toolkit's Khronos loader is found first otherwise.
OCL_ICD_DIR = Path("/usr/lib/x86_64-linux-gnu")
DEV_MACHINE_POCL = {"POCL_DEVICES": "pthread pthread", "POCL_MAX_PTHREAD_COUNT": "1"}
# Outputs an experiment asks for itself; a caller's setting would send them elsewhere.
OWN_OUTPUTS = ("CLSPLIT_REPORT", "CLSPLIT_TRACE", "CLSPLIT_SUMMARY")


def installed_prefix() -> Path | None:
    """The install prefix when this file runs from one (<prefix>/share/clsplit/harness)."""
    here = Path(__file__).resolve().parent
    prefix = here.parents[2] if len(here.parents) > 2 else None
    if here.parent.name == "clsplit" and here.parent.parent.name == "share" and prefix \
            and (prefix / "bin" / "clsplit").is_file():
        return prefix
    return None


def default_build() -> Path:
    return installed_prefix() or Path("build")


def nvidia_present() -> bool:
    """Whether NVIDIA's OpenCL library can be loaded (registered or not)."""
    if any(SYSTEM_VENDORS.glob("*nvidia*.icd")):
        return True
    try:
        listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        listing = ""
    return NVIDIA_LIBRARY in listing or any(
        (Path(d) / NVIDIA_LIBRARY).exists() for d in (OCL_ICD_DIR, "/usr/lib64", "/usr/lib"))


def pocl_icd() -> Path | None:
    found = sorted(SYSTEM_VENDORS.glob("*pocl*.icd"))
    return found[0] if found else None


def real_vendor_files(spec: str | None, warn=lambda text: None) -> list[tuple[str, str]]:
    """(.icd file name, library) of every real vendor, in clsplit's order (sorted file names).
    A vendor `spec` names that does not exist ends the experiment (it would run on other vendors
    than asked); `warn` says where the default search fell back to what was there."""
    if spec:
        for entry in (e.strip() for e in spec.split(":") if e.strip()):
            libraries = devs.libraries_of(entry)
            absent = [lib for lib in libraries if "/" in lib and not Path(lib).exists()]
            if absent:
                raise SystemExit(f"error: --vendors {entry}: {', '.join(absent)} does not exist")
            if not libraries:
                raise SystemExit(f"error: --vendors {entry}: names no vendor (a missing .icd file, a directory "
                                 "without one, or an .icd file naming no library)")
        # The caller's order: numbered names keep it.
        return [(f"{i}-{Path(lib).name.split('.so')[0]}.icd", lib)
                for i, lib in enumerate(devs.libraries_of(spec))]
    files = []
    if nvidia_present():
        files.append(("nvidia.icd", NVIDIA_LIBRARY))
    pocl = pocl_icd()
    if pocl is not None:
        files.append((pocl.name, devs.libraries_of(str(pocl))[0]))
    if not files:
        files = [(icd.name, lib) for icd in sorted(SYSTEM_VENDORS.glob("*.icd"))
                 for lib in devs.libraries_of(str(icd))]
        warn(f"neither NVIDIA's {NVIDIA_LIBRARY} nor PoCL's .icd found: using every vendor of {SYSTEM_VENDORS} "
             f"({', '.join(lib for _, lib in files) or 'none'})")
    return files


def static_strategy(first: float, devices: int) -> str:
    """CLSPLIT_STRATEGY `static` over `devices` selected devices, `first` of the work on the first
    and the rest shared evenly by the others: clsplit needs one ratio per selected device (else it
    logs an error and runs adaptive-comm)."""
    if devices <= 1:
        return "static:1"
    return "static:" + ",".join(["%g" % first] + ["%g" % ((1 - first) / (devices - 1))] * (devices - 1))


def write_vendors(directory: Path, files: list[tuple[str, str]]) -> Path:
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    for name, library in files:
        (directory / name).write_text(library + "\n")
    return directory


def library_path(build: Path, ocl_icd_first: bool, caller: str | None) -> str:
    parts = [str(build / "lib")]
    if ocl_icd_first and OCL_ICD_DIR.is_dir():
        parts.append(str(OCL_ICD_DIR))
    if caller:
        parts.append(caller)
    return ":".join(parts)


class Machine:
    """The build, vendors directories, devices and run environments of one experiment."""

    def __init__(self, build: Path, scratch: Path, vendors: str | None = None, env: list[str] = (),
                 ocl_icd_first: bool = False):
        self.build = build.resolve()
        if not (self.build / "bin" / "clsplit").is_file():
            raise SystemExit(f"error: {self.build}/bin/clsplit missing: --build names a clsplit build "
                             "or an installed tree (.device/ from scripts/gpu-bundle.sh)")
        self.launcher = self.build / "bin" / "clsplit"
        self.library = self.build / "lib" / "libclsplit.so"
        self.bench = devs.bench_bin(self.build)
        self.itest = next((d for d in (self.build / "itest", self.build / "tests" / "integration" / "bin")
                           if d.is_dir()), self.build / "itest")
        self.scratch = scratch
        scratch.mkdir(parents=True, exist_ok=True)
        self.clsplit_vendors = devs.clsplit_vendors_dir(self.build, scratch)
        # Each fallback from what was asked to what is there: one line on stderr (warn).
        self.warnings: list[str] = []
        real_files = real_vendor_files(vendors, self.warn)
        if not real_files:
            raise SystemExit("error: no real OpenCL vendor found (--vendors names them)")
        self.real = write_vendors(scratch / "vendors-real", real_files)
        self.gpu_vendor_present = any(Path(lib).name == NVIDIA_LIBRARY for _, lib in real_files)

        # The environment every run starts from: the caller's, without the loader settings and
        # outputs each run sets itself, the build's libraries first.
        base = {k: v for k, v in os.environ.items()
                if k not in ("OCL_ICD_VENDORS", "OCL_ICD_FILENAMES") + OWN_OUTPUTS}
        base["LD_LIBRARY_PATH"] = library_path(self.build, ocl_icd_first, os.environ.get("LD_LIBRARY_PATH"))
        self.pocl_defaults = {}
        if not self.gpu_vendor_present:
            self.pocl_defaults = {k: v for k, v in DEV_MACHINE_POCL.items() if k not in base}
            base.update(self.pocl_defaults)
        # Then --env's KEY=VALUE; clsplit finds the real vendors unless --env says otherwise.
        overrides = {}
        for item in env:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise SystemExit(f"error: --env {item!r}: expected KEY=VALUE")
            overrides[key] = value
        base["CLSPLIT_VENDORS"] = str(self.real)
        base.update(overrides)
        self.base = base

        try:
            self.devices, self.lister = devs.list_devices(self.build, self.bench, dict(base),
                                                          devs.clsplit_library(self.clsplit_vendors))
        except devs.DeviceListError as error:
            raise SystemExit(f"error: cannot list devices: {error}")
        if not self.devices:
            raise SystemExit(f"error: no OpenCL device through {self.real} (check POCL_DEVICES, --vendors)")
        gpus = [d for d in self.devices if d.type.upper() == "GPU"]
        self.has_gpu = bool(gpus)
        # "The GPU": the first GPU, else the first device (the development machine's PoCL).
        self.gpus = gpus or [self.devices[0]]
        self.gpu = self.gpus[0]
        if not self.has_gpu:
            why = f"{NVIDIA_LIBRARY} is among the vendors but lists no GPU" if self.gpu_vendor_present \
                else "no GPU among the devices"
            self.warn(f"{why}: \"the GPU\" is device {self.gpu.index}, [{self.gpu.type}] {self.gpu.name} "
                      f"({self.gpu.platform})")
        cpus = [d for d in self.devices if d.is_cpu]
        # The CPU beside the GPU: a CPU-type device other than "the GPU".
        self.cpu = next((d for d in cpus if d.index != self.gpu.index), None)
        if self.cpu is None:
            self.warn(f"no CPU device besides the GPU: GPU+CPU runs use every device ({len(self.devices)})")
        self.gpu_vendors = write_vendors(scratch / "vendors-gpu", [("gpu.icd", self.gpu.icd)]) \
            if self.gpu.icd else self.real
        if not self.gpu.icd:
            self.warn(f"the device list names no library for the GPU (device {self.gpu.index}): direct runs on "
                      f"\"the GPU\" see every real vendor ({self.real}) and take their first device")
        cpu_library = cpus[0].icd if cpus and cpus[0].icd else None
        if cpu_library is None and pocl_icd() is not None:
            cpu_library = devs.libraries_of(str(pocl_icd()))[0]
            self.warn(f"no CPU device with a known library: the CPU's vendor is PoCL's ({cpu_library})")
        self.cpu_vendors = write_vendors(scratch / "vendors-cpu", [("cpu.icd", cpu_library)]) \
            if cpu_library else self.real
        if not cpu_library:
            self.warn(f"no CPU device with a known library and no PoCL: the CPU's vendors are every real vendor "
                      f"({self.real})")

    def warn(self, text: str) -> None:
        """A fallback from what was asked to what is used: said on stderr at once (the experiment's
        output may be read without the set-up) and kept in `warnings`."""
        self.warnings.append(text)
        print(f"machine: warning: {text}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ device sets
    @property
    def gpu_indices(self) -> str:
        """CLSPLIT_DEVICES for every GPU (the first device without one)."""
        return ",".join(str(d.index) for d in self.gpus)

    @property
    def gpu_and_cpu(self) -> str:
        """CLSPLIT_DEVICES for the GPU and the CPU beside it (every device when there is no CPU)."""
        return f"{self.gpu.index},{self.cpu.index}" if self.cpu else "all"

    @property
    def gpu_and_cpu_count(self) -> int:
        """How many devices gpu_and_cpu selects (static ratios need one per device)."""
        return 2 if self.cpu else len(self.devices)

    # ------------------------------------------------------------------ environments
    def env(self, **settings: str | None) -> dict[str, str]:
        """The base environment with `settings` (None removes a variable)."""
        env = dict(self.base)
        for key, value in settings.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = str(value)
        return env

    def direct_env(self, vendors: Path | None = None, **settings: str | None) -> dict[str, str]:
        """A program sees the vendors of `vendors` alone (default: the GPU's), under either loader:
        ocl-icd reads OCL_ICD_VENDORS, the Khronos loader (first on the GPU machine unless ocl-icd
        is put first) OCL_ICD_FILENAMES."""
        vendors = vendors or self.gpu_vendors
        libraries = ":".join(devs.libraries_of(str(vendors)))
        return self.env(OCL_ICD_VENDORS=str(vendors), OCL_ICD_FILENAMES=libraries, **settings)

    def clsplit_env(self, devices: str | None = None, strategy: str | None = None,
                    **settings: str | None) -> dict[str, str]:
        """A program sees clsplit alone (both loaders), clsplit the real vendors; `devices` and
        `strategy` set CLSPLIT_DEVICES and CLSPLIT_STRATEGY (None: the caller's or the default)."""
        chosen = {}
        if devices is not None:
            chosen["CLSPLIT_DEVICES"] = devices
        if strategy is not None:
            chosen["CLSPLIT_STRATEGY"] = strategy
        return self.env(OCL_ICD_VENDORS=str(self.clsplit_vendors),
                        OCL_ICD_FILENAMES=devs.clsplit_library(self.clsplit_vendors), **chosen, **settings)

    def program(self, name: str, *args: object) -> list[str]:
        """A bench program's command line."""
        return [str(self.bench / name), *(str(a) for a in args)]

    def through_launcher(self, command: list[str]) -> list[str]:
        """`clsplit -- command`: the launcher sets both loaders' variables itself."""
        return [str(self.launcher), "--", *command]

    # ------------------------------------------------------------------ description
    def describe(self) -> str:
        def vendors(d: Path) -> str:
            return ", ".join(f"{icd.name}={lib}" for icd in sorted(d.glob("*.icd"))
                             for lib in devs.libraries_of(str(icd)))
        lines = [f"build {self.build} (programs {self.bench}, integration programs {self.itest})",
                 f"vendors: real {self.real} [{vendors(self.real)}]; GPU's {self.gpu_vendors}; "
                 f"CPU's {self.cpu_vendors}; clsplit {self.clsplit_vendors}",
                 f"devices (from {self.lister}):"]
        lines += [f"  {d.index}: [{d.type}] {d.name} | {d.platform} | icd={d.icd}" for d in self.devices]
        lines.append(f"GPU = device {self.gpu.index}" + ("" if self.has_gpu else " (no GPU: the first device)")
                     + (f", CPU = device {self.cpu.index}" if self.cpu else ", no other CPU device"))
        if self.pocl_defaults:
            lines.append("no GPU vendor: " + " ".join(f"{k}={shlex.quote(v)}" for k, v in self.pocl_defaults.items()))
        return "\n".join(lines)

    def shell(self) -> str:
        values = {"D": self.build, "VENDORS_REAL": self.real, "VENDORS_GPU": self.gpu_vendors,
                  "VENDORS_CPU": self.cpu_vendors, "VENDORS_CLSPLIT": self.clsplit_vendors,
                  "CLSPLIT_VENDORS": self.real, "GPU": self.gpu.index, "GPUS": self.gpu_indices,
                  "GPU_AND_CPU": self.gpu_and_cpu, "LD_LIBRARY_PATH": self.base["LD_LIBRARY_PATH"],
                  **self.pocl_defaults}
        return "\n".join(f"export {k}={shlex.quote(str(v))}" for k, v in values.items())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=default_build(),
                        help="a clsplit build or installed tree (default: %(default)s)")
    parser.add_argument("--vendors", default=None, help="the real vendors (default: found on this machine)")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to write the vendors directories (default: a temporary one, removed)")
    parser.add_argument("--ocl-icd-first", action="store_true", help="Debian's ocl-icd first on the library path")
    parser.add_argument("--shell", action="store_true", help="print export lines instead")
    args = parser.parse_args(argv)
    scratch = args.dir or Path(tempfile.mkdtemp(prefix="clsplit-machine-"))
    try:
        machine = Machine(args.build, scratch.resolve(), args.vendors, ocl_icd_first=args.ocl_icd_first)
        print(machine.shell() if args.shell else machine.describe())
    finally:
        if args.dir is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
