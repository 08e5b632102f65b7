"""CPU kernels of the bitwise ops (BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift) with TF's semantics.

Shift amounts are clamped to ``[0, bits - 1]`` as TensorFlow's CPU functors do, so a
negative or too-large shift is defined (``x << 9`` on int8 shifts by 7); left shifts
run on the unsigned view so signed values wrap instead of overflowing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str

__all__ = ["OP_FUNCTIONS", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _operands(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both operands as arrays, raising TF's error when they do not broadcast."""
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape and x.shape and y.shape:
        try:
            np.broadcast_shapes(x.shape, y.shape)
        except ValueError:
            raise invalid_argument(f"Incompatible shapes: {shape_str(x.shape)} vs. {shape_str(y.shape)}") from None
    return x, y


def _binary(fn: np.ufunc, name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x, y = _operands(x, y)
        return np.asarray(fn(x, y), dtype=x.dtype)

    kernel.__name__ = name
    kernel.__doc__ = f"Broadcasting {name} of two integer tensors of one dtype."
    return kernel


bitwise_and = _binary(np.bitwise_and, "bitwise_and")
bitwise_or = _binary(np.bitwise_or, "bitwise_or")
bitwise_xor = _binary(np.bitwise_xor, "bitwise_xor")


def invert(x: np.ndarray) -> np.ndarray:
    """Invert: flip every bit (``~x``)."""
    x = np.asarray(x)
    return np.asarray(np.invert(x), dtype=x.dtype)


def _clamped_shift(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.clip(y, 0, x.dtype.itemsize * 8 - 1).astype(x.dtype, copy=False)


def left_shift(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """LeftShift: ``x << clamp(y, 0, bits - 1)``, wrapping in the dtype's width."""
    x, y = _operands(x, y)
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    shift = _clamped_shift(x, y).astype(unsigned)
    return np.asarray(np.left_shift(x.astype(unsigned), shift), dtype=unsigned).astype(x.dtype)


def right_shift(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """RightShift: ``x >> clamp(y, 0, bits - 1)``, arithmetic (sign-filling) for signed dtypes."""
    x, y = _operands(x, y)
    return np.asarray(np.right_shift(x, _clamped_shift(x, y)), dtype=x.dtype)


OP_FUNCTIONS: dict[str, Callable[..., np.ndarray]] = {
    "BitwiseAnd": bitwise_and,
    "BitwiseOr": bitwise_or,
    "BitwiseXor": bitwise_xor,
    "Invert": invert,
    "LeftShift": left_shift,
    "RightShift": right_shift,
}
