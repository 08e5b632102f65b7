"""Plugin discovery: which plugins load by themselves, and when.

At the first use of the runtime (the first ``global_kernel_registry()`` call, the
first time the op registry is asked for an op it does not have, or the first device
spec ``/TYPE:N`` naming a type not known yet) modtensor loads, in this order:

0. the built-in native CPU kernel library (``modtensor/lib/libmodtensor_cpu_kernels.so``,
   a plugin of the runtime like any other; ``MODTENSOR_NATIVE_CPU_KERNELS=0`` leaves it out,
   ``MODTENSOR_NO_PLUGINS`` does not, since it is part of modtensor);
1. native libraries ``*.so`` in ``<site-packages>/modtensor-plugins/`` of every
   site-packages folder (system, user, and those on ``sys.path``);
2. native libraries ``*.so`` in TensorFlow's ``<site-packages>/tensorflow-plugins/``,
   where binary TensorFlow plugin wheels (Intel Extension for TensorFlow) install
   themselves, unless ``MODTENSOR_NO_TF_PLUGINS=1``;
3. the files and folders (``*.so`` inside) listed in ``MODTENSOR_PLUGIN_PATH``
   (``os.pathsep``-separated);
4. Python plugins of the entry-point group ``modtensor.plugins``.

``MODTENSOR_NO_PLUGINS=1`` turns discovery off (explicit ``load_library`` still
works). Importing this module only installs the two light hooks; nothing is
scanned or loaded until the runtime is used.
"""

from __future__ import annotations

import contextlib
import os
import site
import sys
import threading
import warnings
from pathlib import Path

from modtensor.plugin.registry import PluginRecord

__all__ = [
    "PLUGIN_FOLDER",
    "PLUGIN_PATH_ENV",
    "TF_PLUGIN_FOLDER",
    "discover_plugins",
    "discovery_done",
    "install_discovery_hooks",
    "native_plugin_candidates",
    "plugins_disabled",
]

PLUGIN_FOLDER = "modtensor-plugins"
TF_PLUGIN_FOLDER = "tensorflow-plugins"  # TensorFlow's: binary TF plugin wheels install here
PLUGIN_PATH_ENV = "MODTENSOR_PLUGIN_PATH"
NO_PLUGINS_ENV = "MODTENSOR_NO_PLUGINS"
NO_TF_PLUGINS_ENV = "MODTENSOR_NO_TF_PLUGINS"
NATIVE_CPU_KERNELS_ENV = "MODTENSOR_NATIVE_CPU_KERNELS"
BUILTIN_ORIGIN = "built-in"

_LOCK = threading.RLock()
_started = False
_done = threading.Event()


def plugins_disabled() -> bool:
    """True when ``MODTENSOR_NO_PLUGINS`` is set to anything but "" or "0"."""
    return os.environ.get(NO_PLUGINS_ENV, "") not in ("", "0")


def tf_plugins_disabled() -> bool:
    """True when ``MODTENSOR_NO_TF_PLUGINS`` is set to anything but "" or "0"."""
    return os.environ.get(NO_TF_PLUGINS_ENV, "") not in ("", "0")


def native_cpu_kernels_library() -> Path | None:
    """The built-in native CPU kernel library, when it was built with the package and is not turned off."""
    if os.environ.get(NATIVE_CPU_KERNELS_ENV, "") in ("0", "false", "False", "no"):
        return None
    path = Path(__file__).resolve().parent.parent / "lib" / "libmodtensor_cpu_kernels.so"
    return path if path.is_file() else None


def site_packages_folders() -> list[Path]:
    """Every site-packages folder of this interpreter: site's own, the user site, and those on sys.path."""
    folders: list[str] = []
    with contextlib.suppress(AttributeError):  # some virtualenv builds of site.py lack it
        folders.extend(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    folders.extend(p for p in sys.path if p and os.path.basename(p.rstrip("/")) in ("site-packages", "dist-packages"))
    unique: dict[str, Path] = {}
    for folder in folders:
        unique.setdefault(os.path.realpath(folder), Path(folder))
    return list(unique.values())


def _libraries_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(".so"))


def native_plugin_candidates() -> list[tuple[Path, str]]:
    """(library, origin) for every native plugin discovery would load, in load order, without duplicates."""
    found: list[tuple[Path, str]] = []
    folders = site_packages_folders()
    for folder in folders:
        plugins = folder / PLUGIN_FOLDER
        if plugins.is_dir():
            found.extend((p, f"{PLUGIN_FOLDER} in {folder}") for p in _libraries_in(plugins))
    if not tf_plugins_disabled():
        for folder in folders:
            plugins = folder / TF_PLUGIN_FOLDER
            if plugins.is_dir():
                found.extend((p, f"{TF_PLUGIN_FOLDER} in {folder}") for p in _libraries_in(plugins))
    for entry in os.environ.get(PLUGIN_PATH_ENV, "").split(os.pathsep):
        if not entry:
            continue
        path = Path(entry)
        if path.is_dir():
            found.extend((p, PLUGIN_PATH_ENV) for p in _libraries_in(path))
        elif path.is_file():
            found.append((path, PLUGIN_PATH_ENV))
        else:
            warnings.warn(f"modtensor: {PLUGIN_PATH_ENV} entry {entry!r} does not exist", RuntimeWarning, stacklevel=2)
    unique: dict[str, tuple[Path, str]] = {}
    for path, origin in found:
        unique.setdefault(os.path.realpath(path), (path, origin))
    return list(unique.values())


def discover_plugins() -> list[PluginRecord]:
    """Load the discoverable plugins once per process (later calls return at once); returns what was loaded.

    Failures are warnings (RuntimeWarning naming the file and the cause); the rest
    of modtensor keeps working. Re-entrant: a plugin that uses the runtime while it
    loads does not trigger discovery again.
    """
    global _started
    if _started:
        if not _done.is_set():
            with _LOCK:  # another thread is discovering: wait for it (the same thread re-enters freely)
                pass
        return []
    with _LOCK:
        if _started:
            return []
        _started = True
        try:
            from modtensor.plugin.loader import load_native_library

            records = []
            builtin = native_cpu_kernels_library()
            if builtin is not None:
                from modtensor.plugin.native.cpu_kernels_library import attach_cpu_kernels_library

                records.append(load_native_library(builtin, origin=BUILTIN_ORIGIN, raise_errors=False))
                attach_cpu_kernels_library(builtin)
            if plugins_disabled():
                return records
            from modtensor.plugin.python_plugins import load_entry_point_plugins

            records += [
                load_native_library(path, origin=origin, raise_errors=False)
                for path, origin in native_plugin_candidates()
            ]
            records.extend(load_entry_point_plugins())
            return records
        finally:
            _done.set()


def discovery_done() -> bool:
    """True once discovery ran (or was skipped) in this process."""
    return _done.is_set()


def _on_missing_op() -> None:
    discover_plugins()


def _on_unknown_device_type() -> None:
    discover_plugins()


def install_discovery_hooks() -> None:
    """Run discovery at the runtime's first use: the kernel registry's first use, an op lookup that misses,
    or a device spec naming a ``/TYPE:N`` that is not known yet (a plugin's device type)."""
    from modtensor.framework.device_spec import add_unknown_device_type_hook
    from modtensor.framework.op_registry import add_missing_op_hook
    from modtensor.runtime.kernel_registry import add_first_use_hook

    add_first_use_hook(discover_plugins)
    add_missing_op_hook(_on_missing_op)
    add_unknown_device_type_hook(_on_unknown_device_type)
