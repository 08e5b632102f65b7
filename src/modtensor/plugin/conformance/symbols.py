"""Will a plugin's symbols resolve against modtensor? Answered from the files, before anything is loaded.

A plugin loaded by modtensor resolves each undefined symbol in the process's global scope (the
Python executable and its libraries, modtensor's shim ``libmodtensor_framework.so`` and its
``_pywrap_tensorflow_internal.so``, both loaded with ``RTLD_GLOBAL``) and in its own ``NEEDED``
libraries, found the dynamic linker's way (``DT_RPATH``, ``LD_LIBRARY_PATH``, ``DT_RUNPATH``, the
``ld.so`` cache, the default folders). This module follows the same rules over the ELF files of
the plugin and its ``NEEDED`` closure and reports, per library, which undefined symbols modtensor
provides, which other libraries provide, and which nothing provides (the load would fail with
``undefined symbol``). Libraries a plugin opens itself with ``dlopen`` are not visible here.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modtensor.plugin.conformance.elf import ElfError, ElfInfo, read_elf

__all__ = ["LibraryReport", "SymbolReport", "check_symbols", "modtensor_exports"]

# Prefixes of TensorFlow's C API families: the symbols a plugin may expect from "TensorFlow".
C_API_PREFIXES = ("TF_", "TFE_", "TSL_", "SE_", "SP_", "TP_", "TFNPD_")
# Names under which a plugin may need TensorFlow's libraries, and what modtensor makes of them.
PROVIDED_NAMES = ("libmodtensor_framework.so", "_pywrap_tensorflow_internal.so")
TENSORFLOW_LIBRARIES = re.compile(r"^libtensorflow(_framework|_cc)?\.so(\.\d+)*$")
_DEFAULT_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
_MAX_LIBRARIES = 64  # a NEEDED closure larger than this is cut (and says so)


@dataclass
class LibraryReport:
    """One library of the plugin's NEEDED closure: what it needs and where each need is met."""

    path: str
    needed_by: str
    undefined: int = 0
    from_modtensor: list[str] = field(default_factory=list)  # C API symbols modtensor's libraries export
    from_libraries: int = 0  # resolved by the executable, system or the plugin's own libraries
    unresolved: list[str] = field(default_factory=list)
    weak_unresolved: int = 0

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly description."""
        return {
            "path": self.path,
            "needed_by": self.needed_by,
            "undefined": self.undefined,
            "from_modtensor": sorted(self.from_modtensor),
            "from_other_libraries": self.from_libraries,
            "unresolved": sorted(self.unresolved),
            "weak_unresolved": self.weak_unresolved,
        }


@dataclass
class SymbolReport:
    """The plugin file's architecture, exported entry points, NEEDED libraries and symbol resolution."""

    path: str
    machine: str = ""
    error: str = ""
    entry_points: list[str] = field(default_factory=list)
    needed: list[dict[str, str]] = field(default_factory=list)  # {"name", "requested_by", "found": path or ""}
    libraries: list[LibraryReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every strong reference resolves and every NEEDED library was found."""
        return not self.error and not self.problems

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly description (``modtensor check --json``)."""
        return {
            "ok": self.ok,
            "machine": self.machine,
            "error": self.error,
            "entry_points": self.entry_points,
            "needed": self.needed,
            "libraries": [lib.summary() for lib in self.libraries],
            "problems": self.problems,
        }


@functools.lru_cache(maxsize=1)
def modtensor_exports() -> dict[str, frozenset[str]]:
    """The dynamic symbols modtensor's shim and compatibility library export, by file."""
    from modtensor.plugin.native import COMPAT_FILE, shim_path

    shim = shim_path()
    out: dict[str, frozenset[str]] = {}
    for path in (shim, shim.parent / COMPAT_FILE):
        if path.is_file():
            out[str(path)] = frozenset(read_elf(path).defined)
    return out


@functools.lru_cache(maxsize=1)
def _ld_cache() -> dict[str, list[str]]:
    """soname -> paths from ``ldconfig -p`` (empty when ldconfig is not there)."""
    for ldconfig in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        try:
            done = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        out: dict[str, list[str]] = {}
        for line in done.stdout.splitlines()[1:]:
            name, _, path = line.strip().partition(" => ")
            if path:
                out.setdefault(name.split(" (")[0], []).append(path.strip())
        return out
    return {}


def _multiarch_dirs() -> list[str]:
    machine = platform.machine()
    triple = {"x86_64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu"}.get(machine, f"{machine}-linux-gnu")
    return [f"/lib/{triple}", f"/usr/lib/{triple}", *_DEFAULT_DIRS]


def _expand(entry: str, origin: str) -> str:
    lib = "lib64" if sys.maxsize > 2**32 else "lib"
    for token, value in (("$ORIGIN", origin), ("${ORIGIN}", origin), ("$LIB", lib), ("${LIB}", lib)):
        entry = entry.replace(token, value)
    return entry


def _find_library(name: str, requester: ElfInfo, machine: str) -> str:
    """Where the dynamic linker would find NEEDED ``name`` for ``requester`` ("" when nowhere)."""
    if "/" in name:
        return name if os.path.isfile(name) else ""
    origin = os.path.dirname(os.path.realpath(requester.path))
    folders: list[str] = []
    if not requester.runpath:
        folders += [_expand(p, origin) for p in requester.rpath]
    folders += [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    folders += [_expand(p, origin) for p in requester.runpath]
    for folder in folders:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and _same_machine(candidate, machine):
            return candidate
    for candidate in _ld_cache().get(name, []):
        if os.path.isfile(candidate) and _same_machine(candidate, machine):
            return candidate
    for folder in _multiarch_dirs():
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and _same_machine(candidate, machine):
            return candidate
    return ""


@functools.lru_cache(maxsize=256)
def _elf(path: str) -> ElfInfo:
    return read_elf(path)


def _same_machine(path: str, machine: str) -> bool:
    try:
        return _elf(os.path.realpath(path)).machine == machine
    except (ElfError, OSError):
        return False


def _closure(root: ElfInfo, machine: str, provided: set[str]) -> tuple[list[tuple[ElfInfo, str]], list[dict]]:
    """The NEEDED closure of ``root`` (breadth first, each library once) and the NEEDED entries found."""
    libraries: list[tuple[ElfInfo, str]] = [(root, "")]
    needed: list[dict[str, str]] = []
    seen = {os.path.realpath(root.path)}
    queue = [root]
    while queue and len(libraries) < _MAX_LIBRARIES:
        lib = queue.pop(0)
        for name in lib.needed:
            if name in provided:
                needed.append({"name": name, "requested_by": lib.path, "found": "modtensor"})
                continue
            path = _find_library(name, lib, machine)
            needed.append({"name": name, "requested_by": lib.path, "found": path})
            if not path or os.path.realpath(path) in seen:
                continue
            seen.add(os.path.realpath(path))
            try:
                info = _elf(os.path.realpath(path))
            except (ElfError, OSError):
                continue
            libraries.append((info, lib.path))
            queue.append(info)
    return libraries, needed


@functools.lru_cache(maxsize=1)
def _process_scope(machine: str) -> frozenset[str]:
    """Symbols of the Python executable (and its NEEDED closure): in every plugin's global scope."""
    try:
        exe = _elf(os.path.realpath(sys.executable))
    except (ElfError, OSError):
        return frozenset()
    libraries, _ = _closure(exe, machine, set())
    names: set[str] = set()
    for lib, _by in libraries:
        names |= lib.defined
    return frozenset(names)


def check_symbols(path: str | Path) -> SymbolReport:
    """Resolve the plugin's undefined symbols as the dynamic linker would, against modtensor's exports first."""
    from modtensor.plugin.registry import ENTRY_POINTS

    report = SymbolReport(str(path))
    try:
        root = _elf(os.path.realpath(path))
    except (ElfError, OSError) as e:
        report.error = str(e)
        return report
    report.machine = root.machine
    report.entry_points = [name for name in ENTRY_POINTS if name in root.defined]
    here = _elf(os.path.realpath(sys.executable)).machine if os.path.isfile(sys.executable) else platform.machine()
    if root.machine != here:
        report.error = f"{path} is built for {root.machine}; this Python runs on {here}"
        return report
    exports = modtensor_exports()
    ours = frozenset().union(*exports.values()) if exports else frozenset()
    if not exports:
        report.problems.append("modtensor's native library is not built: nothing provides the C API")
    provided = {Path(p).name for p in exports}
    libraries, report.needed = _closure(root, root.machine, provided)
    for entry in report.needed:
        if entry["found"]:
            continue
        if TENSORFLOW_LIBRARIES.match(entry["name"]):
            report.problems.append(
                f"{Path(entry['requested_by']).name} needs TensorFlow's {entry['name']}, which modtensor does not "
                "provide (a plugin linked against TensorFlow's C++ framework, not only its C API, cannot load)"
            )
        else:
            report.problems.append(f"{Path(entry['requested_by']).name} needs {entry['name']}, which was not found")
    everything = set(_process_scope(root.machine))
    for lib, _by in libraries:
        everything |= lib.defined
    for lib, by in libraries:
        entry = LibraryReport(lib.path, by, undefined=len(lib.undefined))
        for name in lib.undefined:
            if name in ours:
                if name.startswith(C_API_PREFIXES):
                    entry.from_modtensor.append(name)
                else:
                    entry.from_libraries += 1
            elif name in everything:
                entry.from_libraries += 1
            else:
                entry.unresolved.append(name)
        entry.weak_unresolved = sum(1 for name in lib.weak_undefined if name not in ours and name not in everything)
        report.libraries.append(entry)
        if entry.unresolved:
            api = sorted(n for n in entry.unresolved if n.startswith(C_API_PREFIXES))
            other = sorted(n for n in entry.unresolved if not n.startswith(C_API_PREFIXES))
            if api:
                report.problems.append(
                    f"{Path(lib.path).name} calls {len(api)} C API function(s) modtensor does not export: "
                    + ", ".join(api[:20])
                    + (" ..." if len(api) > 20 else "")
                )
            if other:
                report.problems.append(
                    f"{Path(lib.path).name} needs {len(other)} symbol(s) no library provides: "
                    + ", ".join(other[:10])
                    + (" ..." if len(other) > 10 else "")
                )
    if len(libraries) >= _MAX_LIBRARIES:
        report.problems.append(f"the NEEDED closure has more than {_MAX_LIBRARIES} libraries; the rest was not read")
    return report
