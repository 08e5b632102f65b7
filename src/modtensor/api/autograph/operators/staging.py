"""The TensorFlow operations the operators stage: ``cond``, ``while_loop``, ``Assert``, ``py_function``, ...

They come from modtensor's public API (``modtensor.cond``, ``modtensor.while_loop``,
``modtensor.debugging.Assert``, ``modtensor.py_function``), looked up when first needed; a
missing one is a NotImplementedError that names the statement it was needed for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["tf_api"]


def tf_api(path: str, needed_for: str) -> Callable[..., Any]:
    """The public API function ``path`` (``"cond"``, ``"debugging.Assert"``) of modtensor."""
    value: Any = importlib.import_module("modtensor")
    for part in path.split("."):
        value = getattr(value, part, None)
        if value is None:
            raise NotImplementedError(
                f"tf.{path} is not available in this modtensor, and {needed_for} needs it; keep the condition a "
                "Python value, or decorate the function with @tf.autograph.experimental.do_not_convert"
            )
    return value
