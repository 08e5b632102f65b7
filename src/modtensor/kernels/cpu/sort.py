"""Ordering kernels with TensorFlow's semantics: TopKV2, Unique, and ClipByValue.

TopKV2 returns the k largest values along the last axis, largest first, equal values
in index order (TF's stable order). Unique keeps first-occurrence order; every NaN is distinct, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument, shape_str


def top_k_v2(
    input: np.ndarray, k: np.ndarray, sorted: bool = True, index_type: Any = np.int32
) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002
    """TopKV2: values and indices of the ``k`` largest entries of each last-axis row."""
    x, k_arr = np.asarray(input), np.asarray(k)
    if k_arr.ndim != 0:
        raise invalid_argument(f"k must be scalar, got shape {shape_str(k_arr.shape)}")
    kk = int(k_arr)
    if kk < 0:
        raise invalid_argument(f"Need k >= 0, got {kk}")
    if x.ndim < 1:
        raise invalid_argument(f"input must be >= 1-D, got shape {shape_str(x.shape)}")
    n = x.shape[-1]
    if n < kk:
        raise invalid_argument(f"input must have at least k columns. Had {n}, needed {kk}")
    out_dtype = as_numpy_dtype(index_type)
    if kk == 0 or x.size == 0:
        shape = (*x.shape[:-1], kk)
        return np.zeros(shape, x.dtype), np.zeros(shape, out_dtype)
    if kk <= _FEW and 4 * kk <= n:
        indices = _top_k_few(x, kk)
        if indices is not None:
            return np.ascontiguousarray(np.take_along_axis(x, indices, axis=-1)), indices.astype(out_dtype)
    # Descending, ties by ascending index: stable ascending sort of the reversed row, read backwards.
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :kk]
    indices = (n - 1) - order
    values = np.take_along_axis(x, indices, axis=-1)
    return np.ascontiguousarray(values), indices.astype(out_dtype)


_FEW = 8  # k up to this: k passes of argmax instead of sorting every row


def _top_k_few(x: np.ndarray, k: int) -> np.ndarray | None:
    """The k largest of each row by k passes of argmax (its first maximum: ties by ascending index, as the sort),
    each found entry then lowered to the dtype's lowest value. None (use the sort) for NaN, non-numpy-numeric
    dtypes, or when a chosen entry is that lowest value (it could be a lowered one)."""
    if x.dtype.kind == "f" and x.dtype in (np.float16, np.float32, np.float64):
        if np.isnan(x).any():
            return None
        lowest = -np.inf
    elif x.dtype.kind in "iu":
        lowest = np.iinfo(x.dtype).min
    else:
        return None
    n = x.shape[-1]
    work = x.reshape(-1, n).copy()
    rows = np.arange(work.shape[0])
    taken = np.empty((work.shape[0], k), np.intp)
    for j in range(k):
        index = np.argmax(work, axis=-1)
        if np.any(work[rows, index] == lowest):
            return None
        taken[:, j] = index
        work[rows, index] = lowest
    return taken.reshape(*x.shape[:-1], k)


def unique(x: np.ndarray, out_idx: Any = np.int32) -> tuple[np.ndarray, np.ndarray]:
    """Unique: the distinct values of a vector in first-occurrence order, and each element's index into them."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument("unique expects a 1D vector.")
    dtype = as_numpy_dtype(out_idx)
    if x.size == 0:
        return x.copy(), np.zeros((0,), dtype)
    if x.dtype == object:
        first: dict[Any, int] = {}
        idx = np.empty(len(x), dtype)
        for i, v in enumerate(x):
            idx[i] = first.setdefault(v, len(first))
        return np.array(list(first), dtype=object), idx
    # Equal values are adjacent after a stable sort, each run led by its first occurrence. Runs split wherever
    # neighbours differ, so every NaN is a value of its own (TF's hash map: NaN != NaN) while -0.0 and 0.0 share one.
    perm = np.argsort(x, kind="stable")
    ordered = x[perm]
    starts = np.empty(len(x), bool)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    group = np.cumsum(starts) - 1  # run number of each sorted element
    first = perm[starts]  # first occurrence of each run
    order = np.argsort(first)  # runs by first occurrence (distinct positions: no ties)
    rank = np.empty(len(first), np.int64)
    rank[order] = np.arange(len(first))
    idx = np.empty(len(x), dtype)
    idx[perm] = rank[group]
    return x[first[order]], idx


def unique_with_counts(x: np.ndarray, out_idx: Any = np.int32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """UniqueWithCounts: Unique's values and indices, and how often each value occurs."""
    values, idx = unique(x, out_idx)
    return values, idx, np.bincount(idx, minlength=len(values)).astype(idx.dtype)


def clip_by_value(t: np.ndarray, clip_value_min: np.ndarray, clip_value_max: np.ndarray) -> np.ndarray:
    """ClipByValue: ``t`` limited to [min, max] (each a scalar or of ``t``'s shape)."""
    t, lo, hi = np.asarray(t), np.asarray(clip_value_min), np.asarray(clip_value_max)
    if not ((lo.shape == t.shape or lo.ndim == 0) and (hi.shape == t.shape or hi.ndim == 0)):
        raise invalid_argument(
            "clip_value_min and clip_value_max must be either of the same shape as input, or a scalar. input shape: "
            f"{shape_str(t.shape)}clip_value_min shape: {shape_str(lo.shape)}clip_value_max shape: "
            f"{shape_str(hi.shape)}"
        )
    return np.maximum(np.minimum(t, hi), lo).astype(t.dtype, copy=False)


OP_FUNCTIONS: dict[str, Any] = {
    "TopKV2": top_k_v2,
    "Unique": unique,
    "UniqueWithCounts": unique_with_counts,
    "ClipByValue": clip_by_value,
}
CPU_TYPE_CONSTRAINTS = {
    "TopKV2": {"T": "FLOATS INTS UINTS", "index_type": "int16 int32 int64"},
    "Unique": {"T": "FLOATS INTS UINTS bool string", "out_idx": "int32 int64"},
    "UniqueWithCounts": {"T": "FLOATS INTS UINTS bool string", "out_idx": "int32 int64"},
    "ClipByValue": {"T": "FLOATS INTS uint8 uint16 COMPLEX"},
}
