"""CPU kernels of the array ops gradients use (BroadcastGradientArgs, ...), with TensorFlow's semantics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework.common_shapes import broadcast_gradient_axes
from modtensor.kernels.cpu.errors import invalid_argument


def broadcast_gradient_args(s0: np.ndarray, s1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The axes to sum a broadcast result's gradient over for each operand (TF's BCast reduction indices)."""
    try:
        r0, r1 = broadcast_gradient_axes(s0.reshape(-1).tolist(), s1.reshape(-1).tolist())
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    return np.asarray(r0, dtype=s0.dtype), np.asarray(r1, dtype=s0.dtype)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "BroadcastGradientArgs": broadcast_gradient_args,
}

CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "BroadcastGradientArgs": {"T": "int32 int64"},
}
