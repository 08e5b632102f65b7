"""Reductions with TensorFlow's semantics: Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin.

The reduction indices come as an int32/int64 scalar or vector (negative
values count from the end, an empty list reduces nothing); ``keep_dims``
keeps reduced axes as size 1. Empty reductions give the identity (Sum 0,
Prod 1, Max -inf or the dtype's lowest, Min +inf or its highest, All True,
Any False). Mean of integers divides the integer sum with C truncation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import quiet_off, quiet_on
from modtensor.kernels.cpu.precision import HALF_TYPES

_AXES: dict[tuple[int, str, tuple[int, ...], bytes], tuple[int, ...]] = {}


def reduction_axes(ndim: int, axis: Any) -> tuple[int, ...]:
    """Normalize TF reduction indices to sorted non-negative axes, with TF's errors (valid answers are cached)."""
    a = axis if type(axis) is np.ndarray else np.asarray(axis)
    key = (ndim, a.dtype.char, a.shape, a.tobytes())
    found = _AXES.get(key)
    if found is None:
        found = _normalize_axes(ndim, a)
        if len(_AXES) >= 4096:
            _AXES.clear()
        _AXES[key] = found
    return found


def _normalize_axes(ndim: int, axis: np.ndarray) -> tuple[int, ...]:
    values = axis.reshape(-1).tolist()
    if axis.ndim > 1:
        raise invalid_argument(f"Invalid reduction arguments: Axes must be a scalar or a vector: {axis.ndim}")
    seen: set[int] = set()
    for v in values:
        if not -ndim <= v < ndim:
            raise invalid_argument(f"Invalid reduction dimension ({v} for input with {ndim} dimension(s)")
        a = v % ndim
        if a in seen:
            raise invalid_argument(f"Invalid reduction arguments: Axes contains duplicate dimension: {a}")
        seen.add(a)
    return tuple(sorted(seen))


def _reduce(
    fn: Callable[..., np.ndarray], input: np.ndarray, axis: Any, keep_dims: bool, widen_half: bool = True
) -> np.ndarray:  # noqa: A002
    x = input if type(input) is np.ndarray else np.asarray(input)
    axes = reduction_axes(x.ndim, axis)
    work = x.astype(np.float32) if widen_half and x.dtype in HALF_TYPES else x
    token = quiet_on()
    try:
        out = fn(work, axis=axes, keepdims=keep_dims)
    finally:
        quiet_off(token)
    return np.asarray(out, dtype=x.dtype)


