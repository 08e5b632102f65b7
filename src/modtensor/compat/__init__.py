"""``modtensor.compat``: ``v1`` (TensorFlow 1 style: Session, placeholder, ConfigProto) and ``v2`` (the top level)."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["v1", "v2"]


def __getattr__(name: str) -> Any:
    if name == "v1":
        return importlib.import_module("modtensor.compat.v1")
    if name == "v2":
        return importlib.import_module("modtensor")
    raise AttributeError(f"module 'modtensor.compat' has no attribute '{name}'")
