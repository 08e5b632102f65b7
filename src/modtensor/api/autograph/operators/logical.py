"""``ag__.and_``, ``or_``, ``not_``, ``eq``, ``not_eq``: Python's operators, or TensorFlow's on tensors.

``and_``/``or_`` take their operands as functions, so the right one is evaluated only
when Python would (a tensor left operand stages it in ``tf.cond``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.api import math_ops
from modtensor.api.autograph.operators.staging import tf_api
from modtensor.framework.tensor import Tensor

__all__ = ["and_", "eq", "not_", "not_eq", "or_"]


def not_(a: Any) -> Any:
    """``not a``; ``tf.logical_not(a)`` for a tensor."""
    if isinstance(a, Tensor):
        return math_ops.logical_not(a)
    return not a


def and_(a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    """``a() and b()``; for a tensor ``a()``: ``tf.cond(a, b, lambda: a)``."""
    a_value = a()
    if isinstance(a_value, Tensor):
        return tf_api("cond", "`and` on a tensor")(a_value, b, lambda: a_value)
    return a_value and b()


def or_(a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    """``a() or b()``; for a tensor ``a()``: ``tf.cond(a, lambda: a, b)``."""
    a_value = a()
    if isinstance(a_value, Tensor):
        return tf_api("cond", "`or` on a tensor")(a_value, lambda: a_value, b)
    return a_value or b()


def eq(a: Any, b: Any) -> Any:
    """``a == b``; ``tf.equal`` when either is a tensor (Feature.EQUALITY_OPERATORS)."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return math_ops.equal(a, b)
    return a == b


def not_eq(a: Any, b: Any) -> Any:
    """``a != b``, as ``not_(eq(a, b))``."""
    return not_(eq(a, b))
