"""TensorFlow-worded kernel errors: shapes printed as TF prints them, raised as ``InvalidArgumentError``."""

from __future__ import annotations

from collections.abc import Iterable

from modtensor.framework.errors import InvalidArgumentError, UnimplementedError


def shape_str(shape: Iterable[int]) -> str:
    """Format a shape the way TensorFlow's kernel messages do: ``[2,3]``."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def invalid_argument(message: str) -> InvalidArgumentError:
    """Build the InvalidArgumentError a kernel raises (the executor fills in the node later)."""
    return InvalidArgumentError(None, None, message)


def unimplemented(message: str) -> UnimplementedError:
    """Build the UnimplementedError TF's CPU kernels raise for attr combinations they do not support."""
    return UnimplementedError(None, None, message)
