"""Static output shape of StridedSlice: TensorFlow's ValidateStridedSliceOp over partially known shapes.

The sparse spec (begin/end/strides with begin, end, ellipsis, new-axis and
shrink-axis masks) is expanded to one entry per input dimension, each dimension
is canonicalized and bounds-checked, and the final shape drops shrunk axes and
adds new ones. Unknown input dims (-1) and unknown begin/end values give unknown
output dims, as in TensorFlow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from modtensor.ops._shape_errors import invalid

_SHRINK_AXIS = -1
_NEW_AXIS = -2


@dataclass
class _DenseSpec:
    """The slice spec with the ellipsis expanded: one begin/end/stride (and mask bit) per input dim."""

    dims: int
    begin: list[int]
    end: list[int]
    strides: list[int]
    begin_mask: int = 0
    end_mask: int = 0
    shrink_axis_mask: int = 0
    final_shape_gather_indices: list[int] = field(default_factory=list)


def _shape_string(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _build_dense_spec(
    dims: int,
    sparse_dims: int,
    num_add_axis_after_ellipsis: int,
    begin: np.ndarray | None,
    end: np.ndarray | None,
    strides: np.ndarray,
    masks: tuple[int, int, int, int, int],
) -> _DenseSpec:
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask = masks
    dense = _DenseSpec(dims=dims, begin=[0] * dims, end=[0] * dims, strides=[0] * dims)
    full_index = 0
    for i in range(sparse_dims):
        bit = 1 << i
        if ellipsis_mask & bit:
            next_index = min(dims - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, dims)
            while full_index < next_index:
                dense.begin[full_index] = dense.end[full_index] = 0
                dense.strides[full_index] = 1
                dense.begin_mask |= 1 << full_index
                dense.end_mask |= 1 << full_index
                dense.final_shape_gather_indices.append(full_index)
                full_index += 1
        elif new_axis_mask & bit:
            dense.final_shape_gather_indices.append(_NEW_AXIS)
        else:
            if full_index == dims:
                if dims == 0:
                    raise invalid("Attempting to slice scalar input.")
                raise invalid(f"Index out of range using input dim {full_index}; input has only {dims} dims")
            if begin is not None:
                dense.begin[full_index] = int(begin[i])
            if end is not None:
                dense.end[full_index] = int(end[i])
            dense.strides[full_index] = int(strides[i])
            if begin_mask & bit:
                dense.begin_mask |= 1 << full_index
            if end_mask & bit:
                dense.end_mask |= 1 << full_index
            if shrink_axis_mask & bit:
                dense.final_shape_gather_indices.append(_SHRINK_AXIS)
                dense.shrink_axis_mask |= 1 << full_index
            else:
                dense.final_shape_gather_indices.append(full_index)
            full_index += 1
    return dense


def strided_slice_shape(
    input_shape: Sequence[int],
    begin: np.ndarray | None,
    end: np.ndarray | None,
    strides: np.ndarray,
    begin_mask: int,
    end_mask: int,
    ellipsis_mask: int,
    new_axis_mask: int,
    shrink_axis_mask: int,
) -> list[int]:
    """The output shape (-1 for unknown dims) of slicing a tensor of ``input_shape`` (-1 = unknown dim).

    ``begin``/``end`` are the constant values or None when unknown; ``strides`` must be known.
    Raises InvalidArgumentError with TensorFlow's messages for malformed specs.
    """
    begin = None if begin is None else np.asarray(begin)
    end = None if end is None else np.asarray(end)
    strides = np.asarray(strides)
    n = strides.size
    begin_wrong = begin is not None and not (begin.ndim == 1 and begin.size == n and begin.size < 32)
    end_wrong = end is not None and not (end.ndim == 1 and end.size == n)
    if begin_wrong or end_wrong or strides.ndim != 1:
        if begin is not None and end is not None:
            raise invalid(
                "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                f"{_shape_string(begin.shape)}, {_shape_string(end.shape)}, and {_shape_string(strides.shape)} "
                "instead."
            )
        raise invalid(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shape "
            f"{_shape_string(strides.shape)} for strides."
        )
    if ellipsis_mask & (ellipsis_mask - 1):
        raise invalid("Multiple ellipses in slice spec not allowed")

    sparse_dims = n
    num_add_axis_after_ellipsis = 0
    ellipsis_seen = False
    for i in range(sparse_dims):
        if ellipsis_seen and (new_axis_mask & (1 << i)):
            num_add_axis_after_ellipsis += 1
        if ellipsis_mask & (1 << i):
            ellipsis_seen = True
    if not ellipsis_seen:
        ellipsis_mask |= 1 << sparse_dims
        sparse_dims += 1

    dims = len(input_shape)
    dense = _build_dense_spec(
        dims,
        sparse_dims,
        num_add_axis_after_ellipsis,
        begin,
        end,
        strides,
        (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask),
    )
    begin_valid, end_valid = begin is not None, end is not None

    processing: list[int] = []
    # TF 2.21 reports an out-of-bounds shrink index only after every dim passed its stride checks.
    bounds_error: str | None = None
    for i in range(dims):
        bit = 1 << i
        begin_i, end_i, stride_i = dense.begin[i], dense.end[i], dense.strides[i]
        dim_i = int(input_shape[i])
        if stride_i == 0:
            raise invalid(f"strides[{i}] must be non-zero")
        shrink_i = bool(dense.shrink_axis_mask & bit)
        if dim_i == -1:
            processing.append(1 if shrink_i else -1)
            continue
        masked = (bool(dense.begin_mask & bit), bool(dense.end_mask & bit))
        valid_range = (0, dim_i) if stride_i > 0 else (-1, dim_i - 1)

        def canonical(x: int, c: int, stride_i: int = stride_i, dim_i: int = dim_i, masked=masked, valid=valid_range):
            if masked[c]:
                return valid[c] if stride_i > 0 else valid[(c + 1) & 1]
            x_fwd = dim_i + x if x < 0 else x
            return valid[0] if x_fwd < valid[0] else min(x_fwd, valid[1])

        if shrink_i and stride_i <= 0:
            raise invalid("only stride 1 allowed on non-range indexing.")
        begin_and_end_masked = masked[0] and masked[1]
        if begin_valid and end_valid:
            if shrink_i:
                x_fwd = dim_i + begin_i if begin_i < 0 else begin_i
                begin_i, end_i = x_fwd, x_fwd + 1
                if (x_fwd < 0 or x_fwd >= dim_i) and bounds_error is None:
                    bounds_error = f"slice index {begin_i} of dimension {i} out of bounds."
            else:
                begin_i, end_i = canonical(begin_i, 0), canonical(end_i, 1)
        interval: int | None = None
        if begin_valid and end_valid:
            interval = end_i - begin_i
        elif shrink_i:
            interval = 1
        elif begin_and_end_masked and dim_i >= 0:
            interval = -dim_i if stride_i < 0 else dim_i
        if interval is None:
            processing.append(-1)
        elif interval == 0 or (interval < 0) != (stride_i < 0):
            processing.append(0)
        else:
            q, r = abs(interval) // abs(stride_i), abs(interval) % abs(stride_i)
            processing.append(q + (1 if r else 0))

    if bounds_error is not None:
        raise invalid(bounds_error)
    final: list[int] = []
    for gather_index in dense.final_shape_gather_indices:
        if gather_index >= 0:
            final.append(processing[gather_index])
        elif gather_index == _NEW_AXIS:
            final.append(1)
    return final
