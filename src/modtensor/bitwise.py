"""``modtensor.bitwise``: TensorFlow's ``tf.bitwise`` ops on integer tensors (each one op of the same name)."""

from __future__ import annotations

from typing import Any

from modtensor.api.dispatch import apply_op
from modtensor.framework.tensor import Tensor

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def bitwise_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elementwise ``x & y`` of integers, broadcasting (``BitwiseAnd``)."""
    return apply_op("BitwiseAnd", name=name, x=x, y=y)


def bitwise_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elementwise ``x | y`` of integers, broadcasting (``BitwiseOr``)."""
    return apply_op("BitwiseOr", name=name, x=x, y=y)


def bitwise_xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elementwise ``x ^ y`` of integers, broadcasting (``BitwiseXor``)."""
    return apply_op("BitwiseXor", name=name, x=x, y=y)


def invert(x: Any, name: str | None = None) -> Tensor:
    """Elementwise ``~x`` of integers: every bit flipped (``Invert``)."""
    return apply_op("Invert", name=name, x=x)


def left_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x << y`` elementwise; shift amounts outside ``[0, bits - 1]`` are clamped to it, as in TF (``LeftShift``)."""
    return apply_op("LeftShift", name=name, x=x, y=y)


def right_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x >> y`` elementwise, sign-filling for signed types; shifts clamped to ``[0, bits - 1]`` (``RightShift``)."""
    return apply_op("RightShift", name=name, x=x, y=y)
