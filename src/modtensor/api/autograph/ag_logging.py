"""AutoGraph's log: warnings about functions run unconverted, and verbose tracing of conversions.

Messages go to the ``modtensor.autograph`` logger. ``set_verbosity(level)`` (or the
``AUTOGRAPH_VERBOSITY`` environment variable, as in TensorFlow) turns on messages up to
``level``; ``alsologtostdout`` echoes them on stdout.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

__all__ = ["get_verbosity", "has_verbosity", "log", "set_verbosity", "warning"]

_LOGGER = logging.getLogger("modtensor.autograph")
_verbosity: int | None = None
_echo_to_stdout = False


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """Log conversion details up to ``level`` (0: none; 10: everything); ``alsologtostdout`` echoes them."""
    global _verbosity, _echo_to_stdout
    _verbosity = int(level)
    _echo_to_stdout = bool(alsologtostdout)


def get_verbosity() -> int:
    """The verbosity set by ``set_verbosity``, else ``AUTOGRAPH_VERBOSITY``, else 0."""
    if _verbosity is not None:
        return _verbosity
    try:
        return int(os.environ.get("AUTOGRAPH_VERBOSITY", "0"))
    except ValueError:
        return 0


def has_verbosity(level: int) -> bool:
    """Whether messages of ``level`` are logged."""
    return get_verbosity() >= level


def log(level: int, message: str, *args: Any) -> None:
    """Log a detail message when the verbosity reaches ``level``."""
    if has_verbosity(level):
        _LOGGER.info(message, *args)
        if _echo_to_stdout:
            print(message % args if args else message, file=sys.stdout)


def warning(message: str, *args: Any) -> None:
    """A warning the user should see (a function that runs unconverted, a large unrolled loop)."""
    _LOGGER.warning(message, *args)
    if _echo_to_stdout:
        print("WARNING: " + (message % args if args else message), file=sys.stdout)
