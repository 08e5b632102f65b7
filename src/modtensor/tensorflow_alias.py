"""Run unchanged TensorFlow programs on modtensor: ``import tensorflow`` resolves to ``modtensor``.

``install()`` makes ``tensorflow`` the ``modtensor`` module and ``tensorflow.X`` its submodule
``modtensor.X`` (``import tensorflow.compat.v1 as tf``, ``from tensorflow import nn``). A
TensorFlow submodule modtensor does not have fails at the import, naming it (for
``tensorflow.keras`` an ImportError saying what to do), instead of deep inside the program.
``modtensor exec PROGRAM.py`` runs a program this way; ``install()`` does it in any process.
When the real TensorFlow is already imported, ``install`` refuses: two runtimes under one
name would mix.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

__all__ = ["install", "installed", "uninstall"]

ALIAS = "tensorflow"
TARGET = "modtensor"
# TensorFlow namespaces modtensor does not provide, with what to do instead.
NOT_PROVIDED = {
    "keras": "modtensor does not provide Keras; load Keras models exported by TensorFlow as SavedModels "
    "(tf.saved_model.load) or frozen GraphDefs (modtensor run)",
    "python": "tensorflow.python is TensorFlow's private implementation; use the public tf.* names",
}


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already-imported modtensor module, leaving its own spec and loader untouched."""

    def __init__(self, module: ModuleType):
        self._module = module
        self._saved = (module.__spec__, getattr(module, "__loader__", None))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self._module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__, module.__loader__ = self._saved  # the import system set the alias's: put them back


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``tensorflow[.X]`` as ``modtensor[.X]``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        for prefix in (ALIAS, TARGET):  # `from tensorflow import keras` looks for 'modtensor.keras'
            first = fullname[len(prefix) + 1 :].split(".")[0] if fullname.startswith(prefix + ".") else None
            if first in NOT_PROVIDED:  # ImportError, not ModuleNotFoundError, which `from ... import` would hide
                name = ALIAS + fullname[len(prefix) :]
                raise ImportError(f"No module named '{name}': {NOT_PROVIDED[first]}", name=name)
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        rest = fullname[len(ALIAS) :]
        target_name = TARGET + rest
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name != target_name:
                raise
            raise ModuleNotFoundError(
                f"No module named '{fullname}': modtensor has no '{target_name}' (running a TensorFlow program "
                "through modtensor's tensorflow alias)",
                name=fullname,
            ) from None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


_finder: _AliasFinder | None = None


def installed() -> bool:
    """Whether ``import tensorflow`` currently resolves to modtensor."""
    return _finder is not None


def install() -> None:
    """Make ``tensorflow`` and ``tensorflow.X`` import modtensor and its submodules (idempotent)."""
    global _finder
    if _finder is not None:
        return
    present = sys.modules.get(ALIAS)
    if present is not None and getattr(present, "__name__", "") != TARGET:
        raise RuntimeError(
            "TensorFlow itself is already imported in this process; the tensorflow alias of modtensor must be "
            "installed before anything imports tensorflow"
        )
    _finder = _AliasFinder()
    sys.meta_path.insert(0, _finder)
    sys.modules[ALIAS] = importlib.import_module(TARGET)


def uninstall() -> None:
    """Undo ``install``: forget the alias and the ``tensorflow`` modules imported through it."""
    global _finder
    if _finder is None:
        return
    sys.meta_path.remove(_finder)
    _finder = None
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(TARGET):
            del sys.modules[name]
