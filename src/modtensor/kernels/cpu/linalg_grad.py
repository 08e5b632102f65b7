"""CPU kernels of the linalg ops gradient functions use, with TensorFlow's numerics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

OP_FUNCTIONS: dict[str, Callable[..., Any]] = {}

CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {}
