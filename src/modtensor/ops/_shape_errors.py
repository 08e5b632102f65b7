"""How the shape functions of ``modtensor.ops`` raise errors, worded and structured as TensorFlow's.

``invalid`` makes the InvalidArgumentError a shape function raises (``run_shape_fn``
adds the node summary and input shapes); ``with_context`` appends a context line
to an error the way TF_RETURN_WITH_CONTEXT_IF_ERROR does ("...\\n\\tFrom merging
shape 0 with other shapes.").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from modtensor.framework import errors

T = TypeVar("T")


def invalid(message: str) -> errors.InvalidArgumentError:
    """An InvalidArgumentError with `message` and no node (run_shape_fn adds the node context)."""
    return errors.InvalidArgumentError(None, None, message)


def with_context(fn: Callable[[], T], context: str) -> T:
    """Run ``fn``; an InvalidArgumentError it raises gets ``context`` appended on a new line, as TF does."""
    try:
        return fn()
    except errors.InvalidArgumentError as e:
        raise invalid(f"{e.message}\n\t{context}") from None
