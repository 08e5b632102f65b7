"""The StridedSlice shape helper on its own: TF's sparse-to-dense spec expansion and bounds rules."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.ops.strided_slice import strided_slice_shape


def shape(input_shape, begin, end, strides, begin_mask=0, end_mask=0, ellipsis=0, new_axis=0, shrink=0):
    arr = [None if v is None else np.array(v, np.int32) for v in (begin, end)]
    return strided_slice_shape(input_shape, *arr, np.array(strides, np.int32), begin_mask, end_mask, ellipsis,
                               new_axis, shrink)  # fmt: skip


def test_negative_strides_and_clamping() -> None:
    assert shape([10], [8], [2], [-2]) == [3]
    assert shape([10], [-100], [100], [1]) == [10]
    assert shape([10], [7], [2], [1]) == [0]
    assert shape([10], [0], [0], [-3], begin_mask=1, end_mask=1) == [4]


def test_ellipsis_new_axis_and_shrink() -> None:
    assert shape([3, 4, 5, 6], [0, 1, 0, 2], [0, 3, 0, 3], [1, 1, 1, 1], ellipsis=4, new_axis=1) == [1, 2, 4, 5, 1]
    assert shape([3, 4, 5], [1, 0, 2], [2, 0, 3], [1, 1, 1], new_axis=2, shrink=5) == [1, 5]
    assert shape([10, -1], [3, 0], [4, 0], [1, 1], shrink=1, end_mask=2) == [-1]


def test_unknown_begin_end_give_unknown_dims_unless_masked_or_shrunk() -> None:
    assert shape([10, 20], None, None, [1, 1]) == [-1, -1]
    assert shape([10, 20], None, None, [1, 1], begin_mask=3, end_mask=3) == [10, 20]
    assert shape([10, 20], None, [5, 5], [1, 1], shrink=1) == [-1]


def test_errors() -> None:
    with pytest.raises(errors.InvalidArgumentError, match="Multiple ellipses in slice spec not allowed"):
        shape([10, 20], [0, 0], [0, 0], [1, 1], ellipsis=3)
    with pytest.raises(errors.InvalidArgumentError, match=r"strides\[1\] must be non-zero"):
        shape([10, 20], [0, 0], [1, 1], [1, 0])
    with pytest.raises(errors.InvalidArgumentError, match="Index out of range using input dim 2; input has only 2"):
        shape([10, 20], [0, 0, 0], [1, 1, 1], [1, 1, 1])
    # The stride rule of every dim is checked before any shrink index's bounds, as in TF 2.21.
    with pytest.raises(errors.InvalidArgumentError, match="only stride 1 allowed on non-range indexing."):
        shape([2, 2], [-4, 0], [0, 0], [1, -1], shrink=3)
    with pytest.raises(errors.InvalidArgumentError, match="Expected begin, end, and strides to be 1D equal size"):
        shape([10, 20], [1, 1], [5, 5, 5], [1, 1])
