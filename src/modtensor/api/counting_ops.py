"""``tf.histogram_fixed_width``, ``tf.math.bincount``, ``tf.math.in_top_k``, ``tf.searchsorted`` as TF 2.21 builds them.

``bincount`` (dense inputs) sizes its output from ``reduce_max(arr) + 1`` clipped by minlength/maxlength
and calls ``DenseBincount`` (flattened for axis 0); ``searchsorted`` reshapes to 2-D, calls
``LowerBound``/``UpperBound`` and reshapes back; the others call their op in TF's name scope.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant, convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = ["bincount", "histogram_fixed_width", "in_top_k", "searchsorted"]


def histogram_fixed_width(
    values: Any, value_range: Any, nbins: Any = 100, dtype: Any = dtypes.int32, name: str | None = None
) -> Tensor:
    """Counts of ``values`` in ``nbins`` equal-width bins over ``value_range`` (``HistogramFixedWidth``)."""
    with op_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        return apply_op("HistogramFixedWidth", name=scope, values=values, value_range=value_range, nbins=nbins,
                        dtype=dtype)  # fmt: skip


def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = dtypes.int32,
    name: str | None = None,
    axis: int | None = None,
    binary_output: bool = False,
) -> Tensor:
    """The count (or weight sum) of each value of the nonnegative ints ``arr`` (``DenseBincount``)."""
    with op_scope(None, "bincount" if name is None else name, [arr]):
        arr = convert_to_tensor(arr, name="arr")
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
        if not arr.dtype.is_integer:
            arr = math_ops.cast(arr, dtypes.int32)
        if axis is None:
            axis = 0
        if axis not in [0, -1]:
            raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
        array_is_nonempty = array_ops.size(arr) > 0
        output_size = math_ops.cast(array_is_nonempty, arr.dtype) * (math_ops.reduce_max(arr) + 1)
        if minlength is not None:
            minlength = convert_to_tensor(minlength, name="minlength", dtype=arr.dtype)
            output_size = math_ops.maximum(minlength, output_size)
        if maxlength is not None:
            maxlength = convert_to_tensor(maxlength, name="maxlength", dtype=arr.dtype)
            output_size = math_ops.minimum(maxlength, output_size)
        if axis == 0:
            if weights is not None:
                weights = array_ops.reshape(weights, [-1])
            arr = array_ops.reshape(arr, [-1])
        if weights is None:
            weights = constant([], dtype=dtype if dtype else arr.dtype)
        return apply_op("DenseBincount", input=arr, size=output_size, weights=weights, binary_output=binary_output)


def in_top_k(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Tensor:
    """Whether each target is among its row's ``k`` largest predictions (``InTopKV2``; TF 2's argument order)."""
    with op_scope(name, "in_top_k", []):
        return apply_op("InTopKV2", name=name, predictions=predictions, targets=targets, k=k)


def searchsorted(
    sorted_sequence: Any, values: Any, side: str = "left", out_type: Any = dtypes.int32, name: str | None = None
) -> Tensor:
    """Insertion indices of ``values`` in the innermost dim of ``sorted_sequence`` (``LowerBound``/``UpperBound``)."""
    sequence_size = array_ops.shape_internal(sorted_sequence)[-1]
    values_size = array_ops.shape_internal(values)[-1]
    sorted_sequence_2d = array_ops.reshape(sorted_sequence, [-1, sequence_size])
    values_2d = array_ops.reshape(values, [-1, values_size])
    if side == "right":
        op_type = "UpperBound"
    elif side == "left":
        op_type = "LowerBound"
    else:
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    output = apply_op(op_type, name=name, sorted_inputs=sorted_sequence_2d, values=values_2d, out_type=out_type)
    return array_ops.reshape(output, array_ops.shape_internal(values))
