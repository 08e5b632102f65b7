"""TF-named ordering: ``tf.sort``, ``tf.argsort`` and ``tf.math.top_k`` / ``tf.nn.top_k``.

``sort``/``argsort`` are TF's compositions over ``TopKV2`` (descending directly; ascending on
``-x`` (``-x - 1`` for signed, ``max - x`` for unsigned integers), the sorted axis moved last
and back), so ties and special values order exactly as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant, constant_value, convert_to_tensor, op_scope
from modtensor.framework import dtypes, op_def_library
from modtensor.framework.op_registry import global_registry
from modtensor.framework.tensor import Tensor

__all__ = ["argsort", "sort"]


def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dtypes.int32, name: str | None = None):  # noqa: A002
    """The ``k`` largest entries of each last-axis row and their indices: TF's ``TopKV2(values, indices)``."""
    outputs = apply_op("TopKV2", name=name, input=input, k=k, sorted=sorted, index_type=dtypes.as_dtype(index_type))
    return op_def_library.wrapper_outputs(global_registry().get("TopKV2").op_def, list(outputs))


def _descending(values: Tensor, axis: int, return_argsort: bool) -> Tensor:
    k = array_ops.shape(values)[axis]
    static_rank = values.shape.rank
    transposition = None
    top_k_input = values
    if not (axis == -1 or axis + 1 == static_rank):
        if static_rank is None:
            raise NotImplementedError("sort along a non-last axis of a tensor of unknown rank is not implemented")
        if axis < 0:
            axis += static_rank
        perm = np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1), [axis]]
        transposition = constant(perm, name="transposition")  # int64, as TF's np.r_
        top_k_input = array_ops.transpose(values, transposition)
    top_values, indices = top_k(top_k_input, k)
    result = indices if return_argsort else top_values
    return array_ops.transpose(result, transposition) if transposition is not None else result


def _ascending(values: Tensor, axis: int, return_argsort: bool) -> Tensor:
    dtype = values.dtype
    if dtype.is_unsigned:
        offset = dtype.max
        result = _descending(offset - values, axis, return_argsort)
        return result if return_argsort else offset - result
    if dtype.is_integer:
        result = _descending(-values - 1, axis, return_argsort)
        return result if return_argsort else -result - 1
    result = _descending(-values, axis, return_argsort)
    return result if return_argsort else -result


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Tensor:
    impl = {"ASCENDING": _ascending, "DESCENDING": _descending}
    if direction not in impl:
        raise ValueError(
            f"Argument `direction` should be one of {', '.join(sorted(impl))}. Received: direction={direction}"
        )
    axis_static = constant_value(axis)
    if axis_static is None or np.ndim(axis_static) != 0:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    values = convert_to_tensor(values, name="values")
    return impl[direction](values, int(axis_static), return_argsort)


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING", name: str | None = None) -> Tensor:
    """``values`` sorted along ``axis`` (``ASCENDING`` or ``DESCENDING``)."""
    with op_scope(name, "sort", [values]):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(
    values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False, name: str | None = None
) -> Tensor:
    """The int32 indices that sort ``values`` along ``axis`` (equal values keep their order)."""
    del stable  # TF's implementation is stable either way
    with op_scope(name, "argsort", [values]):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


del math
