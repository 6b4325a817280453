"""The real OpenCL devices, and how to run an unmodified program on exactly one of them.

Device list: `<build>/bin/clsplit --list-devices --json` when clsplit is built (its indices are the
ones CLSPLIT_DEVICES takes); when only the ICD library is built, bench's list-devices run on each
library of CLSPLIT_VENDORS in clsplit's order (sorted .icd files, as device/Vendors.cpp does); without
clsplit, `<build>/bench/bin/list-devices` under the caller's loader (same format, "icd": null).

Direct run on device d: when the list names the device's ICD library, a private vendors directory
holding only that library (OCL_ICD_VENDORS for ocl-icd, OCL_ICD_FILENAMES for the Khronos loader)
makes it platform 0 and the program gets `--platform 0 --device <device_index>`; otherwise the
program gets `--platform <platform_index> --device <device_index>` under the caller's environment.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Device:
    index: int
    name: str
    platform: str
    type: str
    platform_index: int
    device_index: int
    icd: str | None = None
    compute_units: int | None = None
    vendor: str | None = None
    # Platform index within the ICD library alone (known when the list was built per library).
    library_platform_index: int | None = None

    @property
    def label(self) -> str:
        short = self.name if len(self.name) <= 28 else self.name[:25] + "..."
        return f"{self.index}:{self.type}:{short}"

    @property
    def is_cpu(self) -> bool:
        return self.type.upper() == "CPU"


class DeviceListError(RuntimeError):
    pass


def clsplit_launcher(build: Path) -> Path:
    return build / "bin" / "clsplit"


def bench_bin(build: Path) -> Path:
    """Where the workload binaries are: <build>/bench/bin (a CMake build), or <build>/bench (the
    layout of scripts/gpu-bundle.sh)."""
    for candidate in (build / "bench" / "bin", build / "bench"):
        if (candidate / "list-devices").is_file():
            return candidate
    return build / "bench" / "bin"


def clsplit_vendors_dir(build: Path, scratch: Path) -> Path:
    """The vendors directory holding only clsplit.icd: <build>/vendors, or, for a bundle that has
    <build>/lib/libclsplit.so but no vendors directory, or one naming the library where it was
    installed on another machine (cmake --install writes absolute paths), one written into
    `scratch`."""
    own = build / "vendors"
    library = build / "lib" / "libclsplit.so"
    named = clsplit_library(own)
    if library.is_file() and not (named and Path(named).is_file() and Path(named).resolve() == library.resolve()):
        own = scratch / "clsplit-vendors"
        own.mkdir(parents=True, exist_ok=True)
        (own / "clsplit.icd").write_text(f"{library.resolve()}\n")
    return own


def clsplit_library(vendors: Path) -> str:
    icd = vendors / "clsplit.icd"
    text = icd.read_text().strip() if icd.is_file() else ""
    return text.splitlines()[0].strip() if text else ""


def clsplit_available(vendors: Path) -> tuple[bool, str]:
    """Whether clsplit runs are possible, and why not."""
    icd = vendors / "clsplit.icd"
    if not icd.is_file():
        return False, f"{icd} missing (clsplit not built)"
    library = clsplit_library(vendors)
    # The .icd file is written at configure time; the library it names may not be built yet.
    if not library or ("/" in library and not Path(library).is_file()):
        return False, f"{icd} names {library or 'nothing'}, which is not built"
    return True, ""


def clsplit_vendor_spec(env: dict[str, str]) -> str:
    """Where clsplit looks for the real vendors (CLSPLIT_VENDORS), as the harness will set it."""
    return env.get("CLSPLIT_VENDORS") or env.get("OCL_ICD_VENDORS") or "/etc/OpenCL/vendors"


def libraries_of(spec: str) -> list[str]:
    """device/Vendors.cpp's librariesOf: a vendors directory (its .icd files sorted by name), .icd
    files, or library names, ':'-separated."""
    libraries = []
    for entry in (e.strip() for e in spec.split(":")):
        if not entry:
            continue
        path = Path(entry)
        if path.is_dir():
            for icd in sorted(path.glob("*.icd")):
                lines = [l.strip() for l in icd.read_text(errors="replace").splitlines() if l.strip()]
                if lines:
                    libraries.append(lines[0])
        elif path.suffix == ".icd":
            lines = [l.strip() for l in path.read_text(errors="replace").splitlines() if l.strip()] \
                if path.is_file() else []
            if lines:
                libraries.append(lines[0])
        else:
            libraries.append(entry)
    return libraries


def _parse(text: str, source: str) -> list[Device]:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise DeviceListError(f"{source} printed invalid JSON: {error}") from error
    if not isinstance(raw, list):
        raise DeviceListError(f"{source}: expected a JSON list of devices")
    devices = []
    for position, item in enumerate(raw):
        try:
            devices.append(Device(
                index=int(item.get("index", position)),
                name=str(item.get("name", "?")),
                platform=str(item.get("platform", "?")),
                type=str(item.get("type", "OTHER")),
                platform_index=int(item.get("platform_index", 0)),
                device_index=int(item.get("device_index", position)),
                icd=item.get("icd") or None,
                compute_units=item.get("compute_units"),
                vendor=item.get("vendor"),
            ))
        except (TypeError, ValueError, AttributeError) as error:
            raise DeviceListError(f"{source}: bad device entry {item!r}: {error}") from error
    return devices


def list_devices_per_library(binaries: Path, env: dict[str, str], own: str) -> tuple[list[Device], str]:
    """The devices in clsplit's order without its launcher: the libraries of CLSPLIT_VENDORS in
    clsplit's order (sorted .icd files), each listed alone by bench's list-devices; `own` is
    clsplit's library (skipped, as clsplit skips itself)."""
    lister = binaries / "list-devices"
    spec = clsplit_vendor_spec(env)
    devices: list[Device] = []
    platform_base = 0
    for library in libraries_of(spec):
        name = Path(library).name
        if name.startswith("libOpenCL") or library == own or name.startswith("libclsplit"):
            continue
        alone = dict(env, OCL_ICD_VENDORS=library, OCL_ICD_FILENAMES=library)
        try:
            done = subprocess.run([str(lister)], env=alone, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise DeviceListError(f"{lister} with {library}: {error}") from error
        if done.returncode != 0:
            raise DeviceListError(f"{lister} with {library} exited {done.returncode}: {done.stderr[-300:]}")
        found = _parse(done.stdout, f"{lister} ({library})")
        for d in found:
            devices.append(Device(index=len(devices), name=d.name, platform=d.platform, type=d.type,
                                  platform_index=platform_base + d.platform_index, device_index=d.device_index,
                                  icd=library, compute_units=d.compute_units, vendor=d.vendor,
                                  library_platform_index=d.platform_index))
        platform_base += len({d.platform_index for d in found})
    return devices, f"{lister} per library of CLSPLIT_VENDORS={spec} (clsplit's order; no launcher)"


def list_devices(build: Path, binaries: Path, env: dict[str, str], clsplit_library_path: str | None
                 ) -> tuple[list[Device], str]:
    """Returns the devices and the command that listed them; `clsplit_library_path` is None when
    clsplit is not available."""
    if clsplit_library_path is not None and not clsplit_launcher(build).is_file():
        return list_devices_per_library(binaries, env, clsplit_library_path)
    candidates = []
    if clsplit_library_path is not None:
        candidates.append([str(clsplit_launcher(build)), "--list-devices", "--json"])
    candidates.append([str(binaries / "list-devices")])
    errors = []
    for command in candidates:
        if not Path(command[0]).is_file():
            errors.append(f"{command[0]} missing")
            continue
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            errors.append(f"{' '.join(command)}: {error}")
            continue
        if done.returncode != 0:
            errors.append(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
            continue
        return _parse(done.stdout, " ".join(command)), " ".join(command)
    raise DeviceListError("; ".join(errors) or "no device lister")


def direct_launch(device: Device, scratch: Path, base_env: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Environment and device arguments that make an ordinary program use only `device`."""
    env = dict(base_env)
    if device.icd:
        vendors = scratch / f"vendors-device{device.index}"
        vendors.mkdir(parents=True, exist_ok=True)
        (vendors / "device.icd").write_text(device.icd + "\n")
        env["OCL_ICD_VENDORS"] = str(vendors)
        env["OCL_ICD_FILENAMES"] = device.icd
        # One platform per ICD library is the norm; a per-library listing knows better.
        platform_index = device.library_platform_index or 0
        return env, ["--platform", str(platform_index), "--device", str(device.device_index)]
    return env, ["--platform", str(device.platform_index), "--device", str(device.device_index)]


def parse_device_set(text: str, devices: list[Device]) -> list[Device]:
    """'all', 'gpus' (every GPU-type device), 'cpus', 'gpu-twice' (the first GPU selected twice: two
    clsplit devices on one real device), or a comma-separated list of device indices (an index listed
    twice is selected twice)."""
    keyword = text.strip()
    if keyword == "all":
        return list(devices)
    if keyword == "gpu-twice":
        gpus = [d for d in devices if d.type.upper() == "GPU"]
        if not gpus:
            raise DeviceListError("device set 'gpu-twice': no GPU device")
        return [gpus[0], gpus[0]]
    if keyword in ("gpus", "cpus"):
        wanted = "GPU" if keyword == "gpus" else "CPU"
        chosen = [d for d in devices if d.type.upper() == wanted]
        if not chosen:
            raise DeviceListError(f"device set {keyword!r}: no {wanted} device")
        return chosen
    by_index = {d.index: d for d in devices}
    chosen = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            index = int(part)
        except ValueError as error:
            raise DeviceListError(f"device set {text!r}: {part!r} is not an index") from error
        if index not in by_index:
            raise DeviceListError(f"device set {text!r}: no device {index} (have {sorted(by_index)})")
        chosen.append(by_index[index])
    if not chosen:
        raise DeviceListError(f"device set {text!r} is empty")
    return chosen


def environment_with(defaults: dict[str, str], overrides: list[str]) -> dict[str, str]:
    """The caller's environment, plus suite defaults it lacks, plus explicit KEY=VALUE overrides."""
    env = dict(os.environ)
    for key, value in defaults.items():
        env.setdefault(key, value)
    for item in overrides:
        if "=" not in item:
            raise ValueError(f"--env {item!r}: expected KEY=VALUE")
        key, value = item.split("=", 1)
        env[key] = value
    return env
