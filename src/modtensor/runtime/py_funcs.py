"""The registry of Python callables that ``PyFunc``/``EagerPyFunc`` nodes name by ``token`` (TF's FuncRegistry).

``tf.numpy_function`` and ``tf.py_function`` register the user's callable and put the
token in the node; the kernel calls it with the inputs. Entries are dropped when the
graph or dataset that registered them is gone (``remove``).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["insert", "lookup", "remove"]

_FUNCS: dict[str, Callable[..., Any]] = {}
_LOCK = threading.Lock()
_IDS = itertools.count()


def insert(func: Callable[..., Any]) -> str:
    """Register ``func``; returns its token (``pyfunc_N`` as TF names them)."""
    with _LOCK:
        token = f"pyfunc_{next(_IDS)}"
        _FUNCS[token] = func
    return token


def lookup(token: str) -> Callable[..., Any] | None:
    """The callable of ``token``, or None."""
    return _FUNCS.get(token)


def remove(token: str) -> None:
    """Forget ``token``."""
    with _LOCK:
        _FUNCS.pop(token, None)
