"""CPU kernels that search sorted rows or count values: LowerBound, UpperBound, Bucketize, HistogramFixedWidth,
Bincount, DenseBincount and InTopKV2, as numpy functions with TF's checks and texts.

HistogramFixedWidth bins as TF's functor: ``min((max(x, lo) - lo) / ((hi - lo) / nbins), nbins - 1)`` in
double, truncated; InTopKV2 says false for a row whose target is out of range or has a nonfinite prediction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]


def _bound(sorted_inputs: np.ndarray, values: np.ndarray, out_type: Any, side: str) -> np.ndarray:
    for arg, t in (("sorted_inputs", sorted_inputs), ("values", values)):
        if t.ndim != 2:
            raise invalid_argument(f"Shape must be rank 2 but is rank {t.ndim} for `{arg}` argument")
    if sorted_inputs.shape[0] != values.shape[0]:
        raise invalid_argument("Leading dim_size of both tensors must match.")
    out = np.empty(values.shape, as_numpy_dtype(out_type))
    for row in range(values.shape[0]):
        out[row] = np.searchsorted(sorted_inputs[row], values[row], side=side)
    return out


def lower_bound(sorted_inputs: np.ndarray, values: np.ndarray, out_type: Any = np.int32) -> np.ndarray:
    """Per row, the first index of ``sorted_inputs`` whose element is >= each value."""
    return _bound(sorted_inputs, values, out_type, "left")


def upper_bound(sorted_inputs: np.ndarray, values: np.ndarray, out_type: Any = np.int32) -> np.ndarray:
    """Per row, the first index of ``sorted_inputs`` whose element is > each value."""
    return _bound(sorted_inputs, values, out_type, "right")


def _number(v: Any) -> str:
    """A number as TF's StrCat writes it (%g for floats)."""
    return f"{float(v):g}" if isinstance(v, float | np.floating) else str(int(v))


@ignoring_fp_errors
def histogram_fixed_width(
    values: np.ndarray, value_range: np.ndarray, nbins: np.ndarray, dtype: Any = np.int32
) -> np.ndarray:
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (outliers in the end bins)."""
    if value_range.ndim != 1:
        raise invalid_argument("value_range should be a vector.")
    if value_range.size != 2:
        raise invalid_argument("value_range should be a vector of 2 elements.")
    if np.ndim(nbins) != 0:
        raise invalid_argument("nbins should be a scalar.")
    lo, hi = value_range[0], value_range[1]
    if not lo < hi:
        raise invalid_argument(
            f"value_range should satisfy value_range[0] < value_range[1], but got '[{_number(lo)}, {_number(hi)}]'"
        )
    n = int(nbins)
    if n <= 0:
        raise invalid_argument(f"nbins should be a positive number, but got '{n}'")
    step = float(hi - lo) / float(n)
    shifted = (np.maximum(values.reshape(-1), lo) - lo).astype(np.float64)
    index = np.minimum(shifted / step, float(n - 1)).astype(np.int64)
    return np.bincount(index, minlength=n).astype(as_numpy_dtype(dtype))


def _counts(arr: np.ndarray, size: int, weights: np.ndarray, binary_output: bool, dtype: np.dtype) -> np.ndarray:
    """Per-value counts (or weight sums, or presence) of the nonnegative ints ``arr`` below ``size``."""
    if (arr < 0).any():
        raise invalid_argument("Input arr must be non-negative!")
    keep = arr < size
    kept = arr[keep].astype(np.int64)
    if binary_output:
        out = np.zeros(size, dtype)
        out[kept] = 1
        return out
    if weights.size:
        out = np.zeros(size, dtype)
        np.add.at(out, kept, weights[keep])
        return out
    return np.bincount(kept, minlength=size).astype(dtype)


def _check_size(size: np.ndarray) -> int:
    if np.ndim(size) != 0:
        raise invalid_argument(f"Shape must be rank 0 but is rank {np.ndim(size)}")
    n = int(size)
    if n < 0:
        raise invalid_argument(f"size ({n}) must be non-negative")
    return n


def _check_weights(arr: np.ndarray, weights: np.ndarray) -> None:
    if weights.shape != arr.shape and weights.size != 0:
        raise invalid_argument(
            "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts as all weights "
            f"equal to 1. Received {shape_str(weights.shape)}"
        )


def bincount(arr: np.ndarray, size: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The count (or weight sum) of each value 0..size-1 in ``arr``; larger values are dropped."""
    n = _check_size(size)
    _check_weights(arr, weights)
    return _counts(arr.reshape(-1), n, weights.reshape(-1), False, weights.dtype)


