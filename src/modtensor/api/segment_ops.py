"""TF-named scans and segment reductions: ``tf.cumsum``, ``tf.math.cumprod``, ``tf.math.segment_*``,
``tf.math.unsorted_segment_*`` (mean and sqrt_n are TF's compositions over ``UnsortedSegmentSum``)."""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework.tensor import Tensor

__all__ = ["cumsum"]


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """Running sums along ``axis`` (``Cumsum``)."""
    with op_scope(name, "Cumsum", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumsum", name=scope, x=x, axis=axis, exclusive=exclusive, reverse=reverse)


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """Running products along ``axis`` (``Cumprod``)."""
    with op_scope(name, "Cumprod", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumprod", name=scope, x=x, axis=axis, exclusive=exclusive, reverse=reverse)


def _segment(op: str) -> Any:
    def fn(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
        return apply_op(op, name=name, data=data, segment_ids=segment_ids)

    fn.__name__ = fn.__qualname__ = "segment_" + op[len("Segment") :].lower()
    fn.__doc__ = f"One row per sorted segment id: the {op[len('Segment') :].lower()} of its rows (``{op}``)."
    return fn


def _unsorted(op: str) -> Any:
    def fn(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
        return apply_op(op, name=name, data=data, segment_ids=segment_ids, num_segments=num_segments)

    kind = op[len("UnsortedSegment") :].lower()
    fn.__name__ = fn.__qualname__ = "unsorted_segment_" + kind
    fn.__doc__ = f"``num_segments`` rows, each the {kind} of the rows with that id (``{op}``)."
    return fn


segment_sum = _segment("SegmentSum")
segment_mean = _segment("SegmentMean")
segment_prod = _segment("SegmentProd")
segment_max = _segment("SegmentMax")
segment_min = _segment("SegmentMin")
unsorted_segment_sum = _unsorted("UnsortedSegmentSum")
unsorted_segment_prod = _unsorted("UnsortedSegmentProd")
unsorted_segment_max = _unsorted("UnsortedSegmentMax")
unsorted_segment_min = _unsorted("UnsortedSegmentMin")


def _segment_counts(data: Tensor, segment_ids: Tensor, num_segments: Any) -> Tensor:
    """How many rows each segment has (at least 1), shaped to broadcast against the sums (TF's helper)."""
    num_segments = convert_to_tensor(num_segments)
    ones = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype)
    n = apply_op("UnsortedSegmentSum", data=ones, segment_ids=segment_ids, num_segments=num_segments)
    extra = math.subtract(array_ops.rank(data), array_ops.rank(segment_ids))
    ones_tail = array_ops.ones(array_ops.reshape(extra, [1]), dtype=num_segments.dtype)
    shape = array_ops.concat([array_ops.reshape(num_segments, [1]), ones_tail], 0)
    return math.maximum(array_ops.reshape(n, shape), 1)


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """``num_segments`` rows, each the mean of the rows with that id (0 for an empty one)."""
    with op_scope(name, "UnsortedSegmentMean", [data, segment_ids]):
        data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
        n = _segment_counts(data, segment_ids, num_segments)
        summed = apply_op("UnsortedSegmentSum", data=data, segment_ids=segment_ids, num_segments=num_segments)
        return math.truediv(summed, n)


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """``num_segments`` rows, each the sum of the rows with that id divided by the square root of their count."""
    with op_scope(name, "UnsortedSegmentSqrtN", [data, segment_ids]):
        data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
        n = _segment_counts(data, segment_ids, num_segments)
        summed = apply_op("UnsortedSegmentSum", data=data, segment_ids=segment_ids, num_segments=num_segments)
        return math.truediv(summed, math.sqrt(n))
