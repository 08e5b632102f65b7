"""Process-wide execution state: whether eager execution is enabled."""

from __future__ import annotations

__all__ = ["disable_eager_execution", "eager_enabled", "enable_eager_execution"]

_eager_enabled = True


def eager_enabled() -> bool:
    """True unless ``disable_eager_execution()`` was called."""
    return _eager_enabled


def enable_eager_execution() -> None:
    """Make ops run immediately outside graph-building blocks (the default)."""
    global _eager_enabled
    _eager_enabled = True


def disable_eager_execution() -> None:
    """Make ops build the default graph (TensorFlow 1 style) for the rest of the process."""
    global _eager_enabled
    _eager_enabled = False