def reduce_sum(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002 - TF's argument name
    """Sum over the given axes (integers wrap on overflow)."""
    return _reduce(np.add.reduce, input, axis, keep_dims)


def euclidean_norm(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002
    """``sqrt(sum(x * conj(x)))`` over the given axes; integer results are truncated, as TF's."""
    x = input if type(input) is np.ndarray else np.asarray(input)
    axes = reduction_axes(x.ndim, axis)
    if np.iscomplexobj(x):
        out = np.sqrt(np.sum(x * np.conj(x), axis=axes, keepdims=keep_dims))
    else:
        wide = x.astype(np.float64) if x.dtype.kind in "iu" or x.dtype in HALF_TYPES else x
        out = np.sqrt(np.sum(wide * wide, axis=axes, keepdims=keep_dims))
        if x.dtype.kind in "iu":
            out = np.trunc(out)
    return np.asarray(out).astype(x.dtype)


def reduce_prod(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002
    """Prod over the given axes; empty products are 1."""
    return _reduce(np.multiply.reduce, input, axis, keep_dims)


def _identity_fill(reducer: Callable[..., np.ndarray], empty_value: Callable[[np.dtype], Any]):
    def fn(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        if x.size == 0:
            shape = (
                tuple(1 if i in axis else d for i, d in enumerate(x.shape))
                if keepdims
                else tuple(d for i, d in enumerate(x.shape) if i not in axis)
            )
            return np.full(shape, empty_value(x.dtype), dtype=x.dtype)
        return reducer(x, axis=axis, keepdims=keepdims)

    return fn


def _lowest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return False
    return np.iinfo(dtype).min if np.issubdtype(dtype, np.integer) else -np.inf


def _highest(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return True
    return np.iinfo(dtype).max if np.issubdtype(dtype, np.integer) else np.inf


def reduce_max(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002
    """Max over the given axes; NaN propagates, empty gives -inf (dtype min for ints)."""
    return _reduce(_identity_fill(np.maximum.reduce, _lowest), input, axis, keep_dims, widen_half=False)


def reduce_min(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002
    """Min over the given axes; NaN propagates, empty gives +inf (dtype max for ints)."""
    return _reduce(_identity_fill(np.minimum.reduce, _highest), input, axis, keep_dims, widen_half=False)


def reduce_all(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002
    """All (logical and) over the given axes of a bool tensor; empty is True."""
    return _reduce(np.all, input, axis, keep_dims)


def reduce_any(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002
    """Any (logical or) over the given axes of a bool tensor; empty is False."""
    return _reduce(np.any, input, axis, keep_dims)


def reduce_mean(input: np.ndarray, axis: Any, keep_dims: bool = False) -> np.ndarray:  # noqa: A002
    """Mean over the given axes; integer inputs divide the integer sum, truncating toward zero."""
    x = input if type(input) is np.ndarray else np.asarray(input)
    axes = reduction_axes(x.ndim, axis)
    count = 1
    for a in axes:
        count *= x.shape[a]
    if x.dtype.kind == "f" and x.dtype not in HALF_TYPES:
        token = quiet_on()
        try:
            total = np.add.reduce(x, axis=axes, keepdims=keep_dims, out=...)
            return np.divide(total, x.dtype.type(count), out=total)
        finally:
            quiet_off(token)
    with np.errstate(all="ignore"):
        if np.issubdtype(x.dtype, np.integer):
            total = np.sum(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)
            if count == 0:
                return np.zeros(np.shape(total), dtype=x.dtype)
            q = np.abs(total.astype(np.int64)) // count
            return np.asarray(np.where(total < 0, -q, q), dtype=x.dtype)
        work = x.astype(np.float32) if x.dtype in HALF_TYPES else x
        # The sum is rounded to x's dtype before dividing: a float16 sum past 65504 is inf, as in TF.
        total = np.asarray(np.sum(work, axis=axes, keepdims=keep_dims), dtype=x.dtype).astype(work.dtype)
        out = total / work.dtype.type(count)
    return np.asarray(out, dtype=x.dtype)


def _arg(fn: Callable[..., np.ndarray], input: np.ndarray, dimension: Any, output_type: Any) -> np.ndarray:  # noqa: A002
    x = np.asarray(input)
    d = int(np.asarray(dimension).reshape(-1)[0]) if np.asarray(dimension).size else 0
    if np.asarray(dimension).ndim != 0:
        raise invalid_argument(f"dim must be a scalar, but received tensor of shape: {shape_str(np.shape(dimension))}")
    if not -x.ndim <= d < x.ndim:
        raise invalid_argument(f"Expected dimension in the range [{-x.ndim}, {x.ndim}), but got {d}")
    axis = d % x.ndim
    if x.shape[axis] == 0:
        raise invalid_argument(f"Reduction axis {d} is empty in shape {shape_str(x.shape)}")
    return np.asarray(fn(x, axis=axis), dtype=np.dtype(getattr(output_type, "as_numpy_dtype", output_type)))


def arg_max(input: np.ndarray, dimension: Any, output_type: Any = np.int64) -> np.ndarray:  # noqa: A002
    """ArgMax: index of the first maximum along ``dimension``, as output_type (int64 by default)."""
    return _arg(np.argmax, input, dimension, output_type)


def arg_min(input: np.ndarray, dimension: Any, output_type: Any = np.int64) -> np.ndarray:  # noqa: A002
    """ArgMin: index of the first minimum along ``dimension``, as output_type (int64 by default)."""
    return _arg(np.argmin, input, dimension, output_type)