def dense_bincount(
    input: np.ndarray,  # noqa: A002  (TF's arg name)
    size: np.ndarray,
    weights: np.ndarray,
    binary_output: bool = False,
) -> np.ndarray:
    """Bincount of a vector, or of each row of a matrix; with ``binary_output`` 1 where a value occurs."""
    if input.ndim > 2:
        raise invalid_argument(f"Shape must be at most rank 2 but is rank {input.ndim}")
    n = _check_size(size)
    _check_weights(input, weights)
    if input.ndim < 2:
        return _counts(input.reshape(-1), n, weights.reshape(-1), binary_output, weights.dtype)
    rows = [
        _counts(input[i], n, weights[i] if weights.size else weights, binary_output, weights.dtype)
        for i in range(input.shape[0])
    ]
    return np.stack(rows) if rows else np.zeros((0, n), weights.dtype)


def in_top_k_v2(predictions: np.ndarray, targets: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per row: whether the target's prediction is among the ``k`` largest (ties count for the target)."""
    if np.ndim(k) != 0:
        raise invalid_argument(f"k must be 0-D, got shape {shape_str(np.shape(k))}")
    if predictions.ndim != 2:
        raise invalid_argument("predictions must be 2-dimensional")
    if targets.ndim != 1:
        raise invalid_argument("targets must be 1-dimensional")
    if predictions.shape[0] != targets.shape[0]:
        raise invalid_argument(
            f"First dimension of predictions {predictions.shape[0]} must match length of targets {targets.shape[0]}"
        )
    k = int(k)
    classes = predictions.shape[1]
    out = np.zeros(targets.shape, bool)
    for row, target in enumerate(targets.tolist()):
        if not 0 <= target < classes:
            continue
        scores = predictions[row]
        if not np.isfinite(scores).all():
            continue
        out[row] = int((scores > scores[target]).sum()) < k
    return out


def _upper_bound(bounds: np.ndarray, value: Any) -> int:
    """C++'s ``std::upper_bound`` step for step: the binary search TF runs even over boundaries with a NaN."""
    first, count = 0, len(bounds)
    while count > 0:
        step = count // 2
        if not value < bounds[first + step]:
            first, count = first + step + 1, count - step - 1
        else:
            count = step
    return first


def bucketize(input: np.ndarray, boundaries: Any = ()) -> np.ndarray:  # noqa: A002
    """Bucketize: for each value the number of ``boundaries`` (float32, sorted) not above it, TF's upper bound.

    The comparison is C++'s between the value and a float boundary: integers are compared as float32 (so 16777217
    equals 16777216.0), doubles against the boundary widened to double.
    """
    bounds = np.asarray(list(boundaries), dtype=np.float32)
    if np.any(bounds[1:] < bounds[:-1]):
        raise invalid_argument("Expected sorted boundaries")
    x = np.asarray(input)
    if x.dtype == np.float64:
        values, bounds = x, bounds.astype(np.float64)
    else:
        values = x.astype(np.float32)
    if np.isnan(bounds).any():
        flat = [_upper_bound(bounds, v) for v in values.reshape(-1)]
        return np.asarray(flat, dtype=np.int32).reshape(x.shape)
    return np.asarray(np.searchsorted(bounds, values, side="right"), dtype=np.int32)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "Bucketize": bucketize,
    "LowerBound": lower_bound,
    "UpperBound": upper_bound,
    "HistogramFixedWidth": histogram_fixed_width,
    "Bincount": bincount,
    "DenseBincount": dense_bincount,
    "InTopKV2": in_top_k_v2,
}

_REAL = "FLOATS INTS UINTS"
# TF 2.21's CPU kernels (tests/golden/op_breadth/cpu_kernel_constraints.json).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "LowerBound": {"T": "FLOATS int8 int16 int32 int64 UINTS", "out_type": "int32 int64"},
    "UpperBound": {"T": "FLOATS int8 int16 int32 int64 UINTS", "out_type": "int32 int64"},
    "Bucketize": {"T": "int32 int64 float32 float64"},
    "HistogramFixedWidth": {"T": _REAL, "dtype": "int32 int64"},
    "Bincount": {"T": f"{_REAL} COMPLEX"},
    "DenseBincount": {"T": f"{_REAL} COMPLEX", "Tidx": "int32 int64"},
    "InTopKV2": {"T": "int32 int64"},
}
