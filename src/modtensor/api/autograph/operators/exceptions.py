"""``ag__.assert_stmt``: an ``assert`` (Feature.ASSERT_STATEMENTS), ``tf.debugging.Assert`` on a tensor."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from modtensor.api.autograph.operators.staging import tf_api
from modtensor.framework.tensor import Tensor

__all__ = ["assert_stmt"]


def assert_stmt(expression1: Any, expression2: Callable[[], Any]) -> Any:
    """Assert ``expression1``; ``expression2()`` is the message (evaluated only on failure in Python)."""
    if not callable(expression2):
        raise ValueError(f"{expression2} must be a callable")
    spec = inspect.getfullargspec(expression2)
    if spec.args or spec.varkw:
        raise ValueError(f"{expression2} may not have any arguments")
    if isinstance(expression1, Tensor):
        data = expression2()
        if not isinstance(data, list):
            data = [data]
        return tf_api("debugging.Assert", "an assert on a tensor")(expression1, data)
    assert expression1, expression2()
    return None
