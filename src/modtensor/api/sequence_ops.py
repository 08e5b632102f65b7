"""``tf.linspace``: TF 2.21's ``linspace_nd``, which broadcasts tensor ``start``/``stop`` and spaces along ``axis``.

TF 2 does not use the ``LinSpace`` op here: it composes the result from ``BroadcastArgs``, ``Range``
and ``ConcatV2`` (start, the interior points, stop) and slices ``num`` points out, so ``num`` of 1 gives
``start`` and the graph matches TF's node for node.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, indexing_ops, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = ["linspace"]


def _convert_to_int_tensor(value: Any, name: str) -> Tensor:
    """TF's ``array_ops.convert_to_int_tensor``: an integer tensor cast to int32, else TypeError."""
    tensor = convert_to_tensor(value, name=name, dtype_hint=dtypes.int32)
    if not tensor.dtype.is_integer:
        raise TypeError(
            f"Argument `tensor` (name: {name}) must be of type integer. Received `tensor` = {tensor} of dtype: "
            f"{tensor.dtype}"
        )
    return apply_op("Cast", x=tensor, DstT=dtypes.int32)


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive), broadcast, along ``axis``."""
    with op_scope(name, "linspace", [start, stop]):
        start = convert_to_tensor(start, name="start")
        stop = convert_to_tensor(stop, name="stop", dtype=start.dtype)
        num_int = _convert_to_int_tensor(num, name="num")
        num = math_ops.cast(num_int, dtype=start.dtype)

        broadcast_shape = apply_op("BroadcastArgs", s0=array_ops.shape(start), s1=array_ops.shape(stop))
        start = indexing_ops.broadcast_to(start, broadcast_shape)
        stop = indexing_ops.broadcast_to(stop, broadcast_shape)

        expanded_start = array_ops.expand_dims(start, axis=axis)
        expanded_stop = array_ops.expand_dims(stop, axis=axis)

        shape = array_ops.shape(expanded_start)
        ndims = array_ops.shape(shape)[0]

        axis = array_ops.where(axis >= 0, axis, ndims + axis)

        num_fill = math_ops.maximum(num_int - 2, 0)
        n_steps = math_ops.maximum(num_int - 1, 1)
        delta = (expanded_stop - expanded_start) / math_ops.cast(n_steps, expanded_stop.dtype)
        expanded_start = math_ops.cast(expanded_start, delta.dtype)
        expanded_stop = math_ops.cast(expanded_stop, delta.dtype)
        range_end = array_ops.where(num_int >= 0, n_steps, -1)
        desired_range = math_ops.cast(math_ops.range(1, range_end, dtype=dtypes.int64), delta.dtype)
        mask = apply_op("Equal", x=axis, y=math_ops.range(ndims))
        desired_range_shape = array_ops.where(mask, num_fill, 1)
        desired_range = array_ops.reshape(desired_range, desired_range_shape)

        res = expanded_start + delta * desired_range

        all_tensors = (expanded_start, res, expanded_stop)
        concatenated = array_ops.concat(all_tensors, axis=axis)
        begin = array_ops.zeros_like(shape)
        size = array_ops.concat((shape[0:axis], array_ops.reshape(num_int, [1]), shape[axis + 1 :]), axis=0)
        return array_ops.slice(concatenated, begin, size)
