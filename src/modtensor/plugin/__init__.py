"""Plugins: native libraries written against TensorFlow's C API, and Python plugins.

- ``load_library(path)``: load a native plugin library (or every ``*.so`` of a folder);
- ``load_op_library(path)``: the same, returning a module with a Python wrapper per op;
- ``loaded_plugins()``: every plugin tried so far, with what it registered or why it failed;
- ``discover_plugins()``: load the installed plugins now (otherwise done at the runtime's first use).

Native plugins export ``SE_InitPlugin`` (devices), ``TF_InitKernel`` (ops and kernels)
and ``TF_InitGraph``/``TF_InitGraphPlugin`` (a graph optimizer); ``TF_InitProfiler`` is
recorded for later. The plugin author's guide is docs/plugins.md. Importing this package is
cheap: it installs the discovery hooks and loads nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

from modtensor.plugin.discovery import discover_plugins, install_discovery_hooks
from modtensor.plugin.registry import PluginRecord, loaded_plugins

__all__ = ["PluginRecord", "discover_plugins", "load_library", "load_op_library", "loaded_plugins"]


def load_library(library_location: str | os.PathLike[str]) -> None:
    """Load a native plugin, or every ``*.so`` in a folder, as TensorFlow's ``tf.load_library``.

    Each library is loaded once (by real path). Raises the OpError of the first
    library that fails (NotFoundError for a missing file or one that is not a
    loadable library); what it registered is rolled back.
    """
    from modtensor.plugin.loader import load_native_library

    location = Path(library_location)
    if location.is_dir():
        for path in sorted(p for p in location.iterdir() if p.is_file() and p.name.endswith(".so")):
            load_native_library(path, origin="load_library", raise_errors=True)
    else:
        load_native_library(location, origin="load_library", raise_errors=True)


def load_op_library(library_filename: str | os.PathLike[str]) -> ModuleType:
    """Load a native plugin and return a module with a wrapper function per op it defines (``tf.load_op_library``)."""
    from modtensor.plugin.op_library import load_op_library as load

    return load(library_filename)


install_discovery_hooks()
