"""Helpers shared by the gradient functions: summing a broadcast gradient back to an operand's shape, skips."""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api.dispatch import apply_op
from modtensor.framework import common_shapes, tensor_shape


def static_dims(t: Any) -> list[int] | None:
    """The fully known static shape of ``t`` as a list, else None."""
    shape = t.shape
    if shape.rank is None or not shape.is_fully_defined():
        return None
    return [int(d) for d in shape.as_list()]


def reduce_to(grad: Any, x: Any) -> Any:
    """``grad`` (of a broadcasting op's result) summed over the axes ``x`` was broadcast along, in ``x``'s shape.

    With static shapes the axes are computed here (TF's SmartBroadcastGradientArgs); otherwise
    ``BroadcastGradientArgs`` computes them when the graph runs.
    """
    if grad is None:
        return None
    from modtensor.api import array_ops, math_ops

    x_dims, g_dims = static_dims(x), static_dims(grad)
    if x_dims is not None and g_dims is not None:
        if x_dims == g_dims:
            return grad
        axes, _ = common_shapes.broadcast_gradient_axes(x_dims, g_dims)
        if axes:
            grad = math_ops.reduce_sum(grad, axes)
        return array_ops.reshape(grad, x_dims) if list(grad.shape.as_list()) != x_dims else grad
    sx = array_ops.shape(x)
    sg = array_ops.shape(grad)
    rx, _ = apply_op("BroadcastGradientArgs", s0=sx, s1=sg)
    return array_ops.reshape(math_ops.reduce_sum(grad, rx), sx)


def skipped(op: Any, index: int) -> bool:
    """Whether input ``index`` of ``op`` needs no gradient (an eager input no tape watches)."""
    skip = getattr(op, "skip_input_indices", None)
    return skip is not None and index in skip


def unknown_shape() -> tensor_shape.TensorShape:
    """A shape of unknown rank."""
    return tensor_shape.TensorShape(None)


def reduced_shape(input_shape: Any, axes: Any) -> Any:
    """``input_shape`` with the reduced ``axes`` set to 1 (TF's ``math_ops.reduced_shape``): a reduction's
    result shape with kept dims, to reshape its gradient to before broadcasting it back."""
    from modtensor.api import array_ops, indexing_ops, math_ops
    from modtensor.api.op_scope import constant_value

    shape_value = constant_value(input_shape)
    axes_value = constant_value(axes)
    if shape_value is not None and axes_value is not None:
        dims = [int(d) for d in np.asarray(shape_value).reshape(-1)]
        rank = len(dims)
        for a in np.asarray(axes_value).reshape(-1):
            dims[int(a) % rank if rank else 0] = 1
        return array_ops.constant(dims, dtype=input_shape.dtype)
    rank = array_ops.size(input_shape, out_type=input_shape.dtype)
    axes = math_ops.floormod(math_ops.add(math_ops.cast(array_ops.reshape(axes, [-1]), input_shape.dtype), rank), rank)
    ones = array_ops.ones_like(axes)
    return indexing_ops.tensor_scatter_nd_update(input_shape, array_ops.expand_dims(axes, -1), ones)
