"""``ag__.if_exp``: a conditional expression, staged with ``tf.cond`` when its condition is a tensor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.api.autograph.operators import control_flow
from modtensor.api.autograph.operators.staging import tf_api
from modtensor.framework.tensor import Tensor

__all__ = ["if_exp"]


def if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any], expr_repr: str) -> Any:
    """``if_true() if cond else if_false()``; for a tensor ``cond``, both are staged and must agree in dtype."""
    if isinstance(cond, Tensor):
        return _tf_if_exp(cond, if_true, if_false, expr_repr)
    return if_true() if cond else if_false()


def _tf_if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any], expr_repr: str) -> Any:
    true_value: list[Any] = []
    false_value: list[Any] = []

    def true_fn() -> Any:
        true_value.append(if_true())
        if true_value and false_value:
            control_flow.verify_single_cond_var(expr_repr, true_value[0], false_value[0])
        return true_value[0]

    def false_fn() -> Any:
        false_value.append(if_false())
        if true_value and false_value:
            control_flow.verify_single_cond_var(expr_repr, true_value[0], false_value[0])
        return false_value[0]

    return tf_api("cond", "a conditional expression on a tensor")(cond, true_fn, false_fn)
